#!/usr/bin/env bash
# Writes every document of a fixed set of requests over the bundled models into OUTDIR, one file a
# request, so that two builds can be compared byte for byte (`diff -r`): a refactor that must not
# change behaviour is checked by running this with the CLI built before and after it.
#   scripts/golden-docs.sh BUILD/flopcast OUTDIR
# The set: list-models/gpus/engines; every bundled model's estimate (JSON, CSV and text) on the
# default GPU and on H100 with a batch, its training analysis and its serving capacity; compare;
# a serving simulation, a plan and a report for one model of every family; the validation table;
# the provider catalog; checkpoint headers and graph profiles of the test fixtures.
set -uo pipefail
bin=$(realpath "$1")
out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cd "$out"
# No stored calibration, no Hub: the documents depend on the build alone.
export HOME=$(mktemp -d)
# The report's HTML is the page's runtime around the core's report document: a runtime holding only
# the placeholder makes the report file that document alone.
printf '<!--flopcast-report-data-->' > "$HOME/report-runtime.html"
export FLOPCAST_REPORT_RUNTIME=$HOME/report-runtime.html
unset FLOPCAST_CALIBRATION_FILE
run() { # NAME ARGS...: stdout and exit code of one command
  local name=$1
  shift
  "$bin" "$@" > "$out/$name" 2> "$out/$name.err"
  echo "exit $?" >> "$out/$name.err"
}

run list-models.json list-models --json
run list-gpus.json list-gpus --json
run list-engines.json list-engines --json
run providers.json providers --json
run validate.json validate --json
run validate.txt validate

models=$("$bin" list-models --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).map(m=>m.id).join("\n")))')
i=0
for m in $models; do
  n=$(echo "$m" | tr '/:' '__')
  run "estimate-$n.json" estimate "$m" --json
  run "estimate-h100-$n.json" estimate "$m" -g H100 -b 8 -s 4096 -n 256 --json
  run "estimate-$n.txt" estimate "$m" -g H100
  run "estimate-$n.csv" estimate "$m" --csv
  if [ $((i % 3)) -eq 0 ]; then
    run "train-$n.json" train "$m" -g H100 --json
    run "throughput-$n.json" throughput "$m" -g H100 --json
  fi
  if [ $((i % 8)) -eq 0 ]; then
    run "serve-$n.json" serve "$m" -g H100 --engine vllm --concurrency 1,16 --num-requests 64 --json
    run "plan-$n.json" plan "$m" -g H100 --json
    run "report-$n.html" report "$m" -g H100 -o "report-$n.html.file"
  fi
  i=$((i + 1))
done
# llama.cpp presets over the converter's architectures, and bad values the request table refuses.
for m in llama-3.1-8b qwen3-30b-a3b gemma-3-4b-it phi-3-mini falcon-7b; do
  for p in q4_k_m q3_k_s iq2_xs q8_0 q6_k; do run "preset-$m-$p.json" estimate "$m" -p "$p" -g H100 --json; done
done
i=0
for args in "-b 0" "-b -1" "-b 1.5" "-s 1e20" "--tp 3" "-p fp7" "-g nonesuch" "--compute-efficiency 0" "--mem-efficiency 2" \
  "--kv-precision q4_k_m" "--ep 3" "--interconnect -1" "--gpu-memory-utilization 0"; do
  # shellcheck disable=SC2086
  run "bad-estimate-$i.txt" estimate llama-3-8b $args
  i=$((i + 1))
done
run bad-serve-concurrency.txt serve llama-3-8b --concurrency 0
run bad-serve-isl.txt serve llama-3-8b --concurrency 4 --isl-range 9:3
run bad-train-tokens.txt train llama-3-8b --tokens 15Q
run bad-train-lora.txt train llama-3-8b --lora-rank -4
run compare.csv compare llama-3-8b mixtral-8x7b deepseek-v3 -g H100,A100 -b 1,8 --csv
run compare.json compare llama-3-8b qwen3-next -g H100 -p bf16,fp8 --json

# Checkpoint headers and graph profiles from the test fixtures, where they can be made here.
fix=$(mktemp -d)
if node --input-type=module -e "
  import { writeFileSync } from 'node:fs';
  import { tinyLlamaGguf, tinyLlamaSafetensors } from '$root/tests/fixtures/checkpoint_files.mjs';
  writeFileSync('$fix/tiny.gguf', tinyLlamaGguf().file());
  writeFileSync('$fix/tiny.safetensors', tinyLlamaSafetensors());
" 2> /dev/null; then
  run inspect-gguf.json inspect "$fix/tiny.gguf" --json
  run inspect-safetensors.json inspect "$fix/tiny.safetensors" --json
fi
if /usr/bin/python3 "$root/tests/fixtures/onnx/make_fixtures.py" "$fix" > /dev/null 2>&1; then
  for f in "$fix"/*.onnx; do
    b=$(basename "$f" .onnx)
    run "profile-$b.json" profile "$f" --json
    run "profile-dims-$b.json" profile "$f" --dim batch=2,seq=16 --json
  done
fi
rm -rf "$fix" "$HOME"
echo "golden-docs: $(ls "$out" | wc -l) files in $out"
