#!/usr/bin/env bash
# ctest 'install': `cmake --install` into a temporary prefix, move the prefix
# somewhere else, and check that what is there works alone:
#   - bin/kvlint scans examples/ with the same stdout, stderr and exit status
#     as build/bin/kvlint, in text, json and sarif (the preludes are compiled in);
#   - its run path names no build directory;
#   - lib/libkvlint-tidy.so loads in clang-tidy-19 with the installed prelude;
#   - kvref's headers, libraries, CMake package (a consumer project builds and
#     runs against it) and Python package are there.
# usage: check-install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
work=$(mktemp -d -t kvlint-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/first" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }
mv "$work/first" "$work/prefix" # nothing may depend on where it was installed
p="$work/prefix"

for f in bin/kvlint lib/libkvlint-tidy.so share/kvlint/prelude/cuda.h share/kvlint/prelude/hip.h \
         share/kvlint/prelude/common.h include/kvref/kvref.h lib/libkvref_cpu.so \
         lib/cmake/kvref/kvrefConfig.cmake lib/cmake/kvref/kvrefConfigVersion.cmake \
         share/kvref/python/kvref_torch/__init__.py; do
  [ -e "$p/$f" ] || fail "$f not installed"
done
for lib in libkvref_cuda.so libkvref_hip.so; do
  if [ -e "$build/lib/$lib" ] && [ ! -e "$p/lib/$lib" ]; then fail "$lib built but not installed"; fi
done
if readelf -d "$p/bin/kvlint" | grep -E 'R(UN)?PATH' | grep -q "$build"; then
  fail "installed kvlint's run path names the build directory"
fi

# The installed kvlint runs from a clean environment, outside the source tree
# (relative paths: run both binaries on the same relative input).
cd "$src"
for fmt in text json sarif; do
  set +e
  "$build/bin/kvlint" --format=$fmt examples/ >"$work/want.out" 2>"$work/want.err"; want=$?
  env -i PATH=/usr/bin:/bin HOME="$work" "$p/bin/kvlint" --format=$fmt examples/ \
    >"$work/got.out" 2>"$work/got.err"; got=$?
  set -e
  [ "$want" = "$got" ] || fail "exit status $got, build tree's kvlint gave $want ($fmt)"
  [ -s "$work/want.out" ] || fail "build/bin/kvlint printed nothing on examples/ ($fmt)"
  cmp -s "$work/want.out" "$work/got.out" || { diff "$work/want.out" "$work/got.out" | head >&2; fail "stdout differs ($fmt)"; }
  cmp -s "$work/want.err" "$work/got.err" || { diff "$work/want.err" "$work/got.err" | head >&2; fail "stderr differs ($fmt)"; }
done

if command -v clang-tidy-19 >/dev/null 2>&1; then
  out=$(clang-tidy-19 --load="$p/lib/libkvlint-tidy.so" -checks='-*,kvlint-*' --quiet \
          examples/cuda/mla_store.cu -- -x cuda --cuda-device-only -nocudainc -nocudalib \
          --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version \
          -include "$p/share/kvlint/prelude/cuda.h" 2>&1 || true)
  echo "$out" | grep -q 'warning: .*\[kvlint-narrowed-index-overflow\]' ||
    { echo "$out" >&2; fail "the installed plugin reported nothing on examples/cuda/mla_store.cu"; }
fi

cmake -DSOURCE="$src/kernels/examples/consumer" -DBINARY="$work/consumer" \
      -DKVREF_DIR="$p/lib/cmake/kvref" -DGENERATOR="Unix Makefiles" \
      -P "$src/kernels/cmake/consumer_test.cmake" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "find_package(kvref) from the prefix failed"; }
echo "install test: ok ($p)"
