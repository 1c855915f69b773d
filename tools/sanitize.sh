#!/usr/bin/env bash
# Builds kvlint and its unit tests with AddressSanitizer + UndefinedBehavior-
# Sanitizer (clang-19) into build-asan/ (never build/) and runs the unit tests
# and the lit suite's kvlint legs with them. Any report fails the run. The
# clang-tidy legs are not run here: the plugin is loaded by an uninstrumented
# clang-tidy-19.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-asan

if ! dpkg-query -W -f='${Status}' libclang-rt-19-dev 2>/dev/null | grep -q "ok installed"; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "sanitize: installing libclang-rt-19-dev" >&2
  $sudo apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    libclang-rt-19-dev >/dev/null
fi
for d in tree-sitter tree-sitter-python; do
  if [ -d "build/_deps/$d" ] && [ ! -d "$out/_deps/$d" ]; then
    mkdir -p "$out/_deps" && cp -r "build/_deps/$d" "$out/_deps/$d"
  fi
done
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1 -g"
# tree-sitter (the only C code, third party) calls its scanner through a
# 'void *(*)(void)' pointer by design: no function-type check for C.
csan="$san -fno-sanitize=function"
log=$(mktemp -t kvlint-sanitize.XXXXXX)
trap 'rm -f "$log"' EXIT
run() { "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "sanitize: '$*' failed" >&2; exit 1; }; }
run cmake -S . -B "$out" -DKVLINT_BUILD_KVREF=OFF -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_C_FLAGS="$csan" -DCMAKE_CXX_FLAGS="$san"
run cmake --build "$out" -j"$(nproc 2>/dev/null || echo 2)" --target kvlint kvlint-unittests

# Reports go to files as well as ending the process: a lit RUN line that
# expects kvlint to fail ('not %kvlint') would otherwise hide one.
logs="$PWD/$out/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:abort_on_error=1:log_path=$logs/ubsan"
status=0
"$out/bin/kvlint-unittests" --gtest_brief=1 >"$log" 2>&1 || { cat "$log" >&2; status=1; }
lit=/usr/lib/llvm-19/build/utils/lit/lit.py
python3 "$lit" -q --param build_dir="$PWD/$out" --param llvm_bin=/usr/lib/llvm-19/bin test \
  >"$log" 2>&1 || { cat "$log" >&2; status=1; }
if [ -n "$(ls -A "$logs")" ]; then
  for f in "$logs"/*; do echo "== $f" >&2; head -40 "$f" >&2; done
  status=1
fi
[ $status -eq 0 ] && echo "sanitize: unit and lit suites clean under ASan+UBSan" >&2
exit $status
