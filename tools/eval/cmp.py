#!/usr/bin/env python3
"""Which judged KV001 sites does a scan still report?

usage: cmp.py [--dir DIR] JUDGED_PREFIX SCAN_TAG [--list]

Reads DIR/<JUDGED_PREFIX>-<tree>*.jsonl (one verdict per line: id, file, line,
verdict = real | extreme | cannot | missed, ...) and DIR/<SCAN_TAG>-<tree>.json
(kvlint --format=json over /work/trees/<tree>), and prints, per verdict, how
many judged sites the scan still reports. A judged finding is still reported
when the scan has a KV001 finding on the same file and line for the same
product (the quoted product of the sampled finding, read from DIR/<sample
prefix>-<tree>*.json, where the sample prefix is the judged prefix with
'judged' replaced by 'sample'); a missed site, which has no sampled finding,
counts on any KV001 finding on its line. A site folded into another finding
(kvlint reports the sites of one value to widen as one finding, the others as
notes "and here: ...") counts as reported. A finding for another product on a
judged line is counted apart ("other product"): the verdict was not about it.
See docs/precision.md (KV001, Method) and tools/eval/JUDGING.md.
"""
import argparse
import collections
import glob
import json
import os
import re

PRODUCT = re.compile(r"product '(.*?)' is used")


def product(msg):
    m = PRODUCT.search(msg or "")
    return m.group(1) if m else None


def sampled(d, prefix, tree):
    """id -> product of the sampled findings a judged file refers to."""
    out = {}
    pre = prefix.replace("judged", "sample", 1)
    for fn in glob.glob(os.path.join(d, f"{pre}-{tree}*.json")):
        for f in json.load(open(fn)):
            if "id" in f:
                out[f["id"]] = product(f.get("message"))
    return out

TREES = ["vllm", "flashinfer", "flash-attention", "flash-linear-attention"]


def rel(path, tree):
    path = path.replace("/work/trees/", "")
    if path.startswith(tree + "/"):
        return path
    return tree + "/" + path.split(tree + "/", 1)[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/work/scans")
    ap.add_argument("judged")
    ap.add_argument("scan")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    tot, rep, other, rows = (collections.Counter(), collections.Counter(),
                             collections.Counter(), [])
    for t in TREES:
        scan = os.path.join(a.dir, f"{a.scan}-{t}.json")
        found = json.load(open(scan))["findings"]
        at = collections.defaultdict(set)
        for f in found:
            if f["code"] != "KV001":
                continue
            at[(rel(f["file"], t), f["line"])].add(product(f["message"]))
            # Sites folded into the finding (one per value to widen) are
            # its notes "and here: <the site's message>".
            for n in f.get("notes", []):
                if n.get("message", "").startswith("and here: "):
                    at[(rel(n["file"], t), n["line"])].add(product(n["message"]))
        was = sampled(a.dir, a.judged, t)
        for fn in sorted(glob.glob(os.path.join(a.dir, f"{a.judged}-{t}*.jsonl"))):
            for line in open(fn):
                if not line.strip():
                    continue
                j = json.loads(line)
                v = j["verdict"]
                now = at.get((rel(j["file"], t), int(j["line"])), set())
                p = was.get(j["id"])
                hit = (p in now) if p else bool(now)
                tot[v] += 1
                rep[v] += hit
                other[v] += bool(now) and not hit
                rows.append((t, j["id"], v, hit, rel(j["file"], t), j["line"]))
    for v in ["real", "extreme", "cannot", "missed"]:
        extra = f"  (+{other[v]} other product on the line)" if other[v] else ""
        print(f"{v:8s} reported {rep[v]}/{tot[v]}{extra}")
    if a.list:
        for r in rows:
            print(*r)


if __name__ == "__main__":
    main()
