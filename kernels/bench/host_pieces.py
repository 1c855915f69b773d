"""Where the host time of an eager torch.ops.kvref.kv_store call goes (prints figures, asserts
nothing).

    python3 kernels/bench/host_pieces.py [--rounds 5]

Builds a second extension (kernels/bench/host_pieces.cpp, .cu, and kvref's C API again) next to
kvref_torch, then times in one process, round after round, µs per call:
  - torch.ops.kvref.kv_store (1 token, bf16 NHD 8 x 128), and with 0 tokens (no launch);
  - the same schema with an empty body (PyTorch's own dispatch cost for this op);
  - kv_store's body with a CUDAGuard (as it was until round 10), for comparison;
  - from C++ in the same process: kv_store's body, the C API alone, an empty kernel's launch;
  - x.add_(1), a native op, for scale.
Python rows: best of 5 x 2,000 calls; C++ rows: best of 5 x 5,000.  Host figures drift with the
host, even within one process: compare rows of the same round.  KVREF_TORCH_BUILD_DIR and
KVREF_PIECES_BUILD_DIR set the build directories.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(KERNELS, "python"))
sys.path.insert(0, HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 0
    import kvref_torch
    from torch.utils import cpp_extension

    kvref_torch.load()
    build = os.environ.get("KVREF_PIECES_BUILD_DIR")
    if build:
        os.makedirs(build, exist_ok=True)
    cpp_extension.load(
        name="kvref_host_pieces",
        sources=[os.path.join(HERE, "host_pieces.cpp"), os.path.join(HERE, "host_pieces.cu"),
                 os.path.join(KERNELS, "src", "kvref_launch.cu"), os.path.join(KERNELS, "src", "validate.cpp")],
        extra_include_paths=[os.path.join(KERNELS, "include"), os.path.join(KERNELS, "src"),
                             os.path.join(KERNELS, "python", "kvref_torch", "csrc")],
        extra_cflags=["-O2", "-std=c++17"],
        extra_cuda_cflags=["-O3", "-std=c++17", kvref_torch._gencode()],
        build_directory=build,
        is_python_module=False,
    )
    from peer_bench import time_host

    key = torch.randn(1, 8, 128, dtype=torch.bfloat16, device="cuda")
    value = torch.randn_like(key)
    kc = torch.zeros(64, 16, 8, 128, dtype=torch.bfloat16, device="cuda")
    vc = torch.zeros_like(kc)
    slots = torch.arange(1, device="cuda")
    k0 = key[:0]
    x = torch.zeros(16, device="cuda")
    op = torch.ops.kvref.kv_store
    pieces = torch.ops.kvref_pieces
    python_rows = [
        ("torch.ops.kvref.kv_store, 1 token", lambda: op(key, value, kc, vc, slots, "NHD")),
        ("torch.ops.kvref.kv_store, 0 tokens (no launch)", lambda: op(k0, k0, kc, vc, slots, "NHD")),
        ("the same schema, empty body", lambda: pieces.noop(key, value, kc, vc, slots, "NHD")),
        ("kv_store's body with a CUDAGuard (until round 10)", lambda: pieces.guarded(key, value, kc, vc, slots, "NHD")),
        ("x.add_(1), a native op", lambda: x.add_(1)),
    ]
    cxx_rows = [
        ("C++: kv_store's body (device, stream, args, C API)", lambda: pieces.body_loop(key, value, kc, vc, slots, 5000)),
        ("C++: kvref_kv_store", lambda: pieces.capi_loop(key, value, kc, vc, slots, 5000)),
        ("C++: empty kernel, cudaLaunchKernelEx + PDL", lambda: pieces.launch_loop(5000, True)),
        ("C++: empty kernel, cudaLaunchKernelEx", lambda: pieces.launch_loop(5000, False)),
    ]
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    for r in range(args.rounds):
        print(f"-- round {r}", flush=True)
        for name, fn in python_rows:
            print(f"  {name:52s} {time_host(fn, 2000):6.2f} us/call", flush=True)
        for name, fn in cxx_rows:
            best = min(fn() for _ in range(5))
            torch.cuda.synchronize()
            print(f"  {name:52s} {best:6.2f} us/call", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
