#!/usr/bin/env bash
# Builds kvlint's libFuzzer targets in build-fuzz/ (clang-19 with
# -fsanitize=fuzzer,address,undefined; a build of its own, never build/) and
# runs each for a bounded time. Exit status 1 on any crash, leak, hang
# (an input taking > 10 s), out-of-memory or UBSan report; the input that did
# it is left in build-fuzz/artifacts/ (turn it into a lit regression test).
#
#   tools/fuzz.sh                 every target for 60 s each
#   FUZZ_SECONDS=300 tools/fuzz.sh config
#
# Targets: triton (lowerTritonSource and the rules), clang (lowerClangFile on
# small CUDA snippets, and the rules), driver (runDriver in-process on a small
# tree of files and configs the input names), config (.clang-tidy/.kvlint.yaml
# reader), baseline (baseline and unified-diff readers), cache (the cache's
# pack, summary and result readers). Seeds: the committed
# tools/fuzz/corpus/<target>/, test/triton for the Triton frontend, and the
# hostile shapes tools/fuzz/seeds.py writes (deep nesting, long chains, long
# names, odd encodings, option-like file names). Dictionaries: tools/fuzz/*.dict.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(triton clang driver config baseline cache)

# libFuzzer and the sanitizer runtimes ship in libclang-rt-19-dev.
if ! dpkg-query -W -f='${Status}' libclang-rt-19-dev 2>/dev/null | grep -q "ok installed"; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "fuzz: installing libclang-rt-19-dev" >&2
  $sudo apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    libclang-rt-19-dev >/dev/null
fi

out=build-fuzz
# Reuse the tree-sitter sources build/ already fetched (no second npm pack).
for d in tree-sitter tree-sitter-python; do
  if [ -d "build/_deps/$d" ] && [ ! -d "$out/_deps/$d" ]; then
    mkdir -p "$out/_deps" && cp -r "build/_deps/$d" "$out/_deps/$d"
  fi
done
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link -fno-omit-frame-pointer -O1 -g"
# The only C code is tree-sitter's runtime and grammar (third party), which
# calls its external scanner through a 'void *(*)(void)' pointer by design:
# UBSan's function-type check is off for C, every other check stays on.
csan="$san -fno-sanitize=function"
log=$(mktemp -t kvlint-fuzz.XXXXXX)
trap 'rm -f "$log"' EXIT
if ! cmake -S . -B "$out" -DKVLINT_FUZZ=ON -DKVLINT_BUILD_KVREF=OFF -DCMAKE_BUILD_TYPE=Debug \
       -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
       -DCMAKE_C_FLAGS="$csan" -DCMAKE_CXX_FLAGS="$san" >"$log" 2>&1; then
  cat "$log" >&2; echo "fuzz: configure failed" >&2; exit 1
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "kvlint-fuzz-$t"); done
if ! cmake --build "$out" -j"$(nproc 2>/dev/null || echo 2)" "${build_targets[@]}" >"$log" 2>&1; then
  cat "$log" >&2; echo "fuzz: build failed" >&2; exit 1
fi

status=0
mkdir -p "$out/artifacts"
python3 tools/fuzz/seeds.py "$out/seeds"
for t in "${targets[@]}"; do
  corpus="$out/corpus/$t"
  mkdir -p "$corpus"
  seeds=("tools/fuzz/corpus/$t")
  [ -d "$out/seeds/$t" ] && seeds+=("$out/seeds/$t")
  extra=()
  # -max_len: what the frontends must survive is depth and shape, not size,
  # and a parse per input keeps clang and the driver at tens of ms each.
  case $t in
    triton) seeds+=(test/triton); extra+=(-dict=tools/fuzz/python.dict -max_len=8192) ;;
    clang) extra+=(-dict=tools/fuzz/cuda.dict -max_len=4096) ;;
    driver) extra+=(-dict=tools/fuzz/driver.dict -max_len=4096) ;;
    config) extra+=(-dict=tools/fuzz/yaml.dict) ;;
  esac
  echo "fuzz: $t for ${secs}s" >&2
  # -timeout: one input taking longer is a hang; leaks are reported at exit.
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "$out/bin/kvlint-fuzz-$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" "${extra[@]}" \
       "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $t ok, $runs executions, corpus $(ls "$corpus" | wc -l) inputs" >&2
  else
    tail -60 "$log" >&2
    echo "fuzz: $t FAILED; the input is in $out/artifacts/" >&2
    status=1
  fi
done
exit $status
