// Whole-process wall time of commands, for `npm run bench` (tests/bench/bench_all.mjs): each
// command is started with posix_spawn, its stdout drained through a pipe (as a shell pipeline
// would), and waited for; the commands take turns run by run so that load on the machine falls
// on all alike. Prints one JSON object: per command its median, minimum and 90th percentile
// wall time in seconds and the bytes it wrote.
//   flopcast_bench_process RUNS CMD [ARGS...] [:: CMD [ARGS...]]...
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct outcome {
  double seconds = 0;
  std::size_t bytes = 0;
  int status = 0;
};

outcome run_once(const std::vector<std::string>& cmd) {
  std::vector<char*> argv;
  for (const auto& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) std::exit(3);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  outcome o;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "cannot start %s\n", argv[0]);
    std::exit(3);
  }
  ::close(fds[1]);
  char buf[1 << 16];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;)
    if (n > 0) o.bytes += static_cast<std::size_t>(n);
  ::waitpid(pid, &o.status, 0);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fds[0]);
  posix_spawn_file_actions_destroy(&actions);
  return o;
}

double at(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RUNS CMD [ARGS...] [:: CMD [ARGS...]]...\n", argv[0]);
    return 2;
  }
  const int runs = std::atoi(argv[1]);
  std::vector<std::vector<std::string>> cmds(1);
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "::")
      cmds.emplace_back();
    else
      cmds.back().push_back(argv[i]);
  }
  std::vector<std::vector<double>> times(cmds.size());
  std::vector<std::size_t> bytes(cmds.size());
  for (std::size_t c = 0; c < cmds.size(); ++c) (void)run_once(cmds[c]);  // warm the page cache
  for (int r = 0; r < runs; ++r)
    for (std::size_t c = 0; c < cmds.size(); ++c) {
      const outcome o = run_once(cmds[c]);
      if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0) {
        std::fprintf(stderr, "%s failed (status %d)\n", cmds[c][0].c_str(), o.status);
        return 1;
      }
      times[c].push_back(o.seconds);
      bytes[c] = o.bytes;
    }
  std::printf("{\"runs\": %d, \"commands\": [", runs);
  for (std::size_t c = 0; c < cmds.size(); ++c) {
    std::string line;
    for (const auto& a : cmds[c]) line += (line.empty() ? "" : " ") + a;
    std::printf("%s\n  {\"command\": \"%s\", \"median_s\": %.9g, \"min_s\": %.9g, \"p90_s\": %.9g, \"bytes\": %zu}",
                c ? "," : "", line.c_str(), at(times[c], 0.5), at(times[c], 0.0), at(times[c], 0.9), bytes[c]);
  }
  std::printf("]}\n");
  return 0;
}
