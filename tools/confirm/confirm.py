#!/usr/bin/env python3
#===- confirm.py - run kvlint's findings on a GPU, before and after the fix -===#
"""Two steps, on two machines:

  # CPU machine (kvlint runs here): copy each finding's file out of its tree,
  # apply `kvlint --fix` to a copy, build CUDA drivers with nvcc, stage all:
  python3 tools/confirm/confirm.py prepare --tree vllm=/tmp/trees/vllm ... \
      --kvlint build/bin/kvlint --stage /work/main/.carry/confirm [--only ID,...]

  # GPU machine (no kvlint there): four runs per finding, a verdict each:
  python3 .carry/confirm/harness/confirm.py run --stage .carry/confirm [--out DIR]

Nothing of a scanned tree is committed: the stage folder holds the copied
files and lives outside git (.carry/ is ignored).  Without a GPU, `run`
prints that it skipped and exits 0.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import runner  # noqa: E402
import spec as S  # noqa: E402

NVCC_FLAGS = ["-O2", "-std=c++17", "-gencode=arch=compute_90,code=[sm_90,compute_90]",
              "-w"]


def _trees(pairs):
    out = {}
    for p in pairs:
        if "=" not in p:
            raise SystemExit(f"confirm: --tree wants NAME=PATH, got '{p}'")
        k, v = p.split("=", 1)
        out[k] = os.path.abspath(v)
    return out


def kvlint_findings(kvlint, path, *args):
    p = subprocess.run([kvlint, "--format=json", *args, path], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None, p.stderr.strip().splitlines()[-1:] or ["kvlint failed"]
    try:
        return json.loads(p.stdout)["findings"], None
    except (ValueError, KeyError):
        return None, ["kvlint printed no JSON"]


def prepare_one(sp, trees, kvlint, stage, nvcc):
    rec = {"id": sp["id"], "spec": os.path.relpath(sp["_path"], HERE)}
    tree = trees.get(sp["tree"])
    if not tree:
        rec["error"] = f"no --tree {sp['tree']}=PATH given"
        return rec
    src = os.path.join(tree, sp["file"])
    if not os.path.isfile(src):
        rec["error"] = f"{sp['file']} not in {tree}"
        return rec
    # the upstream file, and every file the launch needs, keep their tree paths
    tdir = os.path.join(stage, "trees", sp["tree"])
    for rel in [sp["file"]] + list(sp["launch"].get("carry", [])):
        s = os.path.join(tree, rel)
        d = os.path.join(tdir, rel)
        if os.path.isdir(s):
            shutil.copytree(s, d, dirs_exist_ok=True)
        elif os.path.isfile(s):
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy2(s, d)
        else:
            rec["error"] = f"carry: {rel} not in {tree}"
            return rec
    # kvlint's finding on the upstream copy, then --fix on another copy
    fdir = os.path.join(stage, "fixed", sp["id"])
    os.makedirs(fdir, exist_ok=True)
    fixed = os.path.join(fdir, os.path.basename(sp["file"]))
    shutil.copy2(src, fixed)
    before, err = kvlint_findings(kvlint, fixed)
    if err:
        rec["error"] = "kvlint: " + "; ".join(err)
        return rec
    hit = [f for f in before if f["line"] == sp["line"] and f["code"] == sp["rule"]]
    # The level the finding has now: default, or latent (beyond the kernel's
    # profile, or without KV002/KV003 evidence). A latent finding is still
    # run: the record says which, and the fix is applied at its level.
    level = []
    if hit:
        rec["level"] = "default"
    else:
        latent, _ = kvlint_findings(kvlint, fixed, "--level=latent")
        hit = [f for f in (latent or []) if f["line"] == sp["line"] and f["code"] == sp["rule"]]
        if hit:
            rec["level"], level = "latent", ["--level=latent"]
    rec["finding"] = hit[0]["message"] if hit else None
    if not hit:
        rec["note"] = "kvlint reports no %s at line %d on the file alone" % (sp["rule"], sp["line"])
    # --unsafe-fixes: KV003's fix is a guard that skips work (unsafe by design)
    p = subprocess.run([kvlint, "--fix", "--unsafe-fixes", *level, fixed], capture_output=True, text=True)
    rec["fix_log"] = (p.stderr.strip().splitlines() or [""])[-1]
    after, _ = kvlint_findings(kvlint, fixed, *level)
    rec["left_after_fix"] = [f["line"] for f in (after or []) if f["line"] == sp["line"] and f["code"] == sp["rule"]]
    d = subprocess.run(["diff", "-u", src, fixed], capture_output=True, text=True).stdout
    with open(os.path.join(fdir, "fix.diff"), "w") as f:
        f.write(d)
    rec["fix_lines"] = sum(1 for l in d.splitlines() if l.startswith("+") and not l.startswith("+++"))
    if rec["fix_lines"] == 0:
        rec["error"] = "kvlint --fix changed nothing in the file"
    if sp["lang"] == "cuda" and "error" not in rec:
        rec.update(build_cuda(sp, tree, fixed, stage, nvcc))
    return rec


def build_cuda(sp, tree, fixed, stage, nvcc):
    """Two binaries, upstream and fixed.  launch.extract: the kernel's text out
    of the file (and out of kvlint's fixed copy) is the header CONFIRM_KERNEL
    names; else the driver includes the tree's headers, and the fixed binary
    sees a copy of the include folder whose file is kvlint's fixed copy."""
    import cxx_extract
    L = sp["launch"]
    drv = os.path.join(HERE, "drivers", L["driver"])
    bdir = os.path.join(stage, "bin")
    gdir = os.path.join(stage, "gen", sp["id"])
    os.makedirs(bdir, exist_ok=True)
    os.makedirs(gdir, exist_ok=True)
    inc = [os.path.join(tree, i) for i in L.get("includes", [])]
    stub = [os.path.join(HERE, "drivers", "stub")]
    variants = {}
    if L.get("extract"):
        for variant, path in (("upstream", os.path.join(tree, sp["file"])), ("fixed", fixed)):
            with open(path) as f:
                src = f.read()
            try:
                text = cxx_extract.kernel_header(src, L["extract"], L.get("namespaces", []), sp["file"])
            except cxx_extract.ExtractError as e:
                return {"error": "extract (%s): %s" % (variant, e)}
            h = os.path.join(gdir, variant + ".cuh")
            with open(h, "w") as f:
                f.write(text)
            variants[variant] = (inc, ['-DCONFIRM_KERNEL="%s"' % h])
    else:
        root = next((i for i in L.get("includes", []) if sp["file"].startswith(i.rstrip("/") + "/")), None)
        if root is None:
            return {"error": "launch.includes has no folder above %s" % sp["file"]}
        over = os.path.join(gdir, "overlay")
        shutil.rmtree(over, ignore_errors=True)
        shutil.copytree(os.path.join(tree, root), os.path.join(over, root))
        shutil.copy2(fixed, os.path.join(over, sp["file"]))
        variants["upstream"] = (inc, [])
        variants["fixed"] = ([os.path.join(over, root)] + [i for i in inc if i != os.path.join(tree, root)], [])
    out = {}
    for variant, (incs, defs) in variants.items():
        exe = os.path.join(bdir, "%s.%s" % (sp["id"], variant))
        cmd = [nvcc] + NVCC_FLAGS + ["-I" + os.path.join(HERE, "drivers")] + ["-I" + i for i in incs + stub] + \
            defs + list(L.get("nvcc_flags", [])) + [drv, "-o", exe]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return {"error": "nvcc (%s): %s" % (variant, " | ".join(p.stderr.strip().splitlines()[:3])[:400])}
        out["bin_" + variant] = os.path.relpath(exe, stage)
        out["nvcc_" + variant] = " ".join(cmd)
    if not L.get("extract"):
        shutil.rmtree(os.path.join(gdir, "overlay"), ignore_errors=True)  # not needed on the device
    return out


def cmd_prepare(o):
    trees = _trees(o.tree)
    stage = os.path.abspath(o.stage)
    os.makedirs(stage, exist_ok=True)
    specs = S.load_dir(o.findings, set(o.only.split(",")) if o.only else None)
    recs = []
    for sp in specs:
        r = prepare_one(sp, trees, os.path.abspath(o.kvlint), stage, o.nvcc)
        where = r.get("note", "finding at the line (%s level)" % r.get("level", "?"))
        print("%-34s %s" % (sp["id"], r.get("error") or ("fix: %d lines; %s" % (r["fix_lines"], where))))
        recs.append(r)
    # the harness travels with the stage (the device copy of the repo may be older)
    hdir = os.path.join(stage, "harness")
    shutil.rmtree(hdir, ignore_errors=True)
    shutil.copytree(HERE, hdir, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "test_*.py", "CMakeLists.txt"))
    # --only adds to (or replaces in) what an earlier prepare staged
    pj = os.path.join(stage, "prepared.json")
    if o.only and os.path.exists(pj):
        with open(pj) as f:
            old = json.load(f)["findings"]
        mine = {r["id"] for r in recs}
        recs = [r for r in old if r["id"] not in mine] + recs
        recs.sort(key=lambda r: r["id"])
    with open(pj, "w") as f:
        json.dump({"findings": recs}, f, indent=1)
    return 0


def gpu_present():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return p.returncode == 0 and "GPU" in p.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def cmd_run(o):
    stage = os.path.abspath(o.stage)
    if not gpu_present():
        print("confirm: no GPU here (nvidia-smi lists none): GPU runs skipped")
        return 0
    with open(os.path.join(stage, "prepared.json")) as f:
        prep = json.load(f)
    only = set(o.only.split(",")) if o.only else None
    results = []
    for rec in prep["findings"]:
        if only and rec["id"] not in only:
            continue
        sp = S.load(os.path.join(stage, "harness", rec["spec"]))
        tree = os.path.join(stage, "trees", sp["tree"])
        runs = {}
        if rec.get("error"):
            v, why = "could not run", rec["error"]
        else:
            for which in ("below", "at"):
                for variant in ("upstream", "fixed"):
                    if sp["lang"] == "triton":
                        argv = [sys.executable, os.path.join(HERE, "triton_run.py"), sp["_path"], variant, which,
                                "--tree", tree, "--fixed",
                                os.path.join(stage, "fixed", sp["id"], os.path.basename(sp["file"]))]
                    else:
                        exe = os.path.join(stage, rec["bin_" + variant])
                        os.chmod(exe, 0o755)
                        argv = [exe, "--which", which]
                    if o.memcheck and variant == "upstream" and which == "at" and sp["lang"] == "cuda":
                        argv = ["compute-sanitizer", "--tool", "memcheck", "--print-limit", "3"] + argv
                    r = runner.run_child(argv, o.timeout)
                    runs[(variant, which)] = r
                    print("  %-32s %-8s %-5s %-5s %5.1fs %s" % (sp["id"], variant, which, r["outcome"], r["wall_s"],
                                                             r.get("detail", "")[:150]), flush=True)
            v, why = runner.verdict(runs)
        print("%-34s %s: %s" % (sp["id"], v.upper(), why), flush=True)
        results.append({"id": sp["id"], "tree": sp["tree"], "repo": sp["repo"], "commit": sp["commit"],
                        "file": sp["file"], "line": sp["line"], "kernel": sp["kernel"], "rule": sp["rule"],
                        "lang": sp["lang"], "wrap_var": sp["wrap"]["var"], "at": sp["wrap"]["at"],
                        "below": sp["wrap"]["below"], "verdict": v, "why": why,
                        "runs": {"%s/%s" % k: r for k, r in runs.items()}, "kvlint": rec.get("finding")})
    out = o.out or os.environ.get("OUT") or "."
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "confirm-results.json"), "w") as f:
        json.dump(results, f, indent=1)
    n = sum(r["verdict"] == "confirmed" for r in results)
    print("confirm: %d of %d confirmed" % (n, len(results)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--tree", action="append", default=[], help="NAME=PATH of a checkout")
    p.add_argument("--kvlint", default=os.path.join(HERE, "..", "..", "build", "bin", "kvlint"))
    p.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    p.add_argument("--stage", required=True)
    p.add_argument("--findings", default=os.path.join(HERE, "findings"))
    p.add_argument("--only")
    r = sub.add_parser("run")
    r.add_argument("--stage", required=True)
    r.add_argument("--only")
    r.add_argument("--out")
    r.add_argument("--timeout", type=int, default=120)
    r.add_argument("--memcheck", action="store_true", help="CUDA upstream run at the wrap size under memcheck")
    o = ap.parse_args()
    try:
        return cmd_prepare(o) if o.cmd == "prepare" else cmd_run(o)
    except S.SpecError as e:
        print(e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
