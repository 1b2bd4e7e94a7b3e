#!/usr/bin/env bash
# Formatting checks (CI runs them through npm test): C++ against .clang-format, JS/CSS/HTML
# against .prettierrc.json. Fix with: npm run format
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -co --exclude-standard '*.cpp' '*.hpp' | xargs -r clang-format --dry-run -Werror
npx prettier --check --log-level warn .
# The rules of the house: which room may include which (ARCHITECTURE.md).
node scripts/check-rooms.mjs
echo "lint: formatting ok"
