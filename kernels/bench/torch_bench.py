"""kvref vs the obvious PyTorch baselines (run on a GPU machine; prints figures, asserts nothing).

    python3 kernels/bench/torch_bench.py

KV store: torch.ops.kvref.kv_store against `cache.view(-1, H, D)[slots] = kv` (index_put_, K and
V each).  Slot mapping: torch.ops.kvref.slot_mapping (2 groups, one launch) against the
vectorised PyTorch expression (repeat_interleave + gather + where), per group.
Times are CUDA-event means over many iterations after warm-up.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import kvref_torch  # noqa: E402


def timeit(fn, iters):
    for _ in range(5):
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
    return best  # ms


def copy_bandwidth():
    n = 2 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = timeit(lambda: dst.copy_(src), 10)
    return 2 * n / (ms * 1e-3) / 1e9


def bench_kv(T, H, D, dtype, layout, copy_gbs, bs=16):
    nb = max((T + bs - 1) // bs * 2, 4096)
    key = torch.randn(T, H, D, dtype=dtype, device="cuda")
    value = torch.randn_like(key)
    pages = torch.randperm(nb, device="cuda")
    t = torch.arange(T, device="cuda")
    slots = pages[t // bs] * bs + t % bs
    shape = (nb, bs, H, D) if layout == "NHD" else (nb, H, bs, D)
    kc = torch.zeros(shape, dtype=dtype, device="cuda")
    vc = torch.zeros_like(kc)

    def kvref_fn():
        torch.ops.kvref.kv_store(key, value, kc, vc, slots, layout)

    if layout == "NHD":
        def torch_fn():
            kc.view(-1, H, D)[slots] = key
            vc.view(-1, H, D)[slots] = value
    else:
        b, s = slots // bs, slots % bs

        def torch_fn():
            kc[b, :, s] = key
            vc[b, :, s] = value

    iters = 20 if T >= 8192 else 200
    bytes_moved = 4 * key.numel() * key.element_size() + T * 8
    ms_k = timeit(kvref_fn, iters)
    ms_t = timeit(torch_fn, iters)
    gk = bytes_moved / (ms_k * 1e-3) / 1e9
    gt = bytes_moved / (ms_t * 1e-3) / 1e9
    print(f"kv_store {layout} {str(dtype).split('.')[-1]:8s} H{H} D{D} tokens {T:6d}: "
          f"kvref {ms_k * 1e3:8.2f} us {gk:7.1f} GB/s ({100 * gk / copy_gbs:4.1f}% of copy) | "
          f"torch index_put {ms_t * 1e3:8.2f} us {gt:7.1f} GB/s | speed-up x{ms_t / ms_k:.2f}")


def torch_slot_mapping(bt, bs, idx, qsl, pos, padded):
    lens = (qsl[1:] - qsl[:-1]).long()
    req = torch.repeat_interleave(torch.arange(idx.numel(), device=pos.device), lens,
                                  output_size=pos.numel())
    rows = idx.long()[req]
    col = pos // bs
    ok = col < bt.shape[1]
    blk = bt[rows, col.clamp(max=bt.shape[1] - 1)].long()
    out = torch.full((padded,), -1, dtype=torch.long, device=pos.device)
    out[: pos.numel()] = torch.where(ok, blk * bs + pos % bs, -1)
    return out


def bench_slot_mapping(reqs, per_req):
    rows = 1024
    bt0 = torch.randint(0, 1000000, (rows, 2048), dtype=torch.int32, device="cuda")
    bt1 = torch.randint(0, 1000000, (rows, 512), dtype=torch.int32, device="cuda")
    idx = torch.randperm(rows, device="cuda")[:reqs].int() if reqs <= rows else \
        torch.randint(0, rows, (reqs,), device="cuda", dtype=torch.int32)
    qsl = (torch.arange(reqs + 1, device="cuda") * per_req).int()
    starts = torch.randint(0, 32768 - per_req, (reqs,), device="cuda")
    pos = (starts[:, None] + torch.arange(per_req, device="cuda")[None, :]).reshape(-1)
    T = pos.numel()

    def kvref_fn():
        return torch.ops.kvref.slot_mapping([bt0, bt1], [16, 64], idx, qsl, pos, T)

    def torch_fn():
        return (torch_slot_mapping(bt0, 16, idx, qsl, pos, T), torch_slot_mapping(bt1, 64, idx, qsl, pos, T))

    a = kvref_fn()
    b = torch_fn()
    same = torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    ms_k = timeit(kvref_fn, 200)
    ms_t = timeit(torch_fn, 200)
    print(f"slot_mapping 2 groups {reqs:5d} reqs x {per_req:5d}: kvref {ms_k * 1e3:7.2f} us | "
          f"torch {ms_t * 1e3:7.2f} us | speed-up x{ms_t / ms_k:.2f}{'' if same else '  (RESULTS DIFFER)'}")


def main():
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return
    kvref_torch.load()
    torch.manual_seed(0)
    copy_gbs = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}: torch D2D copy {copy_gbs:.1f} GB/s (read + write)")
    for T in (256, 512, 32768, 65536):
        bench_kv(T, 8, 128, torch.bfloat16, "NHD", copy_gbs)
        bench_kv(T, 8, 128, torch.bfloat16, "HND", copy_gbs)
    bench_slot_mapping(256, 1)
    bench_slot_mapping(8, 4096)


if __name__ == "__main__":
    main()
