#!/usr/bin/env bash
# Installs what kvlint needs on Debian 12 (only what is missing, quietly),
# then configures and builds everything into build/. Safe to run again.
#   build/bin/kvlint            the CLI
#   build/lib/libkvlint-tidy.so the clang-tidy-19 plugin
#   build/lib/libkvref_*.so     the kvref reference kernels
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp -t kvlint-setup.XXXXXX)
trap 'rm -f "$log"' EXIT
fail() { echo "setup: $1 failed; its output:" >&2; cat "$log" >&2; exit 1; }

pkgs=(clang-19 libclang-19-dev clang-tidy-19 llvm-19-dev llvm-19-tools lld-19
      cmake make g++ libgtest-dev python3 libamdhip64-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# tree-sitter comes from the npm registry (npm pack) at configure time.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq >"$log" 2>&1 || fail "apt-get update"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >>"$log" 2>&1 || fail "apt-get install"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1 || fail "cmake configure"
cmake --build build -j"$jobs" >"$log" 2>&1 || fail "build"
echo "setup: built build/bin/kvlint and build/lib/libkvlint-tidy.so" >&2
