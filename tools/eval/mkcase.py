#!/usr/bin/env python3
"""Build the local kvlint evaluation corpus from bare git mirrors (see README.md).

  mkcase.py rebuild [--manifest M]      re-extract every case listed in M from the mirrors
  mkcase.py ID MIRROR COMMIT PATH RULE LANG NOTE [--buggy 1,2] [--fixed 3,4] [--var v1,v2]
            [--tier index|param|launch] [--doubtful] [--url URL] [--parent P] [--after-path P2] [--extra JSON]
      add/replace one case: before = PATH at COMMIT^ (or --parent), after = PATH at COMMIT.
      Default buggy/fixed lines = all removed/added lines of the diff of PATH; with --var,
      the lines where one of the named variables is a factor of a product (plus --buggy/--fixed).

MIRROR is owner+name; the bare repository is $KVLINT_MIRRORS/owner+name/repo (default /work/.mirror).
The corpus goes to $KVLINT_EVAL_DIR (default /work/eval): cases/<id>/{before,after}.<ext>, manifest.json.
It holds fetched third-party code: keep it outside the repository and never commit it.
"""
import argparse, json, os, re, subprocess, sys
EVAL = os.environ.get("KVLINT_EVAL_DIR", "/work/eval")
MIRRORS = os.environ.get("KVLINT_MIRRORS", "/work/.mirror")

if len(sys.argv) > 1 and sys.argv[1] == "rebuild":
    rp = argparse.ArgumentParser(); rp.add_argument("cmd"); rp.add_argument("--manifest", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifest.json"))
    ra = rp.parse_args()
    man = json.load(open(ra.manifest)); bad = 0
    for e in man:
        M = os.path.join(MIRRORS, e["repo"].replace("/", "+"), "repo")
        ext = os.path.splitext(e["path"])[1]; cd = os.path.join(EVAL, "cases", e["id"]); os.makedirs(cd, exist_ok=True)
        try:
            for name, rev, p in (("before", e["parent"], e["path"]), ("after", e["commit"], e.get("after_path", e["path"]))):
                txt = subprocess.run(["git", "-C", M, "show", f"{rev}:{p}"], capture_output=True, text=True, check=True).stdout
                open(os.path.join(cd, name + ext), "w").write(txt)
            print("ok  ", e["id"])
        except Exception as ex:
            bad += 1; print("FAIL", e["id"], ex)
    json.dump(man, open(os.path.join(EVAL, "manifest.json"), "w"), indent=1)
    sys.exit(1 if bad else 0)
ap = argparse.ArgumentParser()
for a in ["id","mirror","commit","path","rule","lang","note"]: ap.add_argument(a)
ap.add_argument("--buggy"); ap.add_argument("--fixed"); ap.add_argument("--tier", default="index")
ap.add_argument("--doubtful", action="store_true"); ap.add_argument("--url"); ap.add_argument("--parent")
ap.add_argument("--after-path"); ap.add_argument("--repo"); ap.add_argument("--extra"); ap.add_argument("--var")
a = ap.parse_args()
M = os.path.join(MIRRORS, a.mirror, "repo")
g = lambda *x: subprocess.run(["git","-C",M,*x],capture_output=True,text=True,check=True).stdout
commit = g("rev-parse", a.commit).strip()
parent = g("rev-parse", a.parent or commit+"^").strip()
ap2 = a.after_path or a.path
before = g("show", f"{parent}:{a.path}"); after = g("show", f"{commit}:{ap2}")
d = g("diff","-U0",parent,commit,"--",a.path) if ap2==a.path else g("diff","-U0","-M",parent,commit,"--",a.path,ap2)
rem, add = [], []
for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", d, re.M):
    o,oc,n,nc = int(m[1]), int(m[2] or 1 if m[2] is None else m[2]), int(m[3]), int(m[4] if m[4] is not None else 1)
    rem += range(o, o+oc); add += range(n, n+nc)
parse = lambda s: [int(x) for x in s.split(",") if x] if s else None
buggy = parse(a.buggy) or rem; fixed = parse(a.fixed) or add
if a.var:
    vs = "|".join(a.var.split(","))
    pat = re.compile(r"(\b(%s)(\[[^\]]*\])?\s*\*(?!\*))|(\*\s*(%s)\b)|(\b(%s)\s*<<)" % (vs,vs,vs))
    use = lambda txt: [i+1 for i,l in enumerate(txt.splitlines()) if pat.search(l) and not l.lstrip().startswith("#")]
    buggy = sorted(set(parse(a.buggy) or []) | set(use(before)))
    fixed = sorted(set(parse(a.fixed) or []) | set(use(after)))
ext = os.path.splitext(a.path)[1]
cd = os.path.join(EVAL, "cases", a.id); os.makedirs(cd, exist_ok=True)
open(f"{cd}/before{ext}","w").write(before); open(f"{cd}/after{ext}","w").write(after)
repo = a.repo or a.mirror.replace("+","/")
ent = dict(id=a.id, repo=repo, commit=commit, parent=parent, path=a.path, rule=a.rule, lang=a.lang,
           buggy_lines=buggy, fixed_lines=fixed, url_or_ref=a.url or f"https://github.com/{repo}/commit/{commit}",
           note=a.note, tier=a.tier)
if ap2 != a.path: ent["after_path"] = ap2
if a.doubtful: ent["doubtful"] = True
if a.extra: ent.update(json.loads(a.extra))
mf = os.path.join(EVAL, "manifest.json")
man = json.load(open(mf)) if os.path.exists(mf) else []
man = [e for e in man if e["id"] != a.id] + [ent]
json.dump(man, open(mf,"w"), indent=1)
bl = before.splitlines(); al = after.splitlines()
print(f"{a.id}: {len(buggy)} buggy, {len(fixed)} fixed")
import signal; signal.signal(signal.SIGPIPE, signal.SIG_DFL)
for i in buggy: print(f"  -{i}: {bl[i-1] if i<=len(bl) else '?'}")
for i in fixed: print(f"  +{i}: {al[i-1] if i<=len(al) else '?'}")
