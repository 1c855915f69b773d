#!/usr/bin/env python3
"""Which judged KV001 sites does a scan still report?

usage: cmp.py [--dir DIR] JUDGED_PREFIX SCAN_TAG [--list]

Reads DIR/<JUDGED_PREFIX>-<tree>*.jsonl (one verdict per line: id, file, line,
verdict = real | extreme | cannot | missed, ...) and DIR/<SCAN_TAG>-<tree>.json
(kvlint --format=json over /work/trees/<tree>), and prints, per verdict, how
many judged sites have a KV001 finding on the same file and line.
See docs/precision.md (KV001, Method) and tools/eval/JUDGING.md.
"""
import argparse
import collections
import glob
import json
import os

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
    tot, rep, rows = collections.Counter(), collections.Counter(), []
    for t in TREES:
        scan = os.path.join(a.dir, f"{a.scan}-{t}.json")
        found = json.load(open(scan))["findings"]
        at = {(rel(f["file"], t), f["line"]) for f in found if f["code"] == "KV001"}
        for fn in sorted(glob.glob(os.path.join(a.dir, f"{a.judged}-{t}*.jsonl"))):
            for line in open(fn):
                if not line.strip():
                    continue
                j = json.loads(line)
                v = j["verdict"]
                hit = (rel(j["file"], t), int(j["line"])) in at
                tot[v] += 1
                rep[v] += hit
                rows.append((t, j["id"], v, hit, rel(j["file"], t), j["line"]))
    for v in ["real", "extreme", "cannot", "missed"]:
        print(f"{v:8s} reported {rep[v]}/{tot[v]}")
    if a.list:
        for r in rows:
            print(*r)


if __name__ == "__main__":
    main()
