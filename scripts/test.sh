#!/usr/bin/env bash
# Sets up everything, then runs lint and the whole test suite (unit, real-nginx end-to-end, API-double integration).
# `bash scripts/test.sh unit` runs the unit tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# Lint: the layer order and no cross-folder cycle (dependency-cruiser), no unused file or export (knip), ESLint,
# prettier, and luacheck on the Lua data plane (OpenResty's globals, .luacheckrc). Any finding fails the run.
npm run --silent lint
case "${1:-all}" in
  unit) files=$(find dist/test/unit -name '*.test.js' | sort) ;;
  *) files=$(find dist/test -name '*.test.js' | sort) ;;
esac
# One test file at a time: the end-to-end files each run real nginx, and the machine has 2 cores.
exec node --test --test-concurrency=1 --test-timeout=300000 $files
