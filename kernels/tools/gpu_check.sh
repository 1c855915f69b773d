#!/usr/bin/env bash
# gpu_check.sh - build and run kvref's GPU legs on a machine with an NVIDIA GPU (H200 here).
#
#   kernels/tools/gpu_check.sh            # from the repository root
#
# Builds with nvcc alone (no CMake, no LLVM needed): libkvref_cuda.so, libkvref_cpu.so,
# kvref_gpu_tests, kvref_bench; then runs the GPU tests, the GPU tests again under
# compute-sanitizer memcheck, the benchmark, and - where python3 has torch - the PyTorch
# extension's test, the PyTorch baseline benchmark and the eager call's host time piece by
# piece (kernels/bench/host_pieces.py).  Logs go to $OUT (default
# /tmp/kvref_gpu_check).  Exit status: non-zero when a test or memcheck failed.
#
# Peers (optional; their source is read at run time, never part of this repository):
#   KVREF_PEER_VLLM=<vLLM checkout>              kernels/bench/peer_bench.py: vLLM's Triton K/V
#                                                store and V2 slot mapping against kvref
#   KVREF_PEER_FLASHINFER=<FlashInfer checkout>  kernels/bench/flashinfer_peer.cu, compiled here
#                                                against its include/: AppendPagedKVCache vs kvref
# kvref_bench runs twice: as the library launches by default, then with KVREF_PDL=0 (no
# programmatic dependent launch; bench_no_pdl.log; KVREF_BENCH_NO_PDL=0 skips that run).
# KVREF_BENCH_ARGS is passed to kvref_bench (e.g. --explore).  KVREF_SKIP_TESTS=1 skips the
# GPU tests and memcheck, KVREF_SKIP_MEMCHECK=1 memcheck alone (benchmark-only reruns).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
K=$ROOT/kernels
OUT=${OUT:-/tmp/kvref_gpu_check}
B=${KVREF_GPU_BUILD:-/tmp/kvref_gpu_build}
mkdir -p "$OUT" "$B"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ARCH="-gencode=arch=compute_90,code=[sm_90,compute_90]"
FLAGS="-O3 -std=c++17 -I$K/include -I$K/src"
status=0
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/summary.txt"
"$NVCC" --version | tail -1 | tee -a "$OUT/summary.txt"

# Torch extension in the background (it is the slowest build).
if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  (export KVREF_TORCH_BUILD_DIR=$B/torch_ext MAX_JOBS=8
   cd "$K/python" && python3 -c "import kvref_torch; kvref_torch.load(verbose=False); print('torch extension built')") \
     > "$OUT/torch_build.log" 2>&1 &
  TORCH_PID=$!
else
  TORCH_PID=
fi

t0=$(date +%s)
"$NVCC" $FLAGS $ARCH -Xcompiler -fPIC -shared "$K/src/kvref_launch.cu" "$K/src/validate.cpp" \
  -o "$B/libkvref_cuda.so" > "$OUT/build.log" 2>&1 &
p1=$!
g++ -O2 -std=c++17 -I"$K/include" -fPIC -shared "$K/src/cpu_ref.cpp" "$K/src/validate.cpp" \
  -o "$B/libkvref_cpu.so" >> "$OUT/build.log" 2>&1 &
p2=$!
wait $p1 || status=1
wait $p2 || status=1
"$NVCC" $FLAGS $ARCH "$K/test/gpu_test.cu" -L"$B" -lkvref_cuda -lkvref_cpu -Xlinker -rpath,"$B" \
  -o "$B/kvref_gpu_tests" >> "$OUT/build.log" 2>&1 &
p1=$!
"$NVCC" $FLAGS $ARCH "$K/bench/kvref_bench.cu" -L"$B" -lkvref_cuda -Xlinker -rpath,"$B" \
  -o "$B/kvref_bench" >> "$OUT/build.log" 2>&1 &
p2=$!
"$NVCC" $FLAGS $ARCH "$K/examples/cuda_example.cu" -L"$B" -lkvref_cuda -Xlinker -rpath,"$B" \
  -o "$B/kvref_cuda_example" >> "$OUT/build.log" 2>&1 &
p3=$!
p4=
if [ -n "${KVREF_PEER_FLASHINFER:-}" ]; then
  "$NVCC" $FLAGS $ARCH -I"$KVREF_PEER_FLASHINFER/include" "$K/bench/flashinfer_peer.cu" -L"$B" \
    -lkvref_cuda -Xlinker -rpath,"$B" -o "$B/flashinfer_peer" > "$OUT/flashinfer_build.log" 2>&1 &
  p4=$!
fi
wait $p1 || status=1
wait $p2 || status=1
wait $p3 || status=1
fi_ok=0
if [ -n "$p4" ]; then
  if wait $p4; then fi_ok=1; else log "flashinfer_peer: build failed (see flashinfer_build.log)"; tail -20 "$OUT/flashinfer_build.log"; fi
fi
log "build: $(( $(date +%s) - t0 )) s, status $status"
"$B/kvref_cuda_example" > "$OUT/example.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || status=1
log "cuda_example: rc $rc, $(cat "$OUT/example.log")"
if [ $status -ne 0 ]; then cat "$OUT/build.log"; exit 1; fi

if [ "${KVREF_SKIP_TESTS:-0}" = 1 ]; then log "GPU tests and memcheck skipped (KVREF_SKIP_TESTS=1)"; else
t0=$(date +%s)
timeout "${KVREF_TEST_TIMEOUT:-150}" "$B/kvref_gpu_tests" 2>&1 | tee "$OUT/gpu_tests.log"
rc=${PIPESTATUS[0]}
log "kvref_gpu_tests: rc $rc, $(( $(date +%s) - t0 )) s; $(tail -1 "$OUT/gpu_tests.log")"
[ "$rc" -eq 0 ] || status=1

if [ "${KVREF_SKIP_MEMCHECK:-0}" = 1 ]; then log "memcheck skipped (KVREF_SKIP_MEMCHECK=1)"; else
t0=$(date +%s)
timeout "${KVREF_MEMCHECK_TIMEOUT:-240}" "$SANITIZER" --tool memcheck --error-exitcode 3 --print-limit 20 "$B/kvref_gpu_tests" --memcheck \
  > "$OUT/memcheck.log" 2>&1
rc=$?
tail -25 "$OUT/memcheck.log"
log "memcheck: rc $rc, $(( $(date +%s) - t0 )) s; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
[ "$rc" -eq 0 ] || status=1
fi
fi

t0=$(date +%s)
timeout "${KVREF_BENCH_TIMEOUT:-120}" "$B/kvref_bench" ${KVREF_BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log"
log "kvref_bench: $(( $(date +%s) - t0 )) s"
# The same figures without programmatic dependent launch (docs/kvref/README.md), for comparison.
if [ "${KVREF_PDL:-1}" != 0 ] && [ "${KVREF_BENCH_NO_PDL:-1}" = 1 ]; then
  t0=$(date +%s)
  KVREF_PDL=0 timeout "${KVREF_BENCH_TIMEOUT:-120}" "$B/kvref_bench" ${KVREF_BENCH_ARGS:-} > "$OUT/bench_no_pdl.log" 2>&1
  log "kvref_bench with KVREF_PDL=0: $(( $(date +%s) - t0 )) s (bench_no_pdl.log)"
fi

if [ -n "$TORCH_PID" ]; then
  t0=$(date +%s)
  wait "$TORCH_PID"
  rc=$?
  tail -5 "$OUT/torch_build.log"
  log "torch extension build: rc $rc (waited $(( $(date +%s) - t0 )) s)"
  if [ $rc -eq 0 ]; then
    export KVREF_TORCH_BUILD_DIR=$B/torch_ext
    timeout 120 python3 "$K/python/test_kvref_torch.py" 2>&1 | tee "$OUT/torch_test.log"
    rc=${PIPESTATUS[0]}
    log "test_kvref_torch: rc $rc; $(tail -1 "$OUT/torch_test.log")"
    [ "$rc" -eq 0 ] || status=1
    timeout 120 python3 "$K/bench/torch_bench.py" 2>&1 | tee "$OUT/torch_bench.log"
    # The eager call's host time piece by piece (builds a benchmark-only extension).
    t0=$(date +%s)
    KVREF_PIECES_BUILD_DIR=$B/pieces_ext timeout "${KVREF_PIECES_TIMEOUT:-300}" python3 "$K/bench/host_pieces.py" \
      --rounds 3 > "$OUT/host_pieces.log" 2>&1
    rc=$?
    grep -v -i warning "$OUT/host_pieces.log" | tail -31
    log "host_pieces: rc $rc, $(( $(date +%s) - t0 )) s"
    if [ -n "${KVREF_PEER_VLLM:-}" ]; then
      t0=$(date +%s)
      timeout "${KVREF_PEER_TIMEOUT:-300}" python3 "$K/bench/peer_bench.py" --vllm "$KVREF_PEER_VLLM" \
        ${KVREF_PEER_ARGS:-} 2>&1 | tee "$OUT/peer_bench.log"
      log "peer_bench (vLLM): rc ${PIPESTATUS[0]}, $(( $(date +%s) - t0 )) s"
    fi
  else
    status=1
  fi
fi
if [ "$fi_ok" = 1 ]; then
  t0=$(date +%s)
  timeout 120 "$B/flashinfer_peer" 2>&1 | tee "$OUT/flashinfer_peer.log"
  log "flashinfer_peer: rc ${PIPESTATUS[0]}, $(( $(date +%s) - t0 )) s"
fi
log "gpu_check: status $status"
exit $status
