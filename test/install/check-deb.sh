#!/usr/bin/env bash
# ctest 'deb': the Debian package CI ships. `cpack -G DEB` builds it from the
# build directory; then
#   - dpkg-deb -I: package kvlint, the project's version, and dependencies on
#     Debian's LLVM 19 libraries (libllvm19, libclang-cpp19) and clang's builtin headers (libclang-common-19-dev), not a source tree;
#   - dpkg-deb -c: kvlint, the clang-tidy plugin, the preludes, the docs (rule
#     pages too) and the man page, and nothing of kvref;
#   - extracted into a scratch root, its kvlint gives output byte-identical to
#     build/bin/kvlint on examples/ (text, json, sarif, github), and its
#     --version is the build's.
# usage: check-deb.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
work=$(mktemp -d -t kvlint-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "deb test: $*" >&2; exit 1; }
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null ||
  { echo "deb test: cpack or dpkg-deb missing: skipped"; exit 0; }

# The man page is an ALL target; a build of a few targets may lack it.
cmake --build "$build" --target kvlint-man >"$work/man.log" 2>&1 ||
  { cat "$work/man.log" >&2; fail "cannot build the man page"; }
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out") >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/out/kvlint_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$work/cpack.log" >&2; fail "no kvlint_*.deb written"; }
version=$("$build/bin/kvlint" --version | awk '{print $2}')

info=$(dpkg-deb -I "$deb")
grep -qx ' Package: kvlint' <<<"$info" || fail "package name: $info"
grep -qx " Version: $version" <<<"$info" || fail "version is not $version: $info"
depends=$(grep '^ Depends:' <<<"$info") || fail "no Depends"
for d in libllvm19 libclang-cpp19 libclang-common-19-dev; do
  grep -qw "$d" <<<"$depends" || fail "Depends lacks $d: $depends"
done

# The description is one paragraph, no ';'-joined list (CMake's list glue).
if dpkg-deb -f "$deb" Description | grep -q '^ *;'; then fail "description has ';' lines"; fi

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/kvlint ./usr/lib/libkvlint-tidy.so ./usr/share/kvlint/prelude/cuda.h \
         ./usr/share/kvlint/prelude/hip.h ./usr/share/kvlint/prelude/common.h \
         ./usr/share/doc/kvlint/README.md ./usr/share/doc/kvlint/cli.md \
         ./usr/share/doc/kvlint/ci.md ./usr/share/doc/kvlint/rules/KV001.md \
         ./usr/share/man/man1/kvlint.1; do
  grep -qx -- "$f" <<<"$contents" || fail "$f not in the package"
done
if grep -q kvref <<<"$contents"; then fail "kvref is in the package"; fi

dpkg-deb -x "$deb" "$work/root"
kv="$work/root/usr/bin/kvlint"
[ "$("$kv" --version)" = "$("$build/bin/kvlint" --version)" ] || fail "--version differs"
cd "$src"
for fmt in text json sarif github; do
  set +e
  "$build/bin/kvlint" --format=$fmt examples/ >"$work/want.out" 2>"$work/want.err"; want=$?
  env -i PATH=/usr/bin:/bin "$kv" --format=$fmt examples/ >"$work/got.out" 2>"$work/got.err"; got=$?
  set -e
  [ "$want" = "$got" ] || fail "--format=$fmt: exit $got, build/bin/kvlint $want"
  cmp -s "$work/want.out" "$work/got.out" || { diff "$work/want.out" "$work/got.out" | head >&2; fail "--format=$fmt: stdout differs"; }
  cmp -s "$work/want.err" "$work/got.err" || { diff "$work/want.err" "$work/got.err" | head >&2; fail "--format=$fmt: stderr differs"; }
done
echo "deb test: $(basename "$deb") ok ($(wc -c <"$deb") bytes; $depends)"
