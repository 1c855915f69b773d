#!/usr/bin/env python3
"""Scores kvlint's KV001 on the held-out kernel set in tools/eval/heldout/.

The set was written for round 6 by two helpers that saw only the rule's and
the envelope's docs (docs/rules/KV001.md, docs/envelope.md), not kvlint's
code, tests or output: 37 CUDA and 35 Triton files, each product line keyed
in <dir>/key.json as "default" (wraps inside the envelope), "latent" (only
beyond it) or "silent" (can never wrap), with the reason in sizes.

    python3 tools/eval/heldout.py --kvlint build/bin/kvlint [--verbose]

Per directory: recall (default lines reported at the default level),
precision (of the default-level findings on keyed default and silent lines,
the default ones), latent lines reported at --level latent, and every
finding on an unkeyed line (none expected). Prints figures; asserts nothing.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def scan(kvlint, d, level):
    out = subprocess.run([kvlint, "--per-site", "--checks=KV001", "--format=json", f"--level={level}", d],
                         capture_output=True, text=True).stdout
    j = json.loads(out)
    return {(os.path.basename(f["file"]), f["line"]): f for f in j["findings"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kvlint", default="build/bin/kvlint")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    for sub in ("cuda", "triton"):
        d = os.path.join(HERE, "heldout", sub)
        key = json.load(open(os.path.join(d, "key.json")))
        D, L = scan(a.kvlint, d, "default"), scan(a.kvlint, d, "latent")
        keyed = {(k["file"], k["line"]) for k in key}
        c = collections.Counter()
        lines = []
        for k in key:
            kk = (k["file"], k["line"])
            e = k["expect"]
            if e == "default":
                c["default found" if kk in D else "default missed"] += 1
                if kk not in D:
                    lines.append(f"  missed   {k['file']}:{k['line']}  {k['why']}")
            elif e == "latent":
                c["latent at default" if kk in D else "latent found" if kk in L else "latent missed"] += 1
                if kk in D:
                    lines.append(f"  latent reported at default {k['file']}:{k['line']}  {k['why']}")
                elif kk not in L:
                    lines.append(f"  latent missed {k['file']}:{k['line']}  {k['why']}")
            else:
                if kk in D:
                    c["silent reported"] += 1
                    lines.append(f"  false    {k['file']}:{k['line']}  {k['why']}")
        unkeyed = [f for f in D if f not in keyed]
        nd = sum(1 for k in key if k["expect"] == "default")
        nl = sum(1 for k in key if k["expect"] == "latent")
        tp, fp = c["default found"], c["silent reported"]
        print(f"{sub}: {len(set(k['file'] for k in key))} files, {len(key)} keyed lines "
              f"({nd} default, {nl} latent, {len(key) - nd - nl} silent)")
        print(f"  default level: recall {tp}/{nd}, precision {tp}/{tp + fp}; latent lines: "
              f"{c['latent found']} at --level latent only, {c['latent at default']} already at "
              f"default, {c['latent missed']} missed; findings on unkeyed lines: {len(unkeyed)}")
        if a.verbose:
            for l in lines:
                print(l)
            for f in unkeyed:
                print(f"  unkeyed  {f[0]}:{f[1]}  {D[f]['message'][:120]}")


if __name__ == "__main__":
    sys.exit(main())
