#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, clang, ASan+UBSan) in build-san/ (scripts/build-san.sh:
# the same instrumented core the sanitizer suite links), replays the regression inputs
# (tests/fuzz/regressions/<target>/*, once each), then fuzzes every target for SECONDS (default
# 60) on a working copy of its seed corpus (build-san/corpus/<target>, seeded from
# tests/fuzz/corpus/<target>; the committed corpus is never written). FLOPCAST_JOBS targets
# (default 2, the cores of the machine npm test is sized for) are fuzzed side by side, each for
# the full SECONDS.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# Environment:
#   FLOPCAST_FUZZ_SKIP_REGRESSIONS=1  skip the replay (and the deep-nesting stage), e.g. while
#                                     known bugs are open
#   FLOPCAST_FUZZ_TARGETS="fuzz_config fuzz_request"  only these targets
#   FLOPCAST_FUZZ_JOBS=N              N parallel fuzzing jobs per target (libFuzzer -fork=N)
#   FLOPCAST_FUZZ_ARGS="..."          extra libFuzzer flags for the fuzzing runs
#   FLOPCAST_FUZZ_FRESH=1             start from the committed seeds (drop build-san/corpus)
#   FLOPCAST_JOBS=N                   targets fuzzed at once (default 2)
# Exits non-zero on any failing regression or crash; the crash file stays in
# build-san/crashes/<target>/ and is printed (truncated).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build=build-san
targets=(${FLOPCAST_FUZZ_TARGETS:-fuzz_config fuzz_request fuzz_calibration fuzz_hardware fuzz_safetensors fuzz_gguf fuzz_profile fuzz_serving})
common=(-timeout=10 -rss_limit_mb=2048)

bash scripts/build-san.sh flopcast_fuzz || exit 1
for t in "${targets[@]}"; do
  [ -x "$build/fuzz/$t" ] || { echo "fuzz: no target $build/fuzz/$t"; exit 1; }
done

failed=0
# The line that says what went wrong in a libFuzzer/sanitizer log.
reason() {
  grep -m 1 -E "runtime error:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|fuzz: |terminate called|what\(\):|Assertion|ALARM" "$1" ||
    tail -n 1 "$1"
}
show() {  # a file's content, truncated
  printf '    %s\n' "$(head -c 300 "$1" | tr -c '[:print:]\n' '?' | head -n 5)"
  [ "$(wc -c <"$1")" -gt 300 ] && echo "    ... ($(wc -c <"$1") bytes)"
}

# ---- 1. Regressions: each committed input once ----------------------------------------
replay() {  # target file...: run each once, report each failure
  local t=$1 f log
  shift
  for f in "$@"; do
    log="$build/logs/$t.replay.log"
    if timeout 120 "$build/fuzz/$t" "${common[@]}" "$f" >"$log" 2>&1; then
      echo "  ok    $t $f"
    else
      echo "  FAIL  $t $f"
      echo "    $(reason "$log")"
      failed=1
    fi
  done
}
mkdir -p "$build/logs"
if [ "${FLOPCAST_FUZZ_SKIP_REGRESSIONS:-0}" = 1 ]; then
  echo "fuzz: regressions skipped (FLOPCAST_FUZZ_SKIP_REGRESSIONS=1)"
else
  echo "fuzz: replaying tests/fuzz/regressions"
  for t in "${targets[@]}"; do
    files=(tests/fuzz/regressions/"$t"/*)
    [ -e "${files[0]}" ] && replay "$t" "${files[@]}"
  done
  # Deep nesting beyond -max_len (generated, not committed): 200k levels of arrays and objects,
  # at the top and as a field's value.
  deep="$build/deep"
  rm -rf "$deep" && mkdir -p "$deep"
  node -e '
    const fs = require("fs"), d = process.argv[1], n = 200000;
    const arr = "[".repeat(n) + "]".repeat(n), obj = "{\"a\":".repeat(n) + "1" + "}".repeat(n);
    fs.writeFileSync(d + "/array", arr);
    fs.writeFileSync(d + "/object", obj);
    fs.writeFileSync(d + "/value", "{\"model_type\":\"llama\",\"num_hidden_layers\":" + arr + "}");
    fs.writeFileSync(d + "/request", "0{\"model\":\"gpt2\",\"gpu\":" + obj + "}");' "$deep"
  echo "fuzz: deep nesting (200k levels)"
  for t in "${targets[@]}"; do replay "$t" "$deep"/*; done
fi

# ---- 2. Fuzzing ---------------------------------------------------------------------
[ "${FLOPCAST_FUZZ_FRESH:-0}" = 1 ] && rm -rf "$build/corpus"
echo "fuzz: ${seconds}s per target, ${FLOPCAST_JOBS:-2} at a time"
# One target's run; its summary line goes to $build/logs/<target>.result, its status to .rc.
fuzz_one() {
  local t=$1 corpus="$build/corpus/$1" crashes="$build/crashes/$1" log="$build/logs/$1.log" rc execs stats cov ft corp result
  mkdir -p "$corpus" "$crashes"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null
  local fork=()
  [ -n "${FLOPCAST_FUZZ_JOBS:-}" ] && fork=(-fork="$FLOPCAST_FUZZ_JOBS")
  # shellcheck disable=SC2086
  "$build/fuzz/$t" "$corpus" "${common[@]}" -max_len=65536 -max_total_time="$seconds" -print_final_stats=1 \
    -dict=tests/fuzz/json.dict -artifact_prefix="$crashes/" "${fork[@]}" ${FLOPCAST_FUZZ_ARGS:-} >"$log" 2>&1
  rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
  [ -z "$execs" ] && execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
  stats=$(grep -E '(DONE|INITED|NEW|REDUCE|pulse).*cov: ' "$log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$stats" | grep -oE '[0-9]+')
  ft=$(grep -oE 'ft: [0-9]+' <<<"$stats" | grep -oE '[0-9]+')
  corp=$(grep -oE 'corp: [0-9]+' <<<"$stats" | grep -oE '[0-9]+')
  result=ok
  [ "$rc" -ne 0 ] && result="FAILED (rc $rc, log $log)"
  {
    printf '%-18s %12s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
    if [ "$rc" -ne 0 ]; then
      echo "    $(reason "$log")"
      for f in $(grep -oE 'Test unit written to [^ ]+' "$log" | awk '{print $5}'); do
        echo "    input: $f"
        show "$f"
      done
    fi
  } >"$build/logs/$t.result"
  echo "$rc" >"$build/logs/$t.rc"
}
running=0
for t in "${targets[@]}"; do
  rm -f "$build/logs/$t.result" "$build/logs/$t.rc"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "${FLOPCAST_JOBS:-2}" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
printf '%-18s %12s %8s %8s %8s  %s\n' target executions cov ft corpus result
for t in "${targets[@]}"; do
  cat "$build/logs/$t.result" 2>/dev/null || echo "$t: no result"
  [ "$(cat "$build/logs/$t.rc" 2>/dev/null)" = 0 ] || failed=1
done

if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED"
  exit 1
fi
echo "fuzz: no crashes"
