#!/usr/bin/env bash
# Installs what flopcast needs on Debian 12, only what is missing. Safe to run repeatedly.
set -euo pipefail

packages=(g++ clang libclang-rt-14-dev cmake ninja-build pkg-config clang-format nlohmann-json3-dev catch2 libcli11-dev libfmt-dev libcurl4-openssl-dev libbenchmark-dev libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx
          emscripten chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages (pinned by package-lock.json), when the lock lists any.
if [ -f package-lock.json ] && grep -q '"node_modules/' package-lock.json && [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi
