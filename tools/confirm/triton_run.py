#===- triton_run.py - one Triton run: launch, compare, canaries (child) ---===#
"""python3 triton_run.py SPEC.toml upstream|fixed below|at --tree PATH --fixed PATH

Prints one 'CONFIRM {json}' line (runner.py reads it)."""
import argparse
import importlib.util
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import args as A  # noqa: E402
import canary  # noqa: E402
import kernel_source  # noqa: E402
import ref64  # noqa: E402
import runner  # noqa: E402
import spec as S  # noqa: E402


def compare_rows(torch, out, ref, rtol, atol, chunk=1 << 16):
    """Sorted indices (first dim) of rows where out differs from ref."""
    o2 = out.reshape(out.shape[0], -1) if out.dim() > 1 else out.reshape(-1, 1)
    r2 = ref.reshape(o2.shape)
    bad = []
    for a in range(0, o2.shape[0], chunk):
        b = min(a + chunk, o2.shape[0])
        if o2.dtype.is_floating_point or r2.dtype.is_floating_point:
            x = o2[a:b].float()
            y = r2[a:b].to(o2.dtype).float()
            close = (x == y) | ((x - y).abs() <= atol + rtol * y.abs()) | (x.isnan() & y.isnan())
            ne = ~close
        else:
            ne = o2[a:b] != r2[a:b].to(o2.dtype)
        rows = ne.any(dim=1).nonzero().flatten()
        if rows.numel():
            bad.extend((rows + a).tolist()[:100000])
    return bad


def load_module(spec, path, tree):
    import stubs
    stubs.install(spec["launch"].get("stubs", {}), tree)
    for p in spec["launch"].get("pythonpath", ["."]):
        sys.path.insert(0, os.path.join(tree, p))
    m = importlib.util.spec_from_file_location(spec["launch"]["module"], path)
    mod = importlib.util.module_from_spec(m)
    sys.modules[spec["launch"]["module"]] = mod
    m.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("variant", choices=("upstream", "fixed"))
    ap.add_argument("which", choices=("below", "at"))
    ap.add_argument("--tree", required=True)
    ap.add_argument("--fixed", help="the kvlint --fix copy of the spec's file")
    o = ap.parse_args()
    spec = S.load(o.spec)
    sizes = S.sizes_at(spec, o.which)
    for k, v in spec.get("derived", {}).items():
        sizes[k] = A.eval_size(v, sizes)
    path = os.path.join(o.tree, spec["file"]) if o.variant == "upstream" else o.fixed
    res = {"id": spec["id"], "variant": o.variant, "which": o.which,
           spec["wrap"]["var"]: sizes[spec["wrap"]["var"]]}
    L = spec["launch"]
    try:
        import torch
        if not torch.cuda.is_available():
            res.update(outcome="error", detail="no CUDA device")
            runner.emit(res)
            return
        with open(path) as f:
            src = f.read()
        plan, nbytes = A.plan_tensors(spec, sizes)
        res["gib"] = round(nbytes / 2**30, 1)
        tensors = A.build(torch, spec, sizes)
        extra = {}
        if L["mode"] == "kernel":
            ns = kernel_source.compile_kernels(src, "%s:%s" % (o.variant, spec["file"]), L.get("prelude", ""))
            kern = ns[spec["kernel"]]
            extra["kernel"] = kern
        else:
            extra["mod"] = load_module(spec, path, o.tree)
        env = A.namespace(torch, sizes, tensors, extra)
        for k, v in L.get("let", {}).items():
            env[k] = A.eval_expr(v, env)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - reported as the run's outcome
        res.update(outcome="error", detail="%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else ""))
        traceback.print_exc()
        runner.emit(res)
        return
    try:
        if L["mode"] == "kernel":
            grid = tuple(int(A.eval_expr(g, env)) for g in L["grid"])
            argv = [A.eval_expr(a, env) for a in L["args"]]
            kw = {k: A.eval_expr(v, env) for k, v in L.get("constexprs", {}).items()}
            kern[grid](*argv, **kw)
        else:
            got = A.eval_expr(L["call"], env)
            if L.get("result"):
                env[L["result"]] = got
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        kind = "fault" if ("illegal" in msg.lower() or "misaligned" in msg.lower()) else "error"
        res.update(outcome=kind, detail="%s: %s" % (type(e).__name__, msg.splitlines()[0][:300] if msg else ""))
        runner.emit(res)
        return
    try:
        chk = spec["check"]
        rtol, atol = float(chk.get("_rtol", 0.02)), float(chk.get("_atol", 0.02))
        details, wrong = [], False
        pred = None
        if "stride" in spec["wrap"]:
            pred = ref64.first_wrapping(int(A.eval_size(spec["wrap"]["stride"], sizes)),
                                        int(A.eval_size(spec["wrap"].get("extra", 0), sizes)))
            pred //= int(A.eval_size(spec["wrap"].get("rows_per_index", 1), sizes))
        for name, expr in chk.items():
            if name.startswith("_"):
                continue
            out = env[name]
            ref = A.eval_expr(expr, env)
            if "_rows" in chk:  # compare as (_rows, -1): rows in the wrap's unit
                n_rows = int(A.eval_size(chk["_rows"], sizes))
                out, ref = out.reshape(n_rows, -1), ref.reshape(n_rows, -1)
            bad = compare_rows(torch, out, ref, rtol, atol)
            if bad:
                wrong = True
            details.append("%s: %s" % (name, ref64.summarize_rows(bad, pred, out.shape[0])))
            del ref
        for name, (buf, view, lay, dtype, is_out) in tensors.items():
            cnt, text = canary.check(torch, buf, lay, dtype)
            if cnt:
                wrong = True
                details.append("%s %s" % (name, text))
        res.update(outcome="wrong" if wrong else "ok", detail="; ".join(details) or "canaries intact")
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        kind = "fault" if "illegal" in msg.lower() else "error"
        res.update(outcome=kind, detail="check: %s: %s" % (type(e).__name__, msg.splitlines()[0][:300] if msg else ""))
    runner.emit(res)


if __name__ == "__main__":
    main()
