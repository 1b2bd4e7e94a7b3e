#!/usr/bin/env bash
# The one clang build with AddressSanitizer and UndefinedBehaviorSanitizer, in build-san/: the
# Catch2 suite (scripts/sanitize.sh) and the libFuzzer targets (scripts/fuzz.sh) link the same
# instrumented core library, compiled once (-O1, assertions on: no NDEBUG, so the result
# writer's finiteness check runs; the core also carries libFuzzer's coverage instrumentation,
# -fsanitize=fuzzer-no-link, which the test binary ignores).
#
#   bash scripts/build-san.sh TARGET...     configure build-san/ if needed, build the targets
#
# CC/CXX default to clang/clang++ (libFuzzer is clang's). Extra cmake args: $FLOPCAST_SANITIZE_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# shellcheck disable=SC2086
CC="${CC:-clang}" CXX="${CXX:-clang++}" cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DFLOPCAST_BUILD_BENCH=OFF -DFLOPCAST_BUILD_TESTS=ON \
  -DFLOPCAST_FUZZ=ON "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" ${FLOPCAST_SANITIZE_CMAKE_ARGS:-} >/dev/null
cmake --build build-san --target "$@" -j "${FLOPCAST_JOBS:-2}" | tail -n 1
