#===- spec.py - a finding's declarative spec (TOML), parsed and checked -----===#
"""One finding = one TOML file under tools/confirm/findings/.

Keys (all checked here; an error names the file and key and exits 2):

  id        unique name                       tree     tree name (--tree NAME=PATH)
  repo      owner/name on GitHub              commit   40-hex commit the row was run at
  file      path inside the tree              line     kvlint's finding line
  kernel    the kernel (Triton function / CUDA kernel)
  rule      KV001 | KV002 | KV003             lang     triton | cuda
  product   the expression kvlint names (text, for the record)
  [sizes]   name = value for every size; the wrapping one is [wrap]
  [wrap]    var = size that grows; at = the smallest value where kvlint's message
            says it wraps; below = the value just below (a correct run);
            elements = expression of the sizes: the offset that crosses 2^31 (check)
  [launch]  Triton: mode = "kernel" | "launcher"; grid, args, constexprs, call, ...
            CUDA: driver = tools/confirm/drivers/<x>.cu, includes = [tree dirs]
  [tensors] name = {shape, dtype, init, out, canary}
  [check]   name = reference expression (64-bit reference), rtol/atol
"""
import os
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

RULES = ("KV001", "KV002", "KV003")
LANGS = ("triton", "cuda")
REQUIRED = ("id", "tree", "repo", "commit", "file", "line", "kernel", "rule", "lang", "product")
DTYPES = ("bfloat16", "float16", "float32", "int32", "int64", "uint8", "int8")
INITS = ("zeros", "randn", "rows", "arange", "ones", "full")


class SpecError(Exception):
    """A malformed spec: the message starts with 'file: '."""


def _err(path, msg):
    raise SpecError(f"{path}: {msg}")


def parse_text(text, path="<spec>"):
    if tomllib is None:
        _err(path, "needs Python 3.11+ (tomllib)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        _err(path, f"not TOML: {e}")
    return validate(data, path)


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        _err(path, "not UTF-8")
    return parse_text(text, path)


def validate(d, path):
    for k in REQUIRED:
        if k not in d:
            _err(path, f"missing key '{k}'")
    for k in ("id", "tree", "repo", "file", "kernel", "product"):
        if not isinstance(d[k], str) or not d[k]:
            _err(path, f"'{k}' must be a non-empty string")
    if not isinstance(d["line"], int) or d["line"] < 1:
        _err(path, "'line' must be a positive integer")
    c = d["commit"]
    if not isinstance(c, str) or len(c) != 40 or any(ch not in "0123456789abcdef" for ch in c):
        _err(path, "'commit' must be 40 lowercase hex digits")
    if d["rule"] not in RULES:
        _err(path, f"'rule' must be one of {', '.join(RULES)}")
    if d["lang"] not in LANGS:
        _err(path, f"'lang' must be one of {', '.join(LANGS)}")
    if os.path.isabs(d["file"]) or ".." in d["file"].split("/"):
        _err(path, "'file' must be a relative path inside the tree")
    sizes = d.get("sizes", {})
    if not isinstance(sizes, dict):
        _err(path, "[sizes] must be a table")
    for k, v in sizes.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            _err(path, f"sizes.{k} must be a number")
    w = d.get("wrap")
    if not isinstance(w, dict):
        _err(path, "missing [wrap] table")
    for k in ("var", "at", "below"):
        if k not in w:
            _err(path, f"missing wrap.{k}")
    if w["var"] not in sizes:
        _err(path, f"wrap.var '{w['var']}' is not a key of [sizes]")
    if not (isinstance(w["at"], int) and isinstance(w["below"], int)) or w["below"] >= w["at"]:
        _err(path, "wrap.below and wrap.at must be integers with below < at")
    launch = d.get("launch")
    if not isinstance(launch, dict):
        _err(path, "missing [launch] table")
    if d["lang"] == "triton":
        mode = launch.get("mode")
        if mode not in ("kernel", "launcher"):
            _err(path, "launch.mode must be 'kernel' or 'launcher'")
        if mode == "kernel":
            for k in ("grid", "args"):
                if not isinstance(launch.get(k), list):
                    _err(path, f"launch.{k} must be a list of expressions")
        else:
            if not isinstance(launch.get("call"), str):
                _err(path, "launch.call must be an expression (mode = 'launcher')")
            if not isinstance(launch.get("module"), str):
                _err(path, "launch.module must be the module's dotted name (mode = 'launcher')")
        tensors = d.get("tensors", {})
        if not isinstance(tensors, dict) or not tensors:
            _err(path, "[tensors] must name at least one tensor")
        for name, t in tensors.items():
            if not isinstance(t, dict) or not isinstance(t.get("shape"), list):
                _err(path, f"tensors.{name}.shape must be a list")
            if t.get("dtype", "bfloat16") not in DTYPES:
                _err(path, f"tensors.{name}.dtype must be one of {', '.join(DTYPES)}")
            if t.get("init", "zeros") not in INITS:
                _err(path, f"tensors.{name}.init must be one of {', '.join(INITS)}")
        check = d.get("check")
        if not isinstance(check, dict) or not any(isinstance(v, str) for v in check.values()):
            _err(path, "[check] must give a reference expression for at least one output")
        for k in check:
            if isinstance(check[k], str) and k not in tensors and not k.startswith("_") \
                    and k != launch.get("result"):
                _err(path, f"check.{k}: no tensor of that name")
    else:
        drv = launch.get("driver")
        if not isinstance(drv, str) or not drv.endswith(".cu"):
            _err(path, "launch.driver must name a .cu file under tools/confirm/drivers/")
        if not isinstance(launch.get("includes", []), list):
            _err(path, "launch.includes must be a list of tree-relative directories")
    d.setdefault("sizes", sizes)
    d["_path"] = path
    return d


def load_dir(folder, only=None):
    specs = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".toml"):
            s = load(os.path.join(folder, name))
            if only and s["id"] not in only:
                continue
            specs.append(s)
    ids = [s["id"] for s in specs]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SpecError(f"{folder}: duplicate ids {sorted(dup)}")
    return specs


def sizes_at(spec, which):
    """The sizes for run 'at' (the wrap size) or 'below' (just under it)."""
    if which not in ("at", "below"):
        raise ValueError(which)
    s = dict(spec["sizes"])
    s[spec["wrap"]["var"]] = spec["wrap"][which]
    return s


if __name__ == "__main__":
    try:
        for p in sys.argv[1:]:
            print(load(p)["id"])
    except SpecError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
