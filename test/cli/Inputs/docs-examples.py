# Runs every configuration example of docs/cli.md and docs/envelope.md
# through kvlint: each ```yaml block by the file its first comment names
# (.kvlint.yaml: --config; deploy.yaml: --envelope, both parsed whole before
# --list-rules; .clang-tidy: found beside a scanned file), and each --option=, --checks= and --level example.
# Prints one line per failure and a count; exits 1 on any failure.
import os, re, subprocess, sys, textwrap

kvlint, docs, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
runs, failed = 0, 0

def run(args, what):
    global runs, failed
    runs += 1
    p = subprocess.run([kvlint] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: findings, not a config error
        failed += 1
        print("FAIL %s: %s" % (what, p.stderr.strip()))

texts = {f: open(os.path.join(docs, f), encoding="utf-8").read() for f in ("cli.md", "envelope.md")}
blocks = [(f, textwrap.dedent(b)) for f, t in texts.items()
          for b in re.findall(r"```ya?ml\n(.*?)```", t, re.S)]
envelope = next(b for _, b in blocks if b.startswith("# deploy.yaml"))
for i, (f, b) in enumerate(blocks):
    head = b.splitlines()[0]
    d = os.path.join(tmp, "block%d" % i)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "k.cu"), "w").write("int x;\n")
    open(os.path.join(d, "envelope.yaml"), "w").write(envelope)
    if head.startswith("# .kvlint.yaml"):
        open(os.path.join(d, "config.yaml"), "w").write(b)
        run(["--config", os.path.join(d, "config.yaml"), "--list-rules"], "%s: %s" % (f, head))
    elif head.startswith("# deploy.yaml"):
        run(["--envelope", os.path.join(d, "envelope.yaml"), "--list-rules"], "%s: %s" % (f, head))
    elif head.startswith("# .clang-tidy"):
        open(os.path.join(d, ".clang-tidy"), "w").write(b)
        run([d], "%s: %s" % (f, head))
    elif not head.startswith("# GitHub Actions"):
        failed += 1
        print("FAIL %s: a yaml example whose first line names no file: %s" % (f, head))
flags = set()
for t in texts.values():
    flags |= set(re.findall(r"(--(?:option|checks|level)[= ][^\s`|)]+)", t))
for fl in sorted(flags):
    if "KEY=VALUE" in fl or "LIST" in fl or fl.endswith("\\"):
        continue  # the usage line, not an example
    run(fl.split(" ", 1) + ["--list-rules"], fl)
print("checked %d examples, %d failed" % (runs, failed))
sys.exit(1 if failed else 0)
