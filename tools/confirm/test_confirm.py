#===- test_confirm.py - CPU tests of the harness's own logic ---------------===#
"""python3 -m unittest discover -s tools/confirm -p 'test_*.py'

No torch, no triton, no GPU: spec parsing, size expressions, the 64-bit
reference arithmetic, canary layout and bit patterns, kernel extraction
(Triton and C++), the verdict, and that `run` skips cleanly without a GPU.
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import args as A  # noqa: E402
import canary  # noqa: E402
import cxx_extract  # noqa: E402
import kernel_source  # noqa: E402
import ref64  # noqa: E402
import runner  # noqa: E402
import spec as S  # noqa: E402
import stubs  # noqa: E402

GOOD = textwrap.dedent('''
    id = "t"
    tree = "tree"
    repo = "o/r"
    commit = "0123456789abcdef0123456789abcdef01234567"
    file = "k.py"
    line = 3
    kernel = "k"
    rule = "KV001"
    lang = "triton"
    product = "row * stride"
    [sizes]
    n = 0
    d = 4096
    [wrap]
    var = "n"
    at = 524289
    below = 524288
    stride = "d"
    [launch]
    mode = "kernel"
    grid = ["n"]
    args = ["Y", "X"]
    [tensors]
    X = { shape = ["n", "d"], dtype = "bfloat16", init = "rows", canary_lo = 2147483648 }
    Y = { shape = ["n", "d"] }
    [check]
    Y = "X"
''')


class SpecTest(unittest.TestCase):
    def test_good_spec(self):
        s = S.parse_text(GOOD, "good.toml")
        self.assertEqual(s["id"], "t")
        self.assertEqual(S.sizes_at(s, "at")["n"], 524289)
        self.assertEqual(S.sizes_at(s, "below")["n"], 524288)
        self.assertEqual(S.sizes_at(s, "at")["d"], 4096)

    def bad(self, old, new, msg):
        text = GOOD.replace(old, new, 1)
        self.assertNotEqual(text, GOOD)
        with self.assertRaises(S.SpecError) as cm:
            S.parse_text(text, "bad.toml")
        self.assertTrue(str(cm.exception).startswith("bad.toml: "), str(cm.exception))
        self.assertIn(msg, str(cm.exception))

    def test_errors_name_the_file_and_key(self):
        self.bad('rule = "KV001"', 'rule = "KV009"', "'rule'")
        self.bad('commit = "0123456789abcdef0123456789abcdef01234567"', 'commit = "abc"', "'commit'")
        self.bad("below = 524288", "below = 524289", "below < at")
        self.bad('var = "n"', 'var = "m"', "wrap.var")
        self.bad('file = "k.py"', 'file = "../k.py"', "'file'")
        self.bad('mode = "kernel"', 'mode = "eval"', "launch.mode")
        self.bad('Y = "X"', 'Z = "X"', "check.Z")
        self.bad('dtype = "bfloat16"', 'dtype = "bf17"', "dtype")
        self.bad('line = 3', 'line = "3"', "'line'")

    def test_not_toml(self):
        with self.assertRaises(S.SpecError) as cm:
            S.parse_text("id = ", "x.toml")
        self.assertIn("not TOML", str(cm.exception))

    def test_missing_key(self):
        with self.assertRaises(S.SpecError) as cm:
            S.parse_text(GOOD.replace('kernel = "k"\n', ""), "m.toml")
        self.assertIn("missing key 'kernel'", str(cm.exception))

    def test_committed_specs_parse(self):
        specs = S.load_dir(os.path.join(HERE, "findings"))
        self.assertGreaterEqual(len(specs), 10)
        for s in specs:
            # the wrap sizes kvlint's message implies: below runs unwrapped, at wraps
            if "stride" in s["wrap"]:
                at = S.sizes_at(s, "at")
                below = S.sizes_at(s, "below")
                stride = A.eval_size(s["wrap"]["stride"], at)
                first = ref64.first_wrapping(stride)
                self.assertLessEqual(below[s["wrap"]["var"]] - 1, first - 1, s["id"])
                self.assertFalse(ref64.wraps((below[s["wrap"]["var"]] - 1) * stride), s["id"])

    def test_duplicate_ids(self):
        with tempfile.TemporaryDirectory() as d:
            for n in ("a.toml", "b.toml"):
                with open(os.path.join(d, n), "w") as f:
                    f.write(GOOD)
            with self.assertRaises(S.SpecError):
                S.load_dir(d)


class SizeTest(unittest.TestCase):
    def test_arithmetic(self):
        sz = {"T": 1000, "H": 8}
        self.assertEqual(A.eval_size("cdiv(T, 64) * H", sz), 128)
        self.assertEqual(A.eval_size("next_power_of_2(T)", sz), 1024)
        self.assertEqual(A.eval_size("min(T, 10) + max(H, 9)", sz), 19)
        self.assertEqual(A.eval_size("2**31 // H", sz), 268435456)
        self.assertEqual(A.eval_size(17, sz), 17)

    def test_rejects_code(self):
        for bad in ("__import__('os')", "T.bit_length()", "open('x')", "T if H else 0", "[T]"):
            with self.assertRaises(A.ExprError):
                A.eval_size(bad, {"T": 1, "H": 2})
        with self.assertRaises(A.ExprError) as cm:
            A.eval_size("T * Q", {"T": 1})
        self.assertIn("unknown size 'Q'", str(cm.exception))

    def test_plan_counts_canaries(self):
        s = S.parse_text(GOOD, "good.toml")
        plan, nbytes = A.plan_tensors(s, S.sizes_at(s, "at"))
        names = {p[0]: p for p in plan}
        self.assertEqual(names["X"][1], [524289, 4096])
        self.assertEqual(names["X"][5], 2**31)     # lo canary as given
        self.assertEqual(names["Y"][5], 65536)     # the default
        n = 524289 * 4096
        self.assertEqual(nbytes, (n + 2**31 + 65536) * 2 + (n + 2 * 65536) * 2)


class Ref64Test(unittest.TestCase):
    def test_wrap(self):
        self.assertEqual(ref64.wrap(2**31), -2**31)
        self.assertEqual(ref64.wrap(2**31 - 1), 2**31 - 1)
        self.assertEqual(ref64.wrap(2**32 + 5), 5)
        self.assertEqual(ref64.wrap(2**32 + 5, signed=False), 5)
        self.assertEqual(ref64.wrap(-1, signed=False), 2**32 - 1)
        self.assertTrue(ref64.wraps(524288 * 4096))
        self.assertFalse(ref64.wraps(524287 * 4096 + 4095))

    def test_first_wrapping(self):
        self.assertEqual(ref64.first_wrapping(4096), 524288)
        self.assertEqual(ref64.first_wrapping(151936), 14135)   # a Qwen vocabulary row
        self.assertEqual(ref64.first_wrapping(8192, bits=32, signed=False), 524288)
        self.assertEqual(ref64.first_wrapping(100, extra=2**31), 0)
        # the in-row addend evaluated in 32 bits moves the first wrapping row down
        self.assertEqual(ref64.first_wrapping(4096, extra=4095), 524288)  # 524287 * 4096 + 4095 = 2^31 - 1
        self.assertEqual(ref64.first_wrapping(4096, extra=4096), 524287)
        with self.assertRaises(ValueError):
            ref64.first_wrapping(0)

    def test_landing(self):
        self.assertEqual(ref64.landing(524288, 4096, 524289 * 4096), ("before", -2**31))
        self.assertEqual(ref64.landing(3, 4096, 10 * 4096), ("inside", 3 * 4096))
        self.assertEqual(ref64.offset32(524288, 4096, 7), (-2**31 + 7, 2**31 + 7))
        self.assertEqual(list(ref64.wrapping_rows(524290, 4096)), [524288, 524289])

    def test_summary(self):
        self.assertIn("all 10 rows match", ref64.summarize_rows([], 5, 10))
        s = ref64.summarize_rows([524288], 524288, 524289)
        self.assertIn("1 of 524289 rows differ from row 524288", s)
        self.assertNotIn("MISMATCH", s)
        self.assertIn("MISMATCH", ref64.summarize_rows([0, 524288], 524288, 524289))


class CanaryTest(unittest.TestCase):
    def test_layout(self):
        lay = canary.Layout(100, lo=10, hi=5)
        self.assertEqual(lay.total, 115)
        self.assertEqual(lay.region("lo"), (0, 10))
        self.assertEqual(lay.region("tensor"), (10, 110))
        self.assertEqual(lay.region("hi"), (110, 115))
        self.assertEqual(lay.relative(0), -10)
        with self.assertRaises(ValueError):
            canary.Layout(-1)

    def test_patterns_match_the_cuda_drivers(self):
        # the drivers memset the pads to the byte 0x5A: same bits at every width
        for size, bits in canary.CANARY_BITS.items():
            self.assertEqual(bits.to_bytes(size, "little"), b"\x5a" * size)
        self.assertEqual(canary.signed_bits(0x5A5A, 2), 0x5A5A)
        self.assertEqual(canary.signed_bits(0xA5A5, 2), 0xA5A5 - 0x10000)

    def test_changed_and_describe(self):
        c = canary.CANARY_BITS[2]
        pad = [c] * 8
        self.assertEqual(canary.changed_indices(pad, c), [])
        pad[3] = 0
        pad[6] = 1
        self.assertEqual(canary.changed_indices(pad, c), [3, 6])
        lay = canary.Layout(100, lo=8, hi=8)
        self.assertEqual(canary.describe(lay, (0, None), (0, None)), "canaries intact")
        d = canary.describe(lay, (2, 3), (0, None))
        self.assertIn("low canary: 2 elements changed, first at offset -5", d)


class KernelSourceTest(unittest.TestCase):
    SRC = textwrap.dedent('''\
        import triton
        import triton.language as tl
        from somewhere import helper
        BLOCK = 64
        NAME = helper()

        @triton.autotune(configs=CONFIGS, key=["n"])
        @triton.jit
        def kern(x, n, B: tl.constexpr):
            pid = tl.program_id(0)
            tl.store(x + pid * n, 0)

        if NEW_TRITON:
            @triton.jit
            def softplus(v):
                return v
        else:
            @triton.jit
            def softplus(v):
                return -v

        def host():
            return 1
        ''')

    def test_functions_and_lines(self):
        fns = kernel_source.jit_functions(self.SRC)
        self.assertEqual(set(fns), {"kern", "softplus"})
        text = kernel_source.kernel_module_source(self.SRC)
        lines = text.splitlines()
        # each function keeps its upstream line (Triton errors name upstream lines)
        self.assertEqual(lines[8], "def kern(x, n, B: tl.constexpr):")
        self.assertEqual(lines[10], "    tl.store(x + pid * n, 0)")
        self.assertIn("def softplus(v):\n    return v\n", text)      # the first branch, dedented
        self.assertNotIn("return -v", text)
        self.assertNotIn("autotune", text)
        self.assertNotIn("def host", text)
        self.assertIn("BLOCK = 64", text)
        self.assertNotIn("NAME = helper()", text)
        compile(text, "k.py", "exec")


class CxxExtractTest(unittest.TestCase):
    SRC = textwrap.dedent('''\
        #include "torch/all.h"
        namespace vllm {
        // a declaration first
        template <typename T> __global__ void k(T* out, int n);
        /* comment with } brace */
        template <typename T>
        __global__ void k(T* out, int n) {
          if (n) { out[blockIdx.x * n] = T(0); }
          const char* s = "}";
        }
        void host(torch::Tensor& t) { k<float><<<1, 1>>>(nullptr, 0); }
        }
        ''')

    def test_extract(self):
        text, line = cxx_extract.extract_function(self.SRC, "k")
        self.assertEqual(line, 6)
        self.assertTrue(text.startswith("template <typename T>\n__global__ void k("))
        self.assertTrue(text.endswith('const char* s = "}";\n}'))
        self.assertNotIn("host", text)

    def test_header(self):
        h = cxx_extract.kernel_header(self.SRC, ["k"], ["vllm"], "f.cu")
        self.assertIn('#line 6 "f.cu"', h)
        self.assertTrue(h.rstrip().endswith("}  // namespace vllm"))
        with self.assertRaises(cxx_extract.ExtractError):
            cxx_extract.extract_function(self.SRC, "missing")


class VerdictTest(unittest.TestCase):
    def runs(self, ub, ua, fb, fa):
        return {("upstream", "below"): {"outcome": ub}, ("upstream", "at"): {"outcome": ua},
                ("fixed", "below"): {"outcome": fb}, ("fixed", "at"): {"outcome": fa}}

    def test_verdicts(self):
        self.assertEqual(runner.verdict(self.runs("ok", "fault", "ok", "ok"))[0], "confirmed")
        self.assertEqual(runner.verdict(self.runs("ok", "wrong", "ok", "ok"))[0], "confirmed")
        self.assertEqual(runner.verdict(self.runs("ok", "ok", "ok", "ok"))[0], "not reproduced")
        self.assertEqual(runner.verdict(self.runs("ok", "wrong", "ok", "wrong"))[0], "fix failed")
        self.assertEqual(runner.verdict(self.runs("wrong", "wrong", "ok", "ok"))[0], "could not run")
        self.assertEqual(runner.verdict(self.runs("ok", "error", "ok", "ok"))[0], "could not run")
        self.assertEqual(runner.verdict({})[0], "could not run")

    def test_child_output(self):
        r = runner.parse_child('noise\nCONFIRM {"outcome": "ok", "detail": "x"}\n', 0)
        self.assertEqual(r["outcome"], "ok")
        r = runner.parse_child("", 1, "RuntimeError: CUDA error: an illegal memory access was encountered")
        self.assertEqual(r["outcome"], "fault")
        r = runner.parse_child("", 1, "ImportError: no module x")
        self.assertEqual(r["outcome"], "error")
        self.assertIn("rc 1", r["detail"])


class StubsTest(unittest.TestCase):
    def test_attrs(self):
        self.assertEqual(stubs.parse_attrs("NULL_BLOCK_ID=0,PAD=-1, X=None"),
                         {"NULL_BLOCK_ID": 0, "PAD": -1, "X": None})
        with self.assertRaises(ValueError):
            stubs.parse_attrs("NOVALUE")
        p = stubs.Platform()
        self.assertFalse(p.is_rocm())
        self.assertTrue(p.has_device_capability(80))
        self.assertFalse(p.is_device_capability_family(100))


class GpuSkipTest(unittest.TestCase):
    def test_run_skips_without_gpu(self):
        env = dict(os.environ, PATH="/nonexistent")  # no nvidia-smi
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([sys.executable, os.path.join(HERE, "confirm.py"), "run", "--stage", d],
                               capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("GPU runs skipped", p.stdout)

    def test_prepare_reports_a_bad_spec(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "x.toml"), "w") as f:
                f.write(GOOD.replace('rule = "KV001"', 'rule = "nope"'))
            p = subprocess.run([sys.executable, os.path.join(HERE, "confirm.py"), "prepare", "--stage",
                                os.path.join(d, "stage"), "--findings", d], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("x.toml: 'rule'", p.stderr)


if __name__ == "__main__":
    unittest.main()
