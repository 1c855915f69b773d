#!/usr/bin/env python3
"""Rewrites the golden text of existing `CHECK:` lines in a lit test from
kvlint's current output. It only touches a CHECK line that sits right above
(or is followed by [[@LINE+N]] pointing at) a line kvlint flags, so which
lines are expected stays a human decision: a CHECK whose line is no longer
flagged is left alone and the test fails; a new finding without a CHECK
fails through --implicit-check-not. Review the diff before committing.

usage: tools/dev/regen-checks.py build/bin/kvlint test/KV001/foo.cu [kvlint args...]
"""
import json
import re
import subprocess
import sys

kvlint, path, *extra = sys.argv[1:]
out = subprocess.run([kvlint, "--format=json", *extra, path], capture_output=True, text=True)
findings = json.loads(out.stdout)["findings"]
by_line = {}
for f in findings:
    by_line.setdefault(f["line"], []).append(f)
lines = open(path).read().split("\n")
comment = "#" if path.endswith(".py") else "//"
pat = re.compile(r"^(\s*)" + re.escape(comment) + r" CHECK(-NEXT)?: .*\[\[@LINE\+(\d+)\]\]")
name = path.split("/")[-1]
for i, l in enumerate(lines):
    m = pat.match(l)
    if not m:
        continue
    target = i + 1 + int(m.group(3))
    fs = by_line.get(target)
    if not fs:
        continue
    f = fs.pop(0)
    lines[i] = "%s%s CHECK%s: %s:[[@LINE+%s]]:%d: warning: %s [%s]" % (
        m.group(1), comment, m.group(2) or "", name, m.group(3), f["column"],
        f["message"].replace("{{", "{{[{][{]}}").replace("[[", "{{[[][[]}}"),
        f["check"])
open(path, "w").write("\n".join(lines))
