#!/usr/bin/env bash
# The whole Catch2 suite (flopcast_tests) under AddressSanitizer and UndefinedBehaviorSanitizer,
# in build-asan/ (-O1 -g with assertions on: no NDEBUG, so the result writer's finiteness check
# runs; no benchmarks). Any test failure or sanitizer report fails.
# CC/CXX pick the compiler (default: the system's, gcc or clang). Extra cmake args: $FLOPCAST_SANITIZE_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${FLOPCAST_JOBS:-2}"
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# gcc 12 with the sanitizers warns falsely (-Wmaybe-uninitialized) inside <regex>, which Catch2 uses.
if "${CXX:-c++}" --version 2>/dev/null | grep -qi "free software foundation"; then
  flags="$flags -Wno-maybe-uninitialized"
fi
# shellcheck disable=SC2086
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" -DFLOPCAST_BUILD_BENCH=OFF \
  -DFLOPCAST_BUILD_TESTS=ON "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" \
  ${FLOPCAST_SANITIZE_CMAKE_ARGS:-} >/dev/null
cmake --build build-asan --target flopcast_tests -j "$jobs"
# halt_on_error and abort make a report a failing test; leaks are reported too.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
log="build-asan/sanitize.log"
status=0
# engine_fits_reproduce (the engine fit, a minute natively) runs in the native suite only.
ctest --test-dir build-asan --output-on-failure -j "$jobs" -E engine_fits_reproduce >"$log" 2>&1 || status=$?
tail -n 5 "$log"
# A report under a test that still exited 0 (should not happen with abort_on_error) fails too.
if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$log"; then
  echo "sanitize: sanitizer report (see $log):"
  grep -m 5 -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$log"
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize: FAILED (log: $log)"
  exit 1
fi
echo "sanitize: all tests pass under ASan+UBSan"
