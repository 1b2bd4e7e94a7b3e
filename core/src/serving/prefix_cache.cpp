// The prefix caches: vLLM-style hashed blocks and an SGLang-style radix tree (prefix_cache.hpp).
#include "serving/prefix_cache.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace flopcast::detail {
namespace {

// splitmix64's finaliser: a 64-bit mix (collisions between distinct blocks: about n^2 / 2^65).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A position in a token span: segment index and offset in it.
struct cursor {
  std::size_t seg = 0;
  std::int64_t off = 0;
};
// Moves c by n tokens within its segment g (to the next segment at its end).
void advance(cursor& c, const token_segment& g, std::int64_t n) {
  c.off += n;
  if (c.off == g.length) {
    ++c.seg;
    c.off = 0;
  }
}
cursor seek(token_span s, std::int64_t pos) {
  cursor c;
  while (c.seg < s.size && pos >= s.data[c.seg].length) pos -= s.data[c.seg++].length;
  c.off = pos;
  return c;
}

// Block hash -> entry: open addressing with linear probing and backward-shift deletion, so that
// caching and evicting a block allocate nothing (the hashes are already mixed).
class block_index {
 public:
  block_index() : slots_(1024), mask_(1023) {}
  [[nodiscard]] std::int32_t find(std::uint64_t key) const {
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      const slot& x = slots_[i];
      if (x.value < 0) return -1;
      if (x.key == key) return x.value;
    }
  }
  void insert(std::uint64_t key, std::int32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = key & mask_;
    while (slots_[i].value >= 0) i = (i + 1) & mask_;
    slots_[i] = {key, value};
    ++size_;
  }
  void erase(std::uint64_t key) {
    std::size_t i = key & mask_;
    while (slots_[i].key != key || slots_[i].value < 0) {
      if (slots_[i].value < 0) return;
      i = (i + 1) & mask_;
    }
    // Shift back the entries after it whose home slot is not between the hole and them.
    for (std::size_t j = (i + 1) & mask_; slots_[j].value >= 0; j = (j + 1) & mask_) {
      const std::size_t home = slots_[j].key & mask_;
      const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = slot{};
    --size_;
  }

 private:
  struct slot {
    std::uint64_t key = 0;
    std::int32_t value = -1;  // -1: empty
  };
  void grow() {
    std::vector<slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const slot& x : old)
      if (x.value >= 0) insert(x.key, x.value);
  }
  std::vector<slot> slots_;
  std::size_t mask_;
  std::size_t size_ = 0;
};

// ---- hashed full blocks (vLLM, TensorRT-LLM) ----
class block_cache final : public prefix_cache {
 public:
  explicit block_cache(std::int64_t page) : page_(page) {}

  std::int64_t lookup(token_span seq, std::int64_t limit, std::int64_t& unpinned) override {
    found_.clear();
    unpinned = 0;
    std::uint64_t h = 0;
    cursor c;
    const std::int64_t blocks = limit / page_;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint64_t next = hash_block(h, seq, c);
      const std::int32_t e = map_.find(next);
      if (e < 0) break;
      h = next;
      found_.push_back(e);
      if (entries_[static_cast<std::size_t>(e)].ref == 0) ++unpinned;
    }
    found_hash_ = h;
    return static_cast<std::int64_t>(found_.size()) * page_;
  }

  void acquire(cache_holder& h) override {
    for (const std::int32_t e : found_) pin(e);
    h.blocks.assign(found_.begin(), found_.end());
    h.last_hash = found_hash_;
    h.tokens = static_cast<std::int64_t>(found_.size()) * page_;
  }

  void commit(cache_holder& h, token_span seq, std::int64_t tokens) override {
    const std::int64_t have = static_cast<std::int64_t>(h.blocks.size()), want = tokens / page_;
    if (want <= have) return;
    cursor c = seek(seq, have * page_);
    std::uint64_t hash = h.last_hash;
    for (std::int64_t b = have; b < want; ++b) {
      hash = hash_block(hash, seq, c);
      std::int32_t e = map_.find(hash);
      if (e >= 0)
        pin(e);  // computed by another request meanwhile: share it (this copy is freed)
      else
        e = new_entry(hash);
      h.blocks.push_back(e);
    }
    h.last_hash = hash;
    h.tokens = want * page_;
  }

  void release(cache_holder& h) override {
    // vLLM frees a request's blocks in reverse so that its last blocks are evicted first.
    for (auto it = h.blocks.rbegin(); it != h.blocks.rend(); ++it) {
      entry& x = entries_[static_cast<std::size_t>(*it)];
      if (--x.ref == 0) {
        --pinned_;
        push_back(*it);
      }
    }
    h.blocks.clear();
    h.last_hash = 0;
    h.tokens = 0;
  }

  void evict(std::int64_t blocks) override {
    for (std::int64_t i = 0; i < blocks && head_ >= 0; ++i) {
      const std::int32_t e = head_;
      unlink(e);
      map_.erase(entries_[static_cast<std::size_t>(e)].hash);
      free_.push_back(e);
      --cached_;
      ++evicted_;
    }
  }

 private:
  struct entry {
    std::uint64_t hash = 0;
    std::int32_t ref = 0;
    std::int32_t prev = -1, next = -1;  // the free (evictable) list, least recently freed first
  };

  // The chained hash of the block at c (advances c by one page): the parent's hash and each run
  // of one content's tokens in the block (content, offset, length).
  std::uint64_t hash_block(std::uint64_t parent, token_span seq, cursor& c) const {
    std::uint64_t h = mix(parent ^ 0x5bd1e995ULL);
    std::int64_t left = page_;
    while (left > 0 && c.seg < seq.size) {
      const token_segment& s = seq.data[c.seg];
      const std::int64_t take = std::min(left, s.length - c.off);
      h = mix(h ^ mix(s.id));
      h = mix(h ^ static_cast<std::uint64_t>(c.off));
      h = mix(h ^ static_cast<std::uint64_t>(take));
      left -= take;
      advance(c, s, take);
    }
    return h;
  }
  std::int32_t new_entry(std::uint64_t hash) {
    std::int32_t e = 0;
    if (!free_.empty()) {
      e = free_.back();
      free_.pop_back();
    } else {
      e = static_cast<std::int32_t>(entries_.size());
      entries_.emplace_back();
    }
    entries_[static_cast<std::size_t>(e)] = entry{hash, 1, -1, -1};
    map_.insert(hash, e);
    ++cached_;
    ++pinned_;
    return e;
  }
  void pin(std::int32_t e) {
    entry& x = entries_[static_cast<std::size_t>(e)];
    if (x.ref++ == 0) {
      unlink(e);
      ++pinned_;
    }
  }
  void push_back(std::int32_t e) {
    entry& x = entries_[static_cast<std::size_t>(e)];
    x.prev = tail_;
    x.next = -1;
    if (tail_ >= 0)
      entries_[static_cast<std::size_t>(tail_)].next = e;
    else
      head_ = e;
    tail_ = e;
  }
  void unlink(std::int32_t e) {
    entry& x = entries_[static_cast<std::size_t>(e)];
    if (x.prev >= 0)
      entries_[static_cast<std::size_t>(x.prev)].next = x.next;
    else
      head_ = x.next;
    if (x.next >= 0)
      entries_[static_cast<std::size_t>(x.next)].prev = x.prev;
    else
      tail_ = x.prev;
    x.prev = x.next = -1;
  }

  std::int64_t page_;
  std::vector<entry> entries_;
  std::vector<std::int32_t> free_;  // unused entry slots
  block_index map_;
  std::int32_t head_ = -1, tail_ = -1;
  std::vector<std::int32_t> found_;  // the last lookup's entries
  std::uint64_t found_hash_ = 0;
};

// ---- radix tree (SGLang) ----
class radix_cache final : public prefix_cache {
 public:
  explicit radix_cache(std::int64_t page) : page_(page) { nodes_.emplace_back(); }  // the root

  std::int64_t lookup(token_span seq, std::int64_t limit, std::int64_t& unpinned) override {
    // Longest common prefix, then whole pages; the unpinned tokens along it.
    std::int64_t match = 0, free_tokens = 0;
    walk(seq, limit, false, [&](std::int32_t n, std::int64_t used) {
      match += used;
      if (nodes_[static_cast<std::size_t>(n)].lock == 0) free_tokens += used;
    });
    found_ = match / page_ * page_;
    // Unpinned tokens beyond the page-aligned match are not taken.
    free_tokens = std::max<std::int64_t>(0, free_tokens - (match - found_));
    unpinned = blocks_of(pinned_tokens_ + free_tokens) - blocks_of(pinned_tokens_);
    found_seq_ = seq;
    return found_;
  }

  void acquire(cache_holder& h) override {
    if (found_ == 0) return;
    const std::int32_t end = walk(found_seq_, found_, true, [](std::int32_t, std::int64_t) {});
    lock(end);
    h.node = end;
    h.tokens = found_;
  }

  void commit(cache_holder& h, token_span seq, std::int64_t tokens) override {
    tokens = tokens / page_ * page_;
    if (tokens <= h.tokens) return;
    const std::int32_t end = insert(seq, tokens);
    lock(end);
    if (h.node >= 0) unlock(h.node);
    h.node = end;
    h.tokens = tokens;
  }

  void release(cache_holder& h) override {
    if (h.node >= 0) unlock(h.node);
    h.node = -1;
    h.tokens = 0;
  }

  void evict(std::int64_t blocks) override {
    const std::int64_t target = cached_tokens_ - blocks * page_;
    while (cached_tokens_ > target && !leaves_.empty()) {
      const std::int32_t n = leaves_.begin()->second;
      leaves_.erase(leaves_.begin());
      node& x = nodes_[static_cast<std::size_t>(n)];
      x.in_leaves = false;
      node& p = nodes_[static_cast<std::size_t>(x.parent)];
      p.children.erase(std::find(p.children.begin(), p.children.end(), n));
      const std::int64_t before = blocks_of(cached_tokens_);
      cached_tokens_ -= x.len;
      x.len = 0;
      x.children.clear();
      free_.push_back(n);
      if (x.parent != 0 && p.children.empty() && p.lock == 0) add_leaf(x.parent);
      cached_ = blocks_of(cached_tokens_);
      evicted_ += before - cached_;
    }
  }

 private:
  struct node {
    std::uint64_t id = 0;
    std::int64_t off = 0, len = 0;  // tokens off .. off + len of content id
    std::int32_t parent = -1;
    std::int32_t lock = 0;  // running requests whose path goes through this node
    std::uint64_t access = 0;
    bool in_leaves = false;
    std::vector<std::int32_t> children;
  };

  [[nodiscard]] std::int64_t blocks_of(std::int64_t tokens) const { return (tokens + page_ - 1) / page_; }

  std::int32_t child(std::int32_t n, std::uint64_t id, std::int64_t off) const {
    for (const std::int32_t c : nodes_[static_cast<std::size_t>(n)].children) {
      const node& x = nodes_[static_cast<std::size_t>(c)];
      if (x.id == id && x.off == off) return c;
    }
    return -1;
  }

  // Walks seq's first `limit` tokens down the tree; visit(node, tokens matched in it). With
  // `split` (acquire, insert), a partly matched node is split at the match and the nodes
  // visited are touched. Returns the last node reached (0: the root).
  template <class F>
  std::int32_t walk(token_span seq, std::int64_t limit, bool split, F&& visit) {
    std::int32_t cur = 0;
    std::int64_t pos = 0;
    cursor c;
    while (pos < limit && c.seg < seq.size) {
      const token_segment& s = seq.data[c.seg];
      std::int32_t n = child(cur, s.id, c.off);
      if (n < 0) break;
      const std::int64_t common = std::min({nodes_[static_cast<std::size_t>(n)].len, s.length - c.off, limit - pos});
      if (common < nodes_[static_cast<std::size_t>(n)].len) {
        if (!split) {
          visit(n, common);
          pos += common;
          break;
        }
        n = split_node(n, common);
      }
      if (split) touch(n);
      visit(n, common);
      pos += common;
      advance(c, s, common);
      cur = n;
    }
    last_pos_ = pos;
    last_cursor_ = c;
    return cur;
  }

  // Splits n after its first k tokens: a new node of those k tokens takes n's place.
  std::int32_t split_node(std::int32_t n, std::int64_t k) {
    const std::int32_t m = new_node();
    node& x = nodes_[static_cast<std::size_t>(n)];
    node& y = nodes_[static_cast<std::size_t>(m)];
    y.id = x.id;
    y.off = x.off;
    y.len = k;
    y.parent = x.parent;
    y.lock = x.lock;
    y.access = x.access;
    y.children.assign(1, n);
    x.off += k;
    x.len -= k;
    node& p = nodes_[static_cast<std::size_t>(y.parent)];
    *std::find(p.children.begin(), p.children.end(), n) = m;
    x.parent = m;
    return m;
  }

  // Inserts seq's first `tokens` tokens; returns the node that ends them.
  std::int32_t insert(token_span seq, std::int64_t tokens) {
    std::int32_t cur = walk(seq, tokens, true, [](std::int32_t, std::int64_t) {});
    std::int64_t pos = last_pos_;
    cursor c = last_cursor_;
    while (pos < tokens && c.seg < seq.size) {
      const token_segment& s = seq.data[c.seg];
      const std::int64_t take = std::min(s.length - c.off, tokens - pos);
      const std::int32_t n = new_node();
      node& x = nodes_[static_cast<std::size_t>(n)];
      x.id = s.id;
      x.off = c.off;
      x.len = take;
      x.parent = cur;
      x.access = ++tick_;
      remove_leaf(cur);
      nodes_[static_cast<std::size_t>(cur)].children.push_back(n);
      cached_tokens_ += take;
      add_leaf(n);
      pos += take;
      advance(c, s, take);
      cur = n;
    }
    cached_ = blocks_of(cached_tokens_);
    return cur;
  }

  std::int32_t new_node() {
    if (!free_.empty()) {
      const std::int32_t n = free_.back();
      free_.pop_back();
      nodes_[static_cast<std::size_t>(n)] = node{};
      return n;
    }
    nodes_.emplace_back();
    return static_cast<std::int32_t>(nodes_.size() - 1);
  }
  void touch(std::int32_t n) {
    remove_leaf(n);
    nodes_[static_cast<std::size_t>(n)].access = ++tick_;
    const node& x = nodes_[static_cast<std::size_t>(n)];
    if (x.lock == 0 && x.children.empty()) add_leaf(n);
  }
  void add_leaf(std::int32_t n) {
    node& x = nodes_[static_cast<std::size_t>(n)];
    if (n == 0 || x.in_leaves || x.lock > 0 || !x.children.empty()) return;
    leaves_.emplace(x.access, n);
    x.in_leaves = true;
  }
  void remove_leaf(std::int32_t n) {
    node& x = nodes_[static_cast<std::size_t>(n)];
    if (!x.in_leaves) return;
    leaves_.erase({x.access, n});
    x.in_leaves = false;
  }
  void lock(std::int32_t n) {
    for (; n > 0; n = nodes_[static_cast<std::size_t>(n)].parent) {
      node& x = nodes_[static_cast<std::size_t>(n)];
      if (x.lock++ == 0) {
        pinned_tokens_ += x.len;
        remove_leaf(n);
      }
    }
    pinned_ = blocks_of(pinned_tokens_);
  }
  void unlock(std::int32_t n) {
    for (; n > 0; n = nodes_[static_cast<std::size_t>(n)].parent) {
      node& x = nodes_[static_cast<std::size_t>(n)];
      if (--x.lock == 0) {
        pinned_tokens_ -= x.len;
        add_leaf(n);
      }
    }
    pinned_ = blocks_of(pinned_tokens_);
  }

  std::int64_t page_;
  std::vector<node> nodes_;
  std::vector<std::int32_t> free_;
  std::set<std::pair<std::uint64_t, std::int32_t>> leaves_;  // unlocked leaves by last access
  std::int64_t cached_tokens_ = 0, pinned_tokens_ = 0;
  std::uint64_t tick_ = 0;
  std::int64_t found_ = 0;
  token_span found_seq_;
  std::int64_t last_pos_ = 0;
  cursor last_cursor_;
};

}  // namespace

std::unique_ptr<prefix_cache> make_prefix_cache(prefix_cache_mode mode, std::int64_t page) {
  if (mode == prefix_cache_mode::radix) return std::make_unique<radix_cache>(page);
  return std::make_unique<block_cache>(page);
}

}  // namespace flopcast::detail
