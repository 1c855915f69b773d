#!/usr/bin/env python3
"""Score kvlint against the local real-bug corpus (see tools/eval/README.md).

Case mode (default): for every case of the manifest, run kvlint --format=json on
the case's before.<ext> and after.<ext> (one file per run) and report
  * found:  a finding of the case's rule lands on a buggy line of `before`
            (+-TOL lines, or anywhere inside the statement that contains a buggy line);
  * fixed-line hits: findings of the case's rule on a fixed line of `after`
            (exact line; a correct checker reports none).
Tree mode (--tree DIR): run kvlint on a source tree and print finding counts per
rule and per file, for manual precision review.

Python 3.11, standard library only.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import shutil
import signal
import subprocess
import sys

RULE_CHECKS = {
    "KV001": "kvlint-narrowed-index-overflow",
    "KV002": "kvlint-unguarded-table-load",
}
CHECK_RULES = {v: k for k, v in RULE_CHECKS.items()}
SRC_EXTS = (".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".py")
DEFAULT_EVAL = os.environ.get("KVLINT_EVAL_DIR", "/work/eval")


# --------------------------------------------------------------------------- kvlint
class KvlintError(Exception):
    pass


def run_kvlint(kvlint: str, target: str, extra: list[str], timeout: float) -> list[dict]:
    """Run kvlint on one file or tree; return its findings. Raise KvlintError on exit 2 / bad output."""
    cmd = [kvlint, "--format=json", *extra, target]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise KvlintError(f"kvlint not found: {kvlint}")
    except subprocess.TimeoutExpired:
        raise KvlintError(f"timeout after {timeout}s")
    if p.returncode not in (0, 1):
        msg = (p.stderr or p.stdout).strip().splitlines()
        raise KvlintError(f"exit {p.returncode}: {msg[-1] if msg else ''}")
    out = p.stdout.strip()
    if not out:
        if p.returncode == 0:
            return []
        raise KvlintError("exit 1 but no JSON on stdout")
    try:
        doc = json.loads(out)
    except json.JSONDecodeError as e:
        raise KvlintError(f"bad JSON: {e}")
    findings = doc.get("findings", []) if isinstance(doc, dict) else doc
    if not isinstance(findings, list):
        raise KvlintError("JSON has no findings list")
    # The sites kvlint folds into a finding (one finding per value to widen)
    # are its notes "and here: <message>": each is a site it reports.
    sites = []
    for f in findings:
        sites.append(f)
        for n in f.get("notes", []) if isinstance(f, dict) else []:
            if str(n.get("message", "")).startswith("and here: "):
                sites.append({**f, "line": n.get("line", -1), "column": n.get("column", -1),
                              "message": n["message"], "notes": []})
    return sites


def finding_rule(f: dict) -> str | None:
    code = f.get("code")
    if code:
        return code
    return CHECK_RULES.get(f.get("check", ""))


# ------------------------------------------------------------------ statement spans
def python_stmt_spans(text: str) -> list[tuple[int, int]]:
    """(first, last) line of every simple statement (innermost statements only)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
                   ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)
        ):
            spans.append((node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, (ast.If, ast.While)):
            # the condition/header part
            spans.append((node.lineno, node.test.end_lineno or node.lineno))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            spans.append((node.lineno, node.iter.end_lineno or node.lineno))
    return spans


def c_stmt_span(lines: list[str], line: int) -> tuple[int, int]:
    """Heuristic C/C++ statement containing 1-based `line`: extend up to the line after
    the previous terminator (; { } or preprocessor line) and down to the next ; or {."""
    def ends(s: str) -> bool:
        s = s.split("//", 1)[0].rstrip()
        return (not s) or s.endswith((";", "{", "}")) or s.lstrip().startswith("#")
    n = len(lines)
    lo = line
    while lo > 1 and not ends(lines[lo - 2]):
        lo -= 1
    hi = line
    while hi < n and not ends(lines[hi - 1]):
        hi += 1
    return lo, hi


class Spans:
    def __init__(self, path: str):
        with open(path, encoding="utf-8", errors="replace") as fh:
            self.text = fh.read()
        self.lines = self.text.splitlines()
        self.is_py = path.endswith(".py")
        self.py_spans = python_stmt_spans(self.text) if self.is_py else []

    def stmt(self, line: int) -> tuple[int, int]:
        if self.is_py:
            best = None
            for a, b in self.py_spans:
                if a <= line <= b and (best is None or b - a < best[1] - best[0]):
                    best = (a, b)
            return best or (line, line)
        return c_stmt_span(self.lines, line)


# --------------------------------------------------------------------------- cases
def case_files(cases_dir: str, case: dict) -> tuple[str, str]:
    ext = os.path.splitext(case["path"])[1]
    d = os.path.join(cases_dir, case["id"])
    return os.path.join(d, "before" + ext), os.path.join(d, "after" + ext)


def score_case(case, cases_dir, kvlint, extra, tol, timeout):
    before, after = case_files(cases_dir, case)
    rule = case["rule"]
    res = {"id": case["id"], "rule": rule, "lang": case.get("lang", "?"),
           "tier": case.get("tier", "index"), "doubtful": bool(case.get("doubtful")),
           "error": None, "found": False, "hit_lines": [], "before_n": 0, "after_n": 0,
           "fixed_hits": [], "n_fixed": len(case.get("fixed_lines", []))}
    try:
        fb = [f for f in run_kvlint(kvlint, before, extra, timeout) if finding_rule(f) == rule]
        fa = [f for f in run_kvlint(kvlint, after, extra, timeout) if finding_rule(f) == rule]
    except KvlintError as e:
        res["error"] = str(e)
        return res
    res["before_n"], res["after_n"] = len(fb), len(fa)
    spans = Spans(before)
    ok_lines = set()
    for b in case.get("buggy_lines", []):
        ok_lines.update(range(b - tol, b + tol + 1))
        lo, hi = spans.stmt(b)
        ok_lines.update(range(lo, hi + 1))
    hits = sorted({int(f.get("line", -1)) for f in fb if int(f.get("line", -1)) in ok_lines})
    res["found"], res["hit_lines"] = bool(hits), hits
    fixed = set(case.get("fixed_lines", []))
    res["fixed_hits"] = sorted({int(f.get("line", -1)) for f in fa if int(f.get("line", -1)) in fixed})
    return res


def print_case_table(results, show_doubtful_separately=True):
    hdr = f"{'id':34} {'rule':5} {'lang':6} {'tier':6} {'found':6} {'bef#':>4} {'aft#':>4} {'fixed-hit':>9}  note"
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        if r["error"]:
            print(f"{r['id']:34} {r['rule']:5} {r['lang']:6} {r['tier']:6} {'ERR':6} {'':>4} {'':>4} {'':>9}  {r['error']}")
            continue
        found = "yes" if r["found"] else "NO"
        note = ("doubtful " if r["doubtful"] else "") + (f"hit@{r['hit_lines']}" if r["found"] else "")
        if r["fixed_hits"]:
            note += f" fixed-lines-flagged@{r['fixed_hits']}"
        fx = f"{len(r['fixed_hits'])}/{r['n_fixed']}"
        print(f"{r['id']:34} {r['rule']:5} {r['lang']:6} {r['tier']:6} {found:6} {r['before_n']:>4} {r['after_n']:>4} {fx:>9}  {note}")


def totals(results, label):
    ok = [r for r in results if not r["error"]]
    n, x = len(results), sum(r["found"] for r in ok)
    m = sum(r["n_fixed"] for r in ok)
    y = sum(len(r["fixed_hits"]) for r in ok)
    err = len(results) - len(ok)
    return f"{label:28} bugs found {x}/{n}   fixed lines flagged {y}/{m}" + (f"   errors {err}" if err else "")


def case_mode(a):
    with open(a.manifest) as fh:
        manifest = json.load(fh)
    cases_dir = a.cases_dir or os.path.join(os.path.dirname(os.path.abspath(a.manifest)), "cases")
    sel = []
    for c in manifest:
        if a.rule and c["rule"] not in a.rule:
            continue
        if a.lang and c.get("lang") not in a.lang:
            continue
        if a.tier and c.get("tier", "index") not in a.tier:
            continue
        if a.id and not any(s in c["id"] for s in a.id):
            continue
        if c.get("doubtful") and not a.include_doubtful:
            continue
        sel.append(c)
    results = [score_case(c, cases_dir, a.kvlint, a.kvlint_arg, a.tol, a.timeout) for c in sel]
    print_case_table(results)
    print()
    print(totals(results, "ALL"))
    groups = collections.defaultdict(list)
    for r in results:
        groups[f"rule={r['rule']}"].append(r)
        groups[f"lang={r['lang']}"].append(r)
        groups[f"tier={r['tier']}"].append(r)
        groups[f"{r['rule']}/{r['lang']}"].append(r)
    for k in sorted(groups):
        print(totals(groups[k], k))
    if not a.include_doubtful:
        nd = sum(1 for c in manifest if c.get("doubtful"))
        if nd:
            print(f"({nd} doubtful case(s) skipped; --include-doubtful to score them)")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


# --------------------------------------------------------------------------- trees
def tree_mode(a):
    root = a.tree
    findings = None
    if not a.per_file:
        try:
            findings = run_kvlint(a.kvlint, root, a.kvlint_arg, a.timeout * 20)
        except KvlintError as e:
            print(f"# whole-tree run failed ({e}); falling back to one run per file", file=sys.stderr)
    errors = []
    nfiles = 0
    if findings is None:
        findings = []
        for dp, _, fns in os.walk(root):
            for fn in sorted(fns):
                if not fn.endswith(SRC_EXTS):
                    continue
                p = os.path.join(dp, fn)
                nfiles += 1
                try:
                    fs = run_kvlint(a.kvlint, p, a.kvlint_arg, a.timeout)
                except KvlintError as e:
                    errors.append((p, str(e)))
                    continue
                for f in fs:
                    f.setdefault("file", p)
                findings += fs
    per_rule = collections.Counter(finding_rule(f) or "?" for f in findings)
    per_file = collections.defaultdict(collections.Counter)
    for f in findings:
        per_file[os.path.relpath(str(f.get("file", "?")), root) if os.path.isabs(str(f.get("file", ""))) else f.get("file", "?")][finding_rule(f) or "?"] += 1
    rules = sorted(per_rule)
    print(f"tree: {root}" + (f"   files scanned: {nfiles}" if nfiles else ""))
    print("findings per rule: " + ", ".join(f"{r}={per_rule[r]}" for r in rules) + f"   total={len(findings)}")
    print()
    print(f"{'file':70} " + " ".join(f"{r:>6}" for r in rules))
    for fn in sorted(per_file, key=lambda k: (-sum(per_file[k].values()), k)):
        print(f"{fn[-70:]:70} " + " ".join(f"{per_file[fn][r]:>6}" for r in rules))
    if a.list:
        print()
        for f in sorted(findings, key=lambda f: (str(f.get("file")), int(f.get("line", 0)))):
            print(f"{f.get('file')}:{f.get('line')}:{f.get('column', 0)}: {finding_rule(f)} {f.get('message', '')}")
    for p, e in errors:
        print(f"ERROR {p}: {e}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(findings, fh, indent=1)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kvlint", default="build/bin/kvlint", help="kvlint binary (default build/bin/kvlint)")
    ap.add_argument("--kvlint-arg", action="append", default=[], help="extra argument passed to kvlint (repeatable)")
    ap.add_argument("--manifest", default=os.path.join(DEFAULT_EVAL, "manifest.json"))
    ap.add_argument("--cases-dir", help="default: <manifest dir>/cases")
    ap.add_argument("--tol", type=int, default=1, help="line tolerance around buggy lines (default 1)")
    ap.add_argument("--rule", action="append", help="only cases of this rule (repeatable)")
    ap.add_argument("--lang", action="append", help="only cases of this lang: cuda hip cpp triton")
    ap.add_argument("--tier", action="append", help="only cases of this tier: index param launch")
    ap.add_argument("--id", action="append", help="only case ids containing this substring")
    ap.add_argument("--include-doubtful", action="store_true", help="also score cases marked doubtful")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per kvlint run")
    ap.add_argument("--json", help="write raw results to this file")
    ap.add_argument("--tree", help="tree mode: scan DIR and print finding counts per rule/file")
    ap.add_argument("--per-file", action="store_true", help="tree mode: run kvlint once per file")
    ap.add_argument("--list", action="store_true", help="tree mode: also list every finding")
    a = ap.parse_args(argv)
    if not (os.path.isfile(a.kvlint) and os.access(a.kvlint, os.X_OK)) and not shutil.which(a.kvlint):
        print(f"error: kvlint binary not found or not executable: {a.kvlint}", file=sys.stderr)
        return 2
    return tree_mode(a) if a.tree else case_mode(a)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
