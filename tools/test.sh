#!/usr/bin/env bash
# Builds everything (tools/setup.sh) and runs every test: GoogleTest unit
# tests, the lit suite (CLI and clang-tidy plugin legs; GPU legs run only
# where a GPU is), and kvref's CPU tests. Exit status 0 when all pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc 2>/dev/null || echo 2)"
