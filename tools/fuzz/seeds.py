#!/usr/bin/env python3
"""Writes the hostile seeds of kvlint's fuzz targets (tools/fuzz.sh runs it).

  python3 tools/fuzz/seeds.py OUT   ->  OUT/{triton,clang,driver}/<name>

Each seed is small (under the targets' -max_len) but has the shape that
crashed or stalled kvlint before (issue 25): deep nesting, long def-use
chains, long identifiers, odd encodings and line endings, option-like file
names. libFuzzer grows them from there. Generated rather than committed, so
the repository holds the recipe, not the bytes.
"""
import os
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "seeds"

CU_HEAD = "__global__ void k(const int *table, float *cache, int stride, int x) {\n"
PY_HEAD = ("import triton\nimport triton.language as tl\n\n@triton.jit\n"
           "def k(table, cache, stride, x):\n")


def cu(body):
    return CU_HEAD + body + "}\n"


def py(body):
    return PY_HEAD + body


SEEDS = {
    "clang": {
        "neg": cu("  cache[" + "-" * 700 + "x] = 1;\n"),
        "incdec": cu("  int y = x;\n  cache[" + "--" * 300 + "y] = 1;\n"),
        "parens": cu("  cache[" + "(" * 300 + "x" + ")" * 300 + "] = 1;\n"),
        "ternary": cu("  cache[" + "".join("x == %d ? %d : " % (i, i) for i in range(150)) + "0] = 1;\n"),
        "elseif": cu("  int r = 0;\n  if (x == 0) r = 1;\n" +
                     "".join("  else if (x == %d) r = %d;\n" % (i, i) for i in range(1, 120)) +
                     "  cache[r * stride] = 1;\n"),
        "sum": cu("  cache[" + "+".join("x" for _ in range(1200)) + "] = 1;\n"),
        "chain": cu("  int a0 = table[blockIdx.x];\n" +
                    "".join("  int a%d = a%d + 1;\n" % (i, i - 1) for i in range(1, 200)) +
                    "  cache[a199 * stride] = 1;\n"),
        "offs": cu("  int off = table[blockIdx.x] * stride;\n" + "  off += stride;\n" * 250 +
                   "  cache[off] = 1;\n"),
        "double": cu("  int a0 = table[blockIdx.x];\n" +
                     "".join("  int a%d = a%d + a%d;\n" % (i, i - 1, i - 1) for i in range(1, 40)) +
                     "  cache[a39 * stride] = 1;\n"),
        "loop": cu("  int off = 0;\n  for (int i = 0; i < x; ++i) {\n" +
                   "    off += table[i] * stride;\n" * 60 + "  }\n  cache[off] = 1;\n"),
        "longname": cu("  int " + "p" * 2000 + " = table[blockIdx.x];\n  cache[" + "p" * 2000 +
                       " * stride] = 1;\n"),
        "cr": cu("  int page = table[blockIdx.x];\n  cache[page * stride] = 1;\n").replace("\n", "\r"),
        "latin1": cu("  int p\xe4ge = table[blockIdx.x];\n  cache[p\xe4ge * stride] = 1;\n"),
        "launch": cu("  cache[table[blockIdx.x] * stride] = 1;\n") +
                  "void run(const int *t, float *c, int s, int n) { k<<<" + "(" * 120 + "n" +
                  ")" * 120 + ", 128>>>(t, c, s, n); }\n",
    },
    "triton": {
        "neg": py("    tl.store(cache + " + "-" * 700 + "x, 1)\n"),
        "parens": py("    tl.store(cache + " + "(" * 400 + "x" + ")" * 400 + ", 1)\n"),
        "sum": py("    tl.store(cache + " + "+".join("x" for _ in range(1200)) + ", 1)\n"),
        "chain": py("    a0 = tl.load(table + tl.program_id(0))\n" +
                    "".join("    a%d = a%d + 1\n" % (i, i - 1) for i in range(1, 200)) +
                    "    tl.store(cache + a199 * stride, 1)\n"),
        "offs": py("    off = tl.load(table + tl.program_id(0)) * stride\n" +
                   "    off += stride\n" * 250 + "    tl.store(cache + off, 1)\n"),
        "elif": py("    r = 0\n    if x == 0:\n        r = 1\n" +
                   "".join("    elif x == %d:\n        r = %d\n" % (i, i) for i in range(1, 100)) +
                   "    tl.store(cache + r * stride, 1)\n"),
        "where": py("    tl.store(cache + " + "tl.where(x > 0, " * 150 + "x" + ", 0)" * 150 + ", 1)\n"),
        "nested-if": py("".join("    " * (i + 1) + "if x > %d:\n" % i for i in range(40)) +
                        "    " * 41 + "tl.store(cache + x * stride, 1)\n"),
        "tuple": py("    " + "(" * 200 + "a" + ", b)" * 200 + " = x\n    tl.store(cache + a, 1)\n"),
        "longname": py("    " + "p" * 2000 + " = tl.load(table + tl.program_id(0))\n"
                       "    tl.store(cache + " + "p" * 2000 + " * stride, 1)\n"),
        "cr": py("    page = tl.load(table + tl.program_id(0))\n"
                 "    tl.store(cache + page * stride, 1)\n").replace("\n", "\r"),
        "crlf": py("    page = tl.load(table + tl.program_id(0))\n"
                   "    tl.store(cache + page * stride, 1)\n").replace("\n", "\r\n"),
        "latin1": "# -*- coding: latin-1 -*-\n" + py("    p\xe4ge = tl.load(table + tl.program_id(0))\n"
                                                      "    tl.store(cache + p\xe4ge * stride, 1)\n"),
        "cookie-other": "# vim: set fileencoding=koi8-r :\n" + py("    tl.store(cache + x, 1)\n"),
        "launch": py("    tl.store(cache + tl.load(table + tl.program_id(0)) * stride, 1)\n") +
                  "\ndef host(t, c, s, n):\n    k[(" + "(" * 200 + "n" + ")" * 200 + ",)](t, c, s, n)\n",
    },
    "driver": {
        "options": "@@ --config=x/y.cu\n" + cu("  cache[table[blockIdx.x] * stride] = 1;\n") +
                   "@@ -x.cu\n" + cu("  cache[x] = 1;\n") +
                   "@@ x/y.cu\n-MD -MF kvlint-fuzz-pwned\n",
        "config": "@@ .kvlint.yaml\nChecks: \"-*,KV001\"\nCheckOptions:\n  - key: Level\n    value: latent\n"
                  "@@ sub/.clang-tidy\nChecks: '-*'\n"
                  "@@ sub/k.cu\n" + cu("  cache[table[blockIdx.x] * stride] = 1;\n"),
        "envelope": "@@ .kvlint.yaml\nEnvelope: env.yaml\nBaseline: base.json\n"
                    "@@ env.yaml\nKvPages: 0\nStride: -5\n"
                    "@@ base.json\n{\"version\":1,\"findings\":[]}\n"
                    "@@ k.py\n" + py("    tl.store(cache + tl.load(table + tl.program_id(0)) * stride, 1)\n"),
        "names": "@@ " + "n" * 200 + ".cu\n" + cu("  cache[x] = 1;\n") +
                 "@@ a/b/c/d.py\n" + py("    tl.store(cache + x, 1)\n") +
                 "@@ \xff\xfe.cu\n" + cu("  cache[x] = 1;\n"),
    },
}


def main():
    for target, seeds in SEEDS.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for name, text in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(text.encode("latin-1"))


if __name__ == "__main__":
    main()
