#!/usr/bin/env python3
"""What the KV001 findings of a scan are, estimated from every judged sample.

usage: estimate.py [--dir DIR] SCAN_TAG STRATUM_PREFIX

A finding of DIR/<SCAN_TAG>-<tree>.json (kvlint --format=json over
/work/trees/<tree>) whose sites (its line and the "and here" notes folded into
it) include a judged site takes that site's verdict (DIR/judged*-*.jsonl; a
finding with several judged sites takes the most serious: real, then extreme,
then cannot; the latest sample's verdict wins for a site judged twice). The
findings no sample judged are estimated with the verdict shares of
STRATUM_PREFIX (e.g. judged9), a sample drawn at random from the findings no
earlier sample had judged. Prints, per tree and in all, the judged counts,
the unjudged count, and the estimated real / extreme / cannot totals.
See docs/precision.md (KV001, Method).
"""
import argparse
import glob
import json
import os
import re

TREES = ["vllm", "flashinfer", "flash-attention", "flash-linear-attention"]
RANK = {"real": 3, "extreme": 2, "cannot": 1}


def rel(path):
    return path.replace("/work/trees/", "")


def sample_no(fn):
    m = re.match(r"judged(\d*)", os.path.basename(fn))
    return int(m.group(1) or 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/work/scans")
    ap.add_argument("scan")
    ap.add_argument("stratum")
    a = ap.parse_args()
    verdict = {}  # (file, line) -> (sample, verdict)
    for fn in sorted(glob.glob(os.path.join(a.dir, "judged*-*.jsonl")), key=sample_no):
        n = sample_no(fn)
        for line in open(fn):
            r = json.loads(line)
            if r.get("verdict") in RANK:
                verdict[(rel(r["file"]), r["line"])] = (n, r["verdict"])
    share = {"real": 0, "extreme": 0, "cannot": 0}
    for fn in glob.glob(os.path.join(a.dir, a.stratum + "-*.jsonl")):
        for line in open(fn):
            r = json.loads(line)
            if r.get("verdict") in share:
                share[r["verdict"]] += 1
    ns = sum(share.values())
    if not ns:
        raise SystemExit(f"no verdicts in {a.stratum}-*.jsonl")
    total = {"findings": 0, "unjudged": 0, "real": 0, "extreme": 0, "cannot": 0}
    print(f"stratum {a.stratum}: " + ", ".join(f"{k} {v}/{ns}" for k, v in share.items()))
    for tree in TREES:
        path = os.path.join(a.dir, f"{a.scan}-{tree}.json")
        if not os.path.exists(path):
            continue
        row = {"findings": 0, "unjudged": 0, "real": 0, "extreme": 0, "cannot": 0}
        for f in json.load(open(path))["findings"]:
            if f["code"] != "KV001":
                continue
            row["findings"] += 1
            sites = [(rel(f["file"]), f["line"])]
            for n in f.get("notes", []):
                if n.get("message", "").startswith("and here") and "line" in n:
                    sites.append((rel(n.get("file", f["file"])), n["line"]))
            vs = [verdict[s][1] for s in sites if s in verdict]
            if vs:
                row[max(vs, key=RANK.get)] += 1
            else:
                row["unjudged"] += 1
        for k in row:
            total[k] += row[k]
        print(fmt(tree, row, share, ns))
    print(fmt("all", total, share, ns))


def fmt(name, row, share, ns):
    est = {k: row[k] + row["unjudged"] * share[k] / ns for k in share}
    n = row["findings"]
    return (f"{name:24s} findings {n:4d}  judged: real {row['real']:3d} extreme {row['extreme']:3d} "
            f"cannot {row['cannot']:3d}  unjudged {row['unjudged']:3d}  estimate: "
            + " ".join(f"{k} {est[k]:.0f} ({100 * est[k] / max(n, 1):.0f} %)" for k in share))


if __name__ == "__main__":
    main()
