"""kvref against the kernels engines run today (GPU machine; prints figures, asserts nothing).

    python3 kernels/bench/peer_bench.py --vllm /path/to/vllm-checkout [--flashinfer-bin PATH]
                                        [--quick]

Peers are read at run time from a checkout of their public source; nothing of theirs is part
of this repository:

* vLLM's Triton K/V store, `triton_reshape_and_cache_flash` (the launcher engines call) and its
  kernel `reshape_and_cache_kernel_flash`, from
  `vllm/v1/attention/ops/triton_reshape_and_cache_flash.py`.  The module is executed on its
  own: its `vllm.*` imports are answered by small stubs (the platform is CUDA, fp8 is
  float8_e4m3fn), so no vLLM install is needed - only Triton.
* vLLM's V2 Triton slot mapping, `_compute_slot_mappings_kernel` in
  `vllm/v1/worker/gpu/block_table.py` (several KV-cache groups in one launch), with `_load_ptr`
  from `buffer_utils.py`.  Upstream the kernel reads the block table at an unbounded column and
  multiplies an int32 block id by the block size in 32 bits (kvlint KV002 and KV001); the
  benchmark times the *fixed* kernel: at load time it masks the load with `col < width` and pads
  those tokens with PAD_ID, and widens the block id to int64 before the multiply (the fixes
  kvlint proposes).  If the source no longer matches, that peer is skipped with a message.
* FlashInfer's `AppendPagedKVCache` (C++), timed by `flashinfer_peer.cu` - see that file.

Every comparison first runs both kernels on zeroed caches and compares them byte for byte.
Times: "eager" is the mean per call over back-to-back calls from Python (CUDA events; at small
sizes this is host time per call); "graph" is the mean per call when G calls are captured in one
CUDA graph and the graph is replayed (how engines run decode).  Best of 5.
"""
import argparse
import ast
import enum
import importlib.util
import linecache
import os
import sys
import time
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import kvref_torch  # noqa: E402

FP8 = torch.float8_e4m3fn


# ---------------------------------------------------------------- loading the peers' source --
class _Platform:
    """Stands in for vllm.platforms.current_platform: a CUDA device."""

    def is_rocm(self):
        return False

    def is_xpu(self):
        return False

    def fp8_dtype(self):
        return FP8

    def has_device_capability(self, cap):
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor >= cap


def _stub_modules():
    def mod(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        return m

    class KVQuantMode(enum.IntEnum):
        NONE = 0
        FP8_PER_TENSOR = 1
        INT8_PER_TOKEN_HEAD = 2
        FP8_PER_TOKEN_HEAD = 3
        INT4_PER_TOKEN_HEAD = 4

    def is_quantized_kv_cache(s):
        return s.startswith("fp8") or s.endswith("per_token_head") or s.startswith("nvfp4")

    return {
        "vllm.model_executor.layers.quantization.utils.quant_utils":
            mod("quant_utils", FP8_DTYPE=FP8, get_fp8_min_max=lambda: (-448.0, 448.0)),
        "vllm.platforms": mod("platforms", current_platform=_Platform()),
        "vllm.triton_utils": mod("triton_utils", tl=tl, triton=triton),
        "vllm.utils.torch_utils": mod("torch_utils", is_quantized_kv_cache=is_quantized_kv_cache),
        "vllm.v1.kv_cache_interface": mod("kv_cache_interface", KVQuantMode=KVQuantMode),
    }


def load_vllm_store(root):
    """vLLM's triton_reshape_and_cache_flash, its module executed with stub vllm imports."""
    path = os.path.join(root, "vllm", "v1", "attention", "ops", "triton_reshape_and_cache_flash.py")
    stubs = _stub_modules()
    saved = {k: sys.modules.get(k) for k in stubs}
    sys.modules.update(stubs)
    try:
        spec = importlib.util.spec_from_file_location("peer_vllm_triton_store", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return m.triton_reshape_and_cache_flash, path


def _function_source(path, name):
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            lines = src.splitlines(True)[start - 1:node.end_lineno]
            return "".join(lines)
    raise LookupError(f"{name} not found in {path}")


def _exec_jit(src, filename, namespace):
    # triton.jit reads its function's source through inspect/linecache: register it.
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), namespace)


# The fixes applied to vLLM's V2 slot-mapping kernel at load time (see the module docstring).
_SLOT_LOAD_BUGGY = """        block_numbers = tl.load(
            block_table_ptr + req_state_idx * block_table_stride + block_indices
        )
"""
_SLOT_LOAD_FIXED = """        in_row = block_indices < block_table_width
        block_numbers = tl.load(
            block_table_ptr + req_state_idx * block_table_stride + block_indices,
            mask=(offset < end_idx) & in_row,
            other=0,
        ).to(tl.int64)
"""
_SLOT_STORE = """        tl.store(slot_mapping_ptr + offset, slot_ids, mask=offset < end_idx)
"""
_SLOT_STORE_FIXED = """        slot_ids = tl.where(in_row, slot_ids, PAD_ID)
        tl.store(slot_mapping_ptr + offset, slot_ids, mask=offset < end_idx)
"""


def load_vllm_slot_mapping(root):
    """vLLM V2's _compute_slot_mappings_kernel with the width guard and the int64 widening."""
    bt_path = os.path.join(root, "vllm", "v1", "worker", "gpu", "block_table.py")
    bu_path = os.path.join(root, "vllm", "v1", "worker", "gpu", "buffer_utils.py")
    ns = {"triton": triton, "tl": tl, "__name__": "peer_vllm_block_table"}
    _exec_jit(_function_source(bu_path, "_load_ptr"), "<peer>/buffer_utils._load_ptr", ns)
    src = _function_source(bt_path, "_compute_slot_mappings_kernel")
    if src.count(_SLOT_LOAD_BUGGY) != 1 or src.count(_SLOT_STORE) != 1:
        raise LookupError("block_table.py changed: the fix cannot be applied")
    src = src.replace(_SLOT_LOAD_BUGGY, _SLOT_LOAD_FIXED).replace(_SLOT_STORE, _SLOT_STORE_FIXED)
    # The row width comes in as a new argument, right after the table strides.
    src = src.replace("    block_table_strides,  # [num_kv_cache_groups]\n",
                      "    block_table_strides,  # [num_kv_cache_groups]\n"
                      "    block_table_widths,  # [num_kv_cache_groups] (fix)\n", 1)
    src = src.replace("    block_table_stride = tl.load(block_table_strides + group_id)\n",
                      "    block_table_stride = tl.load(block_table_strides + group_id)\n"
                      "    block_table_width = tl.load(block_table_widths + group_id)\n", 1)
    if "block_table_width = tl.load" not in src or "block_table_widths,  #" not in src:
        raise LookupError("block_table.py changed: the fix cannot be applied")
    _exec_jit(src, "<peer>/block_table._compute_slot_mappings_kernel(fixed)", ns)
    return ns["_compute_slot_mappings_kernel"], bt_path


# ------------------------------------------------------------------------------- timing --
def time_eager(fn, iters):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) / iters)
    return best * 1e3  # us


def time_host(fn, iters):
    """Host time per call (perf_counter around the loop, then one synchronisation)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        best = min(best, (t1 - t0) / iters)
    return best * 1e6  # us


def time_graph(fn, per_graph, replays):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(per_graph):
            fn()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(replays):
            g.replay()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) / (replays * per_graph))
    del g
    return best * 1e3  # us


def copy_bandwidth():
    n = 2 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    us = time_eager(lambda: dst.copy_(src), 10)
    del src, dst
    return 2 * n / (us * 1e-6) / 1e9


def fmt(us):
    return f"{us:8.2f}" if us is not None else "       -"


# ------------------------------------------------------------------------------ K/V store --
def bench_store(vllm_store, T, cache_dtype, copy_gbs, H=8, D=128, bs=16, quick=False):
    torch.manual_seed(T)
    nb = max((T + bs - 1) // bs * 2, 4096)
    key = torch.randn(T, H, D, dtype=torch.bfloat16, device="cuda")
    value = torch.randn_like(key)
    # Pages from a shuffled free list, consecutive tokens filling a page (as kvref_bench).
    pages = torch.randperm(nb, device="cuda")
    t = torch.arange(T, device="cuda")
    slots = pages[t // bs] * bs + t % bs
    fp8 = cache_dtype == "fp8"
    cdt = FP8 if fp8 else torch.bfloat16
    caches = [torch.zeros(nb, bs, H, D, dtype=cdt, device="cuda") for _ in range(4)]
    # Per-tensor scales as calibration gives them (not powers of two).
    k_scale = torch.tensor([0.37], dtype=torch.float32, device="cuda")
    v_scale = torch.tensor([1.3], dtype=torch.float32, device="cuda")
    kv_dtype = "fp8" if fp8 else "auto"

    def kvref_fn(kc=caches[0], vc=caches[1]):
        if fp8:
            torch.ops.kvref.kv_store(key, value, kc, vc, slots, "NHD", k_scale, v_scale)
        else:
            torch.ops.kvref.kv_store(key, value, kc, vc, slots, "NHD")

    def vllm_fn(kc=caches[2], vc=caches[3]):
        vllm_store(key, value, kc, vc, slots, kv_dtype, k_scale, v_scale)

    kvref_fn()
    vllm_fn()
    torch.cuda.synchronize()
    ndiff = sum(int((a.view(torch.uint8) != b.view(torch.uint8)).sum())
                for a, b in ((caches[0], caches[2]), (caches[1], caches[3])))
    same = ndiff == 0
    iters = 20 if T >= 8192 else 200
    ke = time_eager(kvref_fn, iters)
    ve = time_eager(vllm_fn, iters)
    per_graph = 20 if T <= 4096 else 5
    kg = time_graph(kvref_fn, per_graph, 10)
    vg = time_graph(vllm_fn, per_graph, 10)
    nbytes = 2 * key.numel() * (2 + (1 if fp8 else 2)) + T * 8
    pct = ""
    if T >= 16384:
        best_k = ke if kg is None else min(ke, kg)
        best_v = ve if vg is None else min(ve, vg)
        pct = (f"  kvref {100 * nbytes / (best_k * 1e-6) / 1e9 / copy_gbs:5.1f}% of copy,"
               f" vLLM {100 * nbytes / (best_v * 1e-6) / 1e9 / copy_gbs:5.1f}%")
    name = "bf16->fp8" if fp8 else "bf16     "
    print(f"store {name} NHD H{H} D{D} bs{bs} tokens {T:6d} | eager kvref {fmt(ke)} us  vLLM {fmt(ve)} us"
          f" | graph kvref {fmt(kg)} us  vLLM {fmt(vg)} us | caches {'identical' if same else f'DIFFER ({ndiff} bytes)'}{pct}",
          flush=True)
    return ke, ve, kg, vg, same


def bench_host_cost(T=1, H=8, D=128, bs=16):
    """Host microseconds per call of the op, and what they are made of."""
    key = torch.randn(T, H, D, dtype=torch.bfloat16, device="cuda")
    value = torch.randn_like(key)
    kc = torch.zeros(64, bs, H, D, dtype=torch.bfloat16, device="cuda")
    vc = torch.zeros_like(kc)
    slots = torch.arange(T, device="cuda")
    k0 = key[:0]
    x = torch.zeros(16, device="cuda")
    kc8 = torch.zeros(64, bs, H, D, dtype=FP8, device="cuda")
    vc8 = torch.zeros_like(kc8)
    k_scale = torch.tensor([0.37], dtype=torch.float32, device="cuda")
    v_scale = torch.tensor([1.3], dtype=torch.float32, device="cuda")
    op = torch.ops.kvref.kv_store
    rows = [
        (f"torch.ops.kvref.kv_store ({T} token{'s' if T > 1 else ''})", False,
         lambda: op(key, value, kc, vc, slots, "NHD")),
        ("torch.ops.kvref.kv_store, bf16 -> fp8", False,
         lambda: op(key, value, kc8, vc8, slots, "NHD", k_scale, v_scale)),
        ("torch.ops.kvref.kv_store.default", False, lambda: op.default(key, value, kc, vc, slots, "NHD")),
        ("torch.ops.kvref.kv_store, 0 tokens (no launch)", False, lambda: op(k0, k0, kc, vc, slots, "NHD")),
        ("torch.ops.kvref.kv_store in inference_mode", True, lambda: op(key, value, kc, vc, slots, "NHD")),
        ("x.add_(1) (a native op, for scale)", False, lambda: x.add_(1)),
    ]
    for name, inference, fn in rows:
        if inference:
            with torch.inference_mode():
                us = time_host(fn, 2000)
        else:
            us = time_host(fn, 2000)
        print(f"host cost: {name:48s} {us:6.2f} us/call", flush=True)


# --------------------------------------------------------------------------- slot mapping --
def bench_slot_mapping(vllm_slots, reqs, per_req, groups):
    """groups: list of (block_size, width).  1,024 rows; positions up to 32,767."""
    torch.manual_seed(reqs * 7 + per_req)
    rows = 1024
    T = reqs * per_req
    tables = [torch.randint(0, 1000000, (rows, w), dtype=torch.int32, device="cuda") for _, w in groups]
    sizes = [b for b, _ in groups]
    idx = (torch.randperm(rows, device="cuda")[:reqs] if reqs <= rows else
           torch.randint(0, rows, (reqs,), device="cuda")).int()
    qsl = (torch.arange(reqs + 1, device="cuda") * per_req).int()
    starts = torch.randint(0, 32768 - per_req, (reqs,), device="cuda")
    pos = (starts[:, None] + torch.arange(per_req, device="cuda")[None, :]).reshape(-1)
    ptrs = torch.tensor([t.data_ptr() for t in tables], dtype=torch.uint64, device="cuda")
    strides = torch.tensor([t.stride(0) for t in tables], dtype=torch.int64, device="cuda")
    widths = torch.tensor([t.shape[1] for t in tables], dtype=torch.int64, device="cuda")
    bsz = torch.tensor(sizes, dtype=torch.int32, device="cuda")
    out = torch.zeros(len(groups), T, dtype=torch.int64, device="cuda")

    def kvref_fn():
        return torch.ops.kvref.slot_mapping(tables, sizes, idx, qsl, pos, T)

    def vllm_fn():
        vllm_slots[(len(groups), reqs + 1)](
            out.shape[1], idx, qsl, pos, ptrs, strides, widths, bsz, out, out.stride(0), 0,
            CP_SIZE=1, CP_INTERLEAVE=1, PAD_ID=-1, TRITON_BLOCK_SIZE=1024)
        return out

    a = kvref_fn().clone()
    b = vllm_fn().clone()
    torch.cuda.synchronize()
    same = torch.equal(a, b)
    pads = int((a == -1).sum())
    ke = time_eager(kvref_fn, 200)
    ve = time_eager(vllm_fn, 200)
    kg = time_graph(kvref_fn, 20, 10)
    vg = time_graph(vllm_fn, 20, 10)
    gdesc = "+".join(f"bs{b}/w{w}" for b, w in groups)
    print(f"slot_mapping {len(groups)} groups ({gdesc}) {reqs:5d} reqs x {per_req:5d} | eager kvref {fmt(ke)} us"
          f"  vLLM(fixed) {fmt(ve)} us | graph kvref {fmt(kg)} us  vLLM(fixed) {fmt(vg)} us"
          f" | {'identical' if same else 'DIFFER'} ({pads} pad slots)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vllm", required=True, help="a vLLM source checkout (read, never imported)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--skip-host-cost", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 0
    kvref_torch.load()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    copy_gbs = copy_bandwidth()
    print(f"torch D2D copy {copy_gbs:.1f} GB/s (read + write)", flush=True)
    if not args.skip_host_cost:
        bench_host_cost()
    try:
        vllm_store, path = load_vllm_store(args.vllm)
        print(f"peer: {path}")
    except Exception as e:  # noqa: BLE001
        print(f"SKIP vLLM store: {type(e).__name__}: {e}")
        vllm_store = None
    sizes = (1, 16, 64, 256, 1024, 4096, 16384, 65536)
    if args.quick:
        sizes = (1, 256, 16384)
    if vllm_store is not None:
        for dt in ("bf16", "fp8"):
            for T in sizes:
                bench_store(vllm_store, T, dt, copy_gbs)
    try:
        vllm_slots, path = load_vllm_slot_mapping(args.vllm)
        print(f"peer: {path} (_compute_slot_mappings_kernel, width guard + int64 fix applied at load)")
    except Exception as e:  # noqa: BLE001
        print(f"SKIP vLLM slot mapping: {type(e).__name__}: {e}")
        vllm_slots = None
    if vllm_slots is not None:
        groups = [(16, 2048), (64, 512), (16, 32)]
        for reqs, per in ((1, 1), (256, 1), (1024, 1), (8, 4096), (32, 2048)):
            bench_slot_mapping(vllm_slots, reqs, per, groups)
    return 0


if __name__ == "__main__":
    sys.exit(main())
