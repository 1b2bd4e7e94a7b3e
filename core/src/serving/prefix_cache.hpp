#pragma once
// The serving simulator's prefix caches (private to the serving room).
//  - block (vLLM's automatic prefix caching, TensorRT-LLM's KV block reuse): a full block of
//    block_size tokens is identified by a hash chained over the blocks before it (so two blocks
//    match only when every token up to their end matches); a request's full blocks are cached
//    as they fill; free cached blocks are evicted least recently freed first (a request's last
//    block before its first, as vLLM frees them in reverse).
//  - radix (SGLang's RadixAttention): a radix tree over token contents, matched token by token
//    (whole pages when the page is larger than a token); the prompt is inserted after each
//    prefill chunk, the whole sequence when the request leaves; the least recently used
//    unlocked leaf is evicted first.
// Both pin what running requests use (pinned blocks cannot be evicted) and count their blocks;
// the simulator counts the requests' other (private) blocks. Tokens are segments of contents
// (workload.hpp), so hashing and matching cost per block or per segment, never per token.
#include <cstdint>
#include <memory>
#include <vector>

#include "flopcast/serving/simulator.hpp"
#include "flopcast/serving/workload.hpp"

namespace flopcast::detail {

// A request's part of the cache: what it pins.
struct cache_holder {
  std::vector<std::int32_t> blocks;  // block: the pinned entries, block i of the sequence at i
  std::uint64_t last_hash = 0;       // block: the chain hash of the last pinned block
  std::int32_t node = -1;            // radix: the locked node (-1: none)
  std::int64_t tokens = 0;           // tokens pinned, whole pages
};

// A request's tokens: segments of contents, in order.
struct token_span {
  const token_segment* data = nullptr;
  std::size_t size = 0;
};

class prefix_cache {
 public:
  virtual ~prefix_cache() = default;
  // The longest cached prefix of `seq` in whole pages, at most `limit` tokens; `unpinned_blocks`:
  // how many of its blocks no request pins (pinning them takes them from the free blocks).
  virtual std::int64_t lookup(token_span seq, std::int64_t limit, std::int64_t& unpinned_blocks) = 0;
  // Pins for `h` (which pins nothing) the prefix the last lookup() found.
  virtual void acquire(cache_holder& h) = 0;
  // `h`'s first `tokens` tokens are computed: caches the whole pages among them beyond h.tokens
  // and pins them for h (a page another request cached meanwhile is shared).
  virtual void commit(cache_holder& h, token_span seq, std::int64_t tokens) = 0;
  // Unpins everything h pins.
  virtual void release(cache_holder& h) = 0;
  // Frees at least `blocks` cached blocks that nobody pins, least recently used first (fewer if
  // there are not that many).
  virtual void evict(std::int64_t blocks) = 0;
  [[nodiscard]] std::int64_t cached_blocks() const noexcept { return cached_; }
  [[nodiscard]] std::int64_t pinned_blocks() const noexcept { return pinned_; }
  [[nodiscard]] std::int64_t evicted_blocks() const noexcept { return evicted_; }

 protected:
  std::int64_t cached_ = 0, pinned_ = 0, evicted_ = 0;
};

// `page`: the block size in tokens. mode is block or radix.
[[nodiscard]] std::unique_ptr<prefix_cache> make_prefix_cache(prefix_cache_mode mode, std::int64_t page);

}  // namespace flopcast::detail
