#!/usr/bin/env bash
# hip_nvidia_check.sh - run kvref's HIP code on an NVIDIA GPU, through HIP's NVIDIA platform.
#
#   kernels/tools/hip_nvidia_check.sh build [DIR]   # on a Debian 12 machine, no GPU needed
#   kernels/tools/hip_nvidia_check.sh run [DIR]     # on a machine with an NVIDIA GPU (sm_90)
#
# No AMD GPU is at hand, so the HIP library's device code has no AMD hardware to run on.  HIP's
# NVIDIA platform compiles the same source as HIP (kvref/portable.cuh: KVREF_HIP and
# KVREF_HIP_NVIDIA) with nvcc: the HIP host API (hipGetLastError, hipStream_t, launches without
# programmatic dependent launch) and the HIP device paths (portable loads and stores, the
# software fp8 conversion, scatter_copy_kernel for every record store: no bulk path).  What it
# cannot run is what only AMD has: the amdgcn index builtins, wave64, the gfx90a/gfx942 code
# (test/isa/ checks that code at the ISA in CI).
#
# Build: Debian's HIP 5.2 NVIDIA headers (libamdhip64-dev, /usr/include/hip/nvidia_detail) do
# not compile with CUDA 13, but do with the CUDA 11.8 toolkit Debian ships in non-free
# (`apt-get install nvidia-cuda-toolkit`, /usr/bin/nvcc) and clang-14 as the host compiler
# (nvcc 11.8 takes no newer clang; Debian 12 has no g++ here).  `-U__SIZEOF_INT128__` keeps
# libstdc++ 12's <random> out of nvcc 11.8's front end, which rejects its `__extension__ using`.
# The runtime is linked statically: the binaries run under any newer driver (the H200's 580).
#
# Run: kvref_gpu_tests (every section, including the 2^31 / 2^32 stores), the same under
# compute-sanitizer memcheck when it is on the PATH, and the example.  Exit status non-zero
# when any of them fails.
set -u
MODE=${1:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
K=$ROOT/kernels
DIR=${2:-/tmp/kvref_hip_nvidia}

case "$MODE" in
  build)
    NVCC=${KVREF_NVCC_HIP:-/usr/bin/nvcc}
    HOSTCXX=${KVREF_HIP_HOST_CXX:-clang++-14}
    if ! "$NVCC" --version 2>/dev/null | grep -q "release 11\."; then
      echo "hip_nvidia_check: needs CUDA 11.x's nvcc at $NVCC (Debian 12: non-free nvidia-cuda-toolkit);" \
           "HIP 5.2's NVIDIA headers do not compile with newer CUDA" >&2
      exit 2
    fi
    if [ ! -f /usr/include/hip/nvidia_detail/nvidia_hip_runtime.h ]; then
      echo "hip_nvidia_check: HIP's NVIDIA headers not found (Debian: libamdhip64-dev)" >&2
      exit 2
    fi
    mkdir -p "$DIR"
    FLAGS="-ccbin $HOSTCXX -O3 -std=c++17 -U__SIZEOF_INT128__ -D__HIP_PLATFORM_NVIDIA__ -I$K/include -I$K/src"
    FLAGS="$FLAGS -gencode=arch=compute_90,code=[sm_90,compute_90] -cudart static"
    LIB="$K/src/kvref_launch.cu $K/src/validate.cpp"
    set -e
    "$NVCC" $FLAGS "$K/test/gpu_test.cu" $LIB "$K/src/cpu_ref.cpp" -o "$DIR/kvref_gpu_tests_hip"
    "$NVCC" $FLAGS "$K/examples/cuda_example.cu" $LIB -o "$DIR/kvref_example_hip"
    "$NVCC" --version | tail -1 > "$DIR/BUILT_WITH"
    echo "built $DIR/kvref_gpu_tests_hip and $DIR/kvref_example_hip ($(cat "$DIR/BUILT_WITH"))"
    ;;
  run)
    status=0
    "$DIR/kvref_gpu_tests_hip"
    rc=$?
    echo "== kvref_gpu_tests_hip: rc $rc"
    [ "$rc" -eq 0 ] || status=1
    SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    if [ -x "$SANITIZER" ]; then
      "$SANITIZER" --tool memcheck --error-exitcode 3 --print-limit 20 "$DIR/kvref_gpu_tests_hip" --memcheck \
        > "$DIR/memcheck.log" 2>&1
      rc=$?
      tail -3 "$DIR/memcheck.log"
      echo "== memcheck: rc $rc, $(grep -E 'ERROR SUMMARY' "$DIR/memcheck.log" | tail -1)"
      [ "$rc" -eq 0 ] || status=1
    else
      echo "== memcheck: compute-sanitizer not found, skipped"
    fi
    "$DIR/kvref_example_hip"
    rc=$?
    echo "== example: rc $rc"
    [ "$rc" -eq 0 ] || status=1
    exit $status
    ;;
  *)
    echo "usage: $0 build|run [DIR]" >&2
    exit 2
    ;;
esac
