#===- args.py - sizes, tensors and launch arguments from a spec's facts ----===#
"""Size expressions are evaluated by a small arithmetic evaluator (no eval):
names from [sizes], integers, + - * // % **, parentheses, and the calls
cdiv, min, max, next_power_of_2.  Launch arguments and reference expressions
are Python over torch (the specs are ours, never a scanned tree's) and are
evaluated with the tensors and sizes as names.
"""
import ast
import operator

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
        ast.LShift: operator.lshift, ast.RShift: operator.rshift}


def cdiv(a, b):
    return -(-a // b)


def next_power_of_2(n):
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


_CALLS = {"cdiv": cdiv, "min": min, "max": max, "next_power_of_2": next_power_of_2}


class ExprError(Exception):
    pass


def eval_size(expr, sizes):
    """An int (or float) from a size expression, e.g. 'cdiv(T, 64) * H'."""
    if isinstance(expr, (int, float)) and not isinstance(expr, bool):
        return expr
    if not isinstance(expr, str):
        raise ExprError(f"not a size expression: {expr!r}")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ExprError(f"'{expr}': {e.msg}") from None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in sizes:
                raise ExprError(f"'{expr}': unknown size '{n.id}'")
            return sizes[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
            return _BIN[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _CALLS and not n.keywords:
            return _CALLS[n.func.id](*[ev(a) for a in n.args])
        raise ExprError(f"'{expr}': only sizes, numbers, + - * // % ** << >> and cdiv/min/max/next_power_of_2")

    return ev(tree)


def shape_of(tensor_spec, sizes):
    return [int(eval_size(s, sizes)) for s in tensor_spec["shape"]]


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def plan_tensors(spec, sizes):
    """[(name, shape, dtype, init, is_out, lo_pad, hi_pad)] without allocating; and bytes."""
    plan, total = [], 0
    for name, t in spec.get("tensors", {}).items():
        shape = shape_of(t, sizes)
        dtype = t.get("dtype", "bfloat16")
        pad = int(eval_size(t.get("canary", 65536), sizes))
        lo = int(eval_size(t.get("canary_lo", pad), sizes))
        hi = int(eval_size(t.get("canary_hi", pad), sizes))
        from canary import ITEMSIZE
        total += (numel(shape) + lo + hi) * ITEMSIZE[dtype]
        plan.append((name, shape, dtype, t.get("init", "zeros"), bool(t.get("out", False)), lo, hi,
                     t.get("value", 0)))
    return plan, total


# ------------------------------------------------------------------ torch side --
def fill(torch, view, init, value=0):
    """Deterministic contents: 'rows' gives each row (first dim) its own values."""
    if init == "zeros":
        view.zero_()
    elif init == "ones":
        view.fill_(1)
    elif init == "full":
        view.fill_(value)
    elif init == "randn":
        g = torch.Generator(device=view.device)
        g.manual_seed(20261202)
        if view.dtype.is_floating_point:
            view.normal_(generator=g)
        else:
            view.random_(0, int(value) or 1024, generator=g)
    elif init == "arange":
        flat = view.view(-1)
        step = 1 << 24
        for a in range(0, flat.numel(), step):
            b = min(a + step, flat.numel())
            flat[a:b] = torch.arange(a, b, device=view.device, dtype=torch.int64).to(view.dtype) \
                if not view.dtype.is_floating_point else \
                (torch.arange(a, b, device=view.device) % 251).to(view.dtype)
    elif init == "rows":
        # rows: all dimensions but the last (a [1, S, H, D] tensor has S * H rows)
        cols = view.shape[-1] if view.dim() > 1 else 1
        rows = view.numel() // cols if cols else 0
        v2 = view.view(rows, cols)
        r = torch.arange(rows, device=view.device, dtype=torch.int64)[:, None]
        step = max(1, (1 << 26) // max(cols, 1))
        c = torch.arange(cols, device=view.device, dtype=torch.int64)[None, :]
        for a in range(0, rows, step):
            b = min(a + step, rows)
            v2[a:b] = (((r[a:b] * 7 + c) % 61).to(torch.float32) / 8 - 3.5).to(view.dtype)
    else:
        raise ValueError(init)


def build(torch, spec, sizes, device="cuda"):
    """{name: (buffer, view, layout, dtype, is_out)} with canaries, filled."""
    import canary
    plan, _ = plan_tensors(spec, sizes)
    out = {}
    for name, shape, dtype, init, is_out, lo, hi, value in plan:
        buf, view, lay = canary.alloc(torch, shape, dtype, device, lo, hi)
        fill(torch, view, init, value)
        out[name] = (buf, view, lay, dtype, is_out)
    return out


def namespace(torch, sizes, tensors, extra=None):
    ns = {"torch": torch, "cdiv": cdiv, "next_power_of_2": next_power_of_2, "min": min, "max": max}
    ns.update(sizes)
    ns.update({k: v[1] for k, v in tensors.items()})
    if extra:
        ns.update(extra)
    return ns


def eval_expr(expr, ns):
    """A launch argument or reference: Python over the namespace (our specs only)."""
    if not isinstance(expr, str):
        return expr
    return eval(compile(expr, "<spec>", "eval"), ns)  # noqa: S307 - the specs are ours
