#!/usr/bin/env bash
# The whole Catch2 suite (flopcast_tests) under AddressSanitizer and UndefinedBehaviorSanitizer,
# built by scripts/build-san.sh in build-san/ (clang, -O1, assertions on; the fuzzers share its
# core library). Every test case runs once, the cases split into FLOPCAST_JOBS (default 2) shards
# that run side by side. Any test failure or sanitizer report fails. (Each case in a process of its
# own, and all of them in one, is what the native suite checks: npm run test:native.)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${FLOPCAST_JOBS:-2}"
bash scripts/build-san.sh flopcast_tests
# halt_on_error and abort make a report a failing test; leaks are reported too.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
dir=build-san/sanitize
rm -rf "$dir" && mkdir -p "$dir"
# The cases by name, dealt round-robin into the shards: Catch2's --input-file takes one test spec
# per line, where a backslash escapes the characters specs give meaning to (, [ ] * ~ " \). The
# count of cases run is checked below, so a name that did not come back whole would fail.
# (--list-test-names-only exits with the number of cases.)
build-san/flopcast_tests --list-test-names-only >"$dir/names" || true
sed '/^$/d; s/[][\\,*~"]/\\&/g' "$dir/names" >"$dir/all"
total=$(wc -l <"$dir/all")
awk -v n="$jobs" -v d="$dir" '{ print > (d "/shard" (NR - 1) % n) }' "$dir/all"
shards=("$dir"/shard*)
pids=()
for s in "${shards[@]}"; do
  build-san/flopcast_tests -f "$s" --order decl >"$s.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
ran=0
for s in "${shards[@]}"; do
  tail -n 2 "$s.log" | sed '/^$/d;s/^/  /'
  # "All tests passed (A assertions in N test cases)" or "test cases: N | P passed | F failed"
  n=$(grep -oE 'in [0-9]+ test case|test cases: +[0-9]+' "$s.log" | tail -n 1 | grep -oE '[0-9]+' || echo 0)
  ran=$((ran + n))
done
if [ "$ran" -ne "$total" ]; then
  echo "sanitize: $ran of $total test cases ran"
  status=1
fi
# A report under a test that still exited 0 (should not happen with abort_on_error) fails too.
if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$dir"/shard*.log; then
  echo "sanitize: sanitizer report (see $dir/shard*.log):"
  grep -h -m 5 -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$dir"/shard*.log
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize: FAILED (logs: $dir/shard*.log)"
  exit 1
fi
echo "sanitize: all $total test cases pass under ASan+UBSan"
