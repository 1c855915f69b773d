#===- runner.py - one run in its own process, and the verdict of four ------===#
"""Each run (variant upstream|fixed, size below|at) is a child process: a
wrapped address that faults poisons the CUDA context, so the next run needs
a fresh one.  The child prints one JSON line starting with 'CONFIRM '.

Outcome of a run: 'ok' (output equals the 64-bit reference, canaries intact),
'wrong' (output or a canary differs), 'fault' (the kernel faulted: illegal
address), 'error' (it did not run: compile, import or allocation failure).
"""
import json
import os
import subprocess
import sys
import time

MARK = "CONFIRM "


def verdict(runs):
    """(verdict, why) from {('upstream'|'fixed', 'below'|'at'): result dict}."""
    def o(v, s):
        r = runs.get((v, s))
        return r["outcome"] if r else "missing"

    for key in (("upstream", "below"), ("upstream", "at"), ("fixed", "below"), ("fixed", "at")):
        if o(*key) in ("error", "missing"):
            r = runs.get(key) or {}
            return "could not run", "%s at %s: %s" % (key[0], key[1], r.get("detail", "not run"))
    if o("upstream", "below") != "ok":
        return "could not run", "upstream is wrong below the wrap size too (%s): the harness's reference or arguments are off" \
            % runs[("upstream", "below")].get("detail", "")
    if o("upstream", "at") == "ok":
        return "not reproduced", "upstream is correct at the size kvlint says wraps"
    if o("fixed", "at") != "ok" or o("fixed", "below") != "ok":
        bad = ("fixed", "at") if o("fixed", "at") != "ok" else ("fixed", "below")
        return "fix failed", "the fix-it's copy is %s at %s: %s" % (o(*bad), bad[1], runs[bad].get("detail", ""))
    return "confirmed", "upstream %s at the wrap size, fixed copy correct" % o("upstream", "at")


def parse_child(stdout, rc, stderr=""):
    for line in stdout.splitlines():
        if line.startswith(MARK):
            try:
                return json.loads(line[len(MARK):])
            except ValueError:
                break
    text = (stderr or "") + stdout
    low = text.lower()
    if "illegal memory access" in low or "illegal address" in low or "misaligned address" in low:
        return {"outcome": "fault", "detail": _last_error_line(text)}
    return {"outcome": "error", "detail": "rc %s: %s" % (rc, _last_error_line(text))}


def _last_error_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in reversed(lines):
        if "Error" in l or "error" in l or "illegal" in l:
            return l[:300]
    return lines[-1][:300] if lines else "no output"


def run_child(argv, timeout, env=None):
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        res = parse_child(p.stdout, p.returncode, p.stderr)
        if res.get("outcome") != "ok" and os.environ.get("CONFIRM_VERBOSE"):
            sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
    except subprocess.TimeoutExpired:
        res = {"outcome": "error", "detail": "timed out after %d s" % timeout}
    res["wall_s"] = round(time.time() - t0, 1)
    return res


def emit(result):
    print(MARK + json.dumps(result), flush=True)
