"""GPU test of torch.ops.kvref.* against plain PyTorch (run on a GPU machine)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import kvref_torch  # noqa: E402

failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


def torch_slot_mapping(bt, bs, idx, qsl, pos, padded):
    lens = (qsl[1:] - qsl[:-1]).long()
    req = torch.repeat_interleave(torch.arange(idx.numel(), device=pos.device), lens)
    rows = idx.long()[req]
    col = pos // bs
    ok = col < bt.shape[1]
    blk = bt[rows, col.clamp(max=bt.shape[1] - 1)].long()
    slot = torch.where(ok, blk * bs + pos % bs, torch.full_like(pos, -1))
    out = torch.full((padded,), -1, dtype=torch.long, device=pos.device)
    out[: pos.numel()] = slot
    return out


def main():
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 0
    kvref_torch.load()
    dev = "cuda"
    g = torch.Generator(device="cpu").manual_seed(0)
    # slot mapping, two groups, one narrow
    bt0 = torch.randint(0, 100000, (16, 64), generator=g, dtype=torch.int32).to(dev)
    bt1 = torch.randint(0, 100000, (16, 4), generator=g, dtype=torch.int32).to(dev)
    lens = torch.tensor([5, 1, 300, 7], dtype=torch.int32)
    qsl = torch.zeros(5, dtype=torch.int32)
    qsl[1:] = torch.cumsum(lens, 0)
    idx = torch.tensor([3, 0, 15, 7], dtype=torch.int32)
    pos = torch.cat([torch.arange(s, s + int(n)) for s, n in zip([0, 900, 10, 5000], lens)]).long()
    qsl, idx, pos = qsl.to(dev), idx.to(dev), pos.to(dev)
    out = torch.ops.kvref.slot_mapping([bt0, bt1], [16, 32], idx, qsl, pos, pos.numel() + 3)
    check(torch.equal(out[0], torch_slot_mapping(bt0, 16, idx, qsl, pos, pos.numel() + 3)), "slot mapping group 0")
    check(torch.equal(out[1], torch_slot_mapping(bt1, 32, idx, qsl, pos, pos.numel() + 3)), "slot mapping group 1")
    # kv store, NHD and HND, bf16 and fp8
    T, H, D, bs, nb = 333, 8, 128, 16, 64
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        key = torch.randn(T, H, D, dtype=dtype, device=dev)
        value = torch.randn(T, H, D, dtype=dtype, device=dev)
        slots = torch.randperm(nb * bs, device=dev)[:T]
        for layout in ("NHD", "HND"):
            shape = (nb, bs, H, D) if layout == "NHD" else (nb, H, bs, D)
            kc = torch.zeros(shape, dtype=dtype, device=dev)
            vc = torch.zeros_like(kc)
            torch.ops.kvref.kv_store(key, value, kc, vc, slots, layout)
            if layout == "NHD":
                ref = torch.zeros_like(kc)
                ref.view(-1, H, D)[slots] = key
                check(torch.equal(kc, ref), f"kv_store {dtype} NHD key")
                ref.view(-1, H, D)[slots] = value
                check(torch.equal(vc, ref), f"kv_store {dtype} NHD value")
            else:
                ref = torch.zeros_like(kc)
                b, s = slots // bs, slots % bs
                ref[b, :, s] = key
                check(torch.equal(kc, ref), f"kv_store {dtype} HND key")
        # fp8
        kc8 = torch.zeros((nb, bs, H, D), dtype=torch.float8_e4m3fn, device=dev)
        vc8 = torch.zeros_like(kc8)
        ks = torch.tensor([0.5], device=dev)
        vs = torch.tensor([2.0], device=dev)
        torch.ops.kvref.kv_store(key, value, kc8, vc8, slots, "NHD", ks, vs)
        want = (key.float() / 0.5).clamp(-448, 448).to(torch.float8_e4m3fn)
        got = kc8.view(-1, H, D)[slots]
        check(torch.equal(got.view(torch.uint8), want.view(torch.uint8)), f"kv_store {dtype}->fp8 (vs torch's cast)")
    # record store
    R, ps = 656, 64
    src = torch.randint(0, 255, (T, R), dtype=torch.uint8, device=dev)
    cache = torch.zeros((nb, ps * R + 64), dtype=torch.uint8, device=dev)
    slots = torch.randperm(nb * ps, device=dev)[:T]
    torch.ops.kvref.record_store(src, cache, slots, ps, R)
    ref = torch.zeros_like(cache)
    view = ref[:, : ps * R].reshape(nb * ps, R)
    view[slots] = src
    ref[:, : ps * R] = view.view(nb, ps * R)
    check(torch.equal(cache, ref), "record_store")
    # tensors on another device than the current one: the op makes their device current for
    # the call (and only then), launches on that device's current stream, and restores it
    if torch.cuda.device_count() >= 2:
        d1 = torch.device("cuda", 1)
        with torch.cuda.device(0):
            key1 = torch.randn(T, H, D, dtype=torch.bfloat16, device=d1)
            value1 = torch.randn_like(key1)
            kc1 = torch.zeros((nb, bs, H, D), dtype=torch.bfloat16, device=d1)
            vc1 = torch.zeros_like(kc1)
            slots1 = torch.randperm(nb * bs, device=d1)[:T]
            torch.cuda.synchronize(d1)
            torch.ops.kvref.kv_store(key1, value1, kc1, vc1, slots1, "NHD")
            check(torch.cuda.current_device() == 0, "kv_store on cuda:1 leaves cuda:0 current")
            torch.cuda.synchronize(d1)
            ref = torch.zeros_like(kc1)
            ref.view(-1, H, D)[slots1] = key1
            check(torch.equal(kc1, ref), "kv_store on cuda:1, called with cuda:0 current")
    else:
        print("test_kvref_torch: one device: the other-device case is skipped")
    print(f"test_kvref_torch: {checks} checks, {failures} failed -> {'FAIL' if failures else 'PASS'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
