//===- ProjectTest.cpp - the project model's link step and reachability ---===//
#include "project/Project.h"

#include <gtest/gtest.h>

#include <map>

using namespace kvlint;
using namespace kvlint::project;

namespace {

#ifdef KVLINT_HAVE_TRITON
/// A model of in-memory files (path relative to /p -> source).
ProjectModel model(const std::map<std::string, std::string> &Files, bool Tests = false) {
  std::vector<FileSummary> S;
  for (const auto &F : Files)
    S.push_back(summarisePython("/p/" + F.first, F.second));
  ProjectModel M;
  ProjectConfig C;
  C.Root = "/p";
  C.IncludeTests = Tests;
  M.build(std::move(S), C);
  return M;
}

const char *Kernel = "import triton\n@triton.jit\ndef _k(p):\n    pass\n";

TEST(ProjectLink, ModuleNames) {
  ProjectModel M = model({{"pkg/__init__.py", ""},
                          {"pkg/sub/__init__.py", ""},
                          {"pkg/sub/m.py", ""},
                          {"src/lib/__init__.py", ""},
                          {"loose.py", ""}});
  EXPECT_EQ(M.moduleOf("/p/pkg/__init__.py"), "pkg");
  EXPECT_EQ(M.moduleOf("/p/pkg/sub/m.py"), "pkg.sub.m");
  EXPECT_EQ(M.moduleOf("/p/src/lib/__init__.py"), "lib");
  EXPECT_EQ(M.moduleOf("/p/loose.py"), "loose");
}

TEST(ProjectLink, RelativeAliasAndReexport) {
  ProjectModel M = model({{"pkg/__init__.py", "from .a import f as g\nfrom . import b\n"},
                          {"pkg/a.py", "def f():\n    pass\n"},
                          {"pkg/b.py", "from .a import f\nimport pkg.a as pa\n"},
                          {"user.py", "import pkg\nfrom pkg import g\n"}});
  EXPECT_EQ(M.resolve("/p/pkg/__init__.py", "g"), std::vector<std::string>{"pkg.a:f"});
  EXPECT_EQ(M.resolve("/p/pkg/b.py", "f"), std::vector<std::string>{"pkg.a:f"});
  EXPECT_EQ(M.resolve("/p/pkg/b.py", "pa.f"),
            (std::vector<std::string>{"pkg.a", "pkg.a:f"}));
  EXPECT_EQ(M.resolve("/p/user.py", "g"), std::vector<std::string>{"pkg.a:f"});
  EXPECT_EQ(M.resolve("/p/user.py", "pkg.b"), (std::vector<std::string>{"pkg", "pkg.b"}));
  EXPECT_EQ(M.resolve("/p/user.py", "pkg.g"), (std::vector<std::string>{"pkg", "pkg.a:f"}));
}

TEST(ProjectLink, AbsoluteDottedImport) {
  ProjectModel M = model({{"pkg/__init__.py", ""},
                          {"pkg/x/__init__.py", ""},
                          {"pkg/x/y.py", "def h():\n    pass\n"},
                          {"use.py", "import pkg.x.y\npkg.x.y.h()\n"}});
  EXPECT_EQ(M.resolve("/p/use.py", "pkg.x.y.h"),
            (std::vector<std::string>{"pkg", "pkg.x.y", "pkg.x.y:h"}));
}

TEST(ProjectLink, Wildcard) {
  ProjectModel M = model({{"pkg/__init__.py", "from .a import *\n"},
                          {"pkg/a.py", "def f():\n    pass\ndef _p():\n    pass\n"}});
  EXPECT_EQ(M.resolve("/p/pkg/__init__.py", "f"), std::vector<std::string>{"pkg.a:f"});
  EXPECT_TRUE(M.resolve("/p/pkg/__init__.py", "_p").empty());
}

TEST(ProjectReach, WrapperChainToLaunch) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .api import run\n"},
       {"pkg/api.py", "from ._impl import _go\ndef run(x):\n    _go(x)\n"},
       {"pkg/_impl.py", std::string(Kernel) + "def _go(x):\n    _k[(1,)](x)\n"}});
  ProjectModel::Verdict V = M.reach("/p/pkg/_impl.py", "_k");
  EXPECT_TRUE(V.Known);
  EXPECT_TRUE(V.Reached);
}

TEST(ProjectLaunches, ForeignLaunchesByResolvedName) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .ops import run\n"},
       {"pkg/_kernels/__init__.py", ""},
       {"pkg/_kernels/k.py", std::string(Kernel) + "def own(x):\n    _k[(4,)](x)\n"},
       {"pkg/ops.py", "from ._kernels.k import _k\nfrom ._kernels import k as km\n"
                      "def run(x):\n    _k[(1,)](x)\n    km._k[(2,)](x)\n"},
       {"pkg/other.py", "def _k(x):\n    pass\ndef f(x):\n    _k[(1,)](x)\n"}});
  std::vector<ProjectModel::ForeignLaunch> L = M.foreignLaunches("/p/pkg/_kernels/k.py", "_k");
  ASSERT_EQ(L.size(), 1u); // the kernel's own file and other.py's own _k are not foreign
  EXPECT_EQ(L[0].File, "/p/pkg/ops.py");
  EXPECT_EQ(L[0].Callees, (std::vector<std::string>{"_k", "km._k"}));
  EXPECT_TRUE(M.foreignLaunches("/p/pkg/other.py", "_k").empty()); // not a kernel
}

TEST(ProjectReach, NeverImported) {
  ProjectModel M = model({{"pkg/__init__.py", ""},
                          {"pkg/dead.py", std::string(Kernel) + "def go(x):\n    _k[(1,)](x)\n"}});
  ProjectModel::Verdict V = M.reach("/p/pkg/dead.py", "_k");
  EXPECT_TRUE(V.Known);
  EXPECT_FALSE(V.Reached);
  EXPECT_NE(V.Why.find("module `pkg.dead` is never imported"), std::string::npos) << V.Why;
}

TEST(ProjectReach, OnlyTests) {
  std::map<std::string, std::string> Files = {
      {"pkg/__init__.py", ""},
      {"pkg/k.py", std::string(Kernel) + "def _go(x):\n    _k[(1,)](x)\n"},
      {"tests/test_k.py", "from pkg.k import _go\ndef test_go():\n    _go(1)\n"}};
  ProjectModel::Verdict V = model(Files).reach("/p/pkg/k.py", "_k");
  EXPECT_FALSE(V.Reached);
  EXPECT_NE(V.Why.find("only tests"), std::string::npos) << V.Why;
  EXPECT_NE(V.Why.find("tests/test_k.py"), std::string::npos) << V.Why;
  EXPECT_TRUE(model(Files, true).reach("/p/pkg/k.py", "_k").Reached);
}

TEST(ProjectReach, PublicModuleOnlyATestImports) {
  // A library's public module that only its test imports is API; a private
  // helper only the test calls is not.
  std::map<std::string, std::string> Files = {
      {"pkg/__init__.py", ""},
      {"pkg/loss.py", std::string(Kernel) + "def fused_loss(x):\n    _k[(1,)](x)\n"},
      {"pkg/_h.py", std::string(Kernel) + "def go(x):\n    _k[(1,)](x)\n"},
      {"tests/test_loss.py", "from pkg.loss import fused_loss\nfrom pkg._h import go\n"}};
  ProjectModel M = model(Files);
  EXPECT_TRUE(M.reach("/p/pkg/loss.py", "_k").Reached);
  EXPECT_FALSE(M.reach("/p/pkg/_h.py", "_k").Reached);
}

TEST(ProjectReach, PrivateHelperWithoutCaller) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from . import k\n"},
       {"pkg/k.py", std::string(Kernel) + "def _go(x):\n    _k[(1,)](x)\n"}});
  ProjectModel::Verdict V = M.reach("/p/pkg/k.py", "_k");
  EXPECT_FALSE(V.Reached);
  EXPECT_NE(V.Why.find("used only by `_go`"), std::string::npos) << V.Why;
}

TEST(ProjectReach, MainScriptAndRegisteredOp) {
  ProjectModel M = model(
      {{"pkg/__init__.py", ""},
       {"pkg/_ops.py", std::string(Kernel) +
                           "@torch.library.custom_op('x::y', mutates_args=())\n"
                           "def _y(x):\n    _k[(1,)](x)\n"},
       {"pkg/_imported.py", "from . import _ops\n"},
       {"pkg/_cli.py", "from ._imported import *\nif __name__ == '__main__':\n    pass\n"}});
  EXPECT_TRUE(M.reach("/p/pkg/_ops.py", "_k").Reached);
}

TEST(ProjectReach, ClassReachesMethods) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .f import Fn\n"},
       {"pkg/f.py", std::string(Kernel) + "class Fn(torch.autograd.Function):\n"
                                          "    @staticmethod\n"
                                          "    def forward(ctx, x):\n        _k[(1,)](x)\n"}});
  EXPECT_TRUE(M.reach("/p/pkg/f.py", "_k").Reached);
}
TEST(ProjectReach, DynamicImportByString) {
  // A registry imports its models by name (importlib.import_module with an
  // f-string) and a factory by a "module:attr" string.
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .registry import load\n"},
       {"pkg/registry.py", "import importlib\n"
                           "FACTORY = 'pkg.impl.fac:make'\n"
                           "def load(name):\n"
                           "    return importlib.import_module(f'pkg.models.{name}')\n"},
       {"pkg/models/__init__.py", ""},
       {"pkg/models/llama.py", std::string(Kernel) + "class Llama:\n"
                                                     "    def forward(self, x):\n"
                                                     "        _k[(1,)](x)\n"},
       {"pkg/impl/__init__.py", ""},
       {"pkg/impl/fac.py", std::string(Kernel) + "def make(x):\n    _k[(1,)](x)\n"},
       {"pkg/other/__init__.py", ""},
       {"pkg/other/m.py", std::string(Kernel) + "def go(x):\n    _k[(1,)](x)\n"}});
  EXPECT_TRUE(M.reach("/p/pkg/models/llama.py", "_k").Reached);
  EXPECT_TRUE(M.reach("/p/pkg/impl/fac.py", "_k").Reached);
  EXPECT_FALSE(M.reach("/p/pkg/other/m.py", "_k").Reached);
}

TEST(ProjectReach, LazyPackageImports) {
  // A package's __init__ imports its backends by `f"{__name__}.{m}"` in a
  // loop, and a lazy module `__getattr__` by `f".{m}"`: every module of
  // the package is reached; a plain prefix string ("pkg.") names nothing.
  ProjectModel M = model(
      {{"pkg/__init__.py", "import importlib\nfrom . import lazy\n"
                           "for m in ['a']:\n"
                           "    importlib.import_module(f'{__name__}.{m}')\n"},
       {"pkg/a.py", std::string(Kernel) + "def go(x):\n    _k[(1,)](x)\n"},
       {"pkg/lazy/__init__.py", "def __getattr__(n):\n"
                                "    return importlib.import_module(f'.{n}', __name__)\n"},
       {"pkg/lazy/b.py", std::string(Kernel) + "def go(x):\n    _k[(1,)](x)\n"},
       {"lib/__init__.py", "X = 'lib.'\n"},
       {"lib/c.py", std::string(Kernel) + "def go(x):\n    _k[(1,)](x)\n"}});
  EXPECT_TRUE(M.reach("/p/pkg/a.py", "_k").Reached);
  EXPECT_TRUE(M.reach("/p/pkg/lazy/b.py", "_k").Reached);
  EXPECT_FALSE(M.reach("/p/lib/c.py", "_k").Reached);
}

// The profile (Profile.cpp): a kernel behind an autograd.Function of another
// module is training; one a plain wrapper also launches is inference; a
// kernel only a test launches has no verdict.
TEST(ProjectProfile, AcrossModules) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .api import op, decode\n"},
       {"pkg/api.py", "from .fn import Fn\nfrom .k import shared\n"
                      "def op(x):\n    return Fn.apply(x)\n"
                      "def decode(x):\n    return shared(x)\n"},
       {"pkg/fn.py", "import torch\nfrom .k import fwd, shared\n"
                     "class Fn(torch.autograd.Function):\n"
                     "    @staticmethod\n    def forward(ctx, x):\n        return fwd(x) + shared(x)\n"
                     "    @staticmethod\n    def backward(ctx, d):\n        return fwd(d)\n"},
       {"pkg/k.py", "import triton\n@triton.jit\ndef _t(p):\n    pass\n"
                    "@triton.jit\ndef _s(p):\n    pass\n"
                    "@triton.jit\ndef _u(p):\n    pass\n"
                    "def fwd(x):\n    _t[(1,)](x)\n"
                    "def shared(x):\n    _s[(1,)](x)\n"
                    "def _unused(x):\n    _u[(1,)](x)\n"}});
  ProjectModel::ProfileVerdict T = M.profile("/p/pkg/k.py", "_t");
  EXPECT_EQ(T.Prof, Profile::Training);
  EXPECT_NE(T.Why.find("`Fn.forward` (pkg/fn.py:5)"), std::string::npos) << T.Why;
  EXPECT_EQ(M.profile("/p/pkg/k.py", "_s").Prof, Profile::Inference);
  EXPECT_EQ(M.profile("/p/pkg/k.py", "_u").Prof, Profile::Unknown);
  EXPECT_EQ(M.profile("/p/pkg/nothere.py", "_t").Prof, Profile::Unknown);
}

// What the callers of a launcher pass it, as a tensor (Callers.cpp):
// allocations with their sizes, through a wrapper, and every way the
// answer is "not known".
TEST(ProjectCallers, CallerTensors) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .layer import fwd\n"},
       {"pkg/layer.py",
        "import torch\nfrom .k import go, go_t, go_w\n"
        "def fwd(x, h, n):\n"
        "    s = torch.empty((h, n), dtype=torch.float32)\n"
        "    go(s)\n"
        "    go_w(x.new_zeros(h, 8).cuda())\n"
        "    t = torch.empty((h, n))\n"
        "    t = t.t()\n"
        "    go_t(t)\n"
        "    go_t(s)\n"},
       {"pkg/k.py", std::string(Kernel) +
                        "def go(o):\n    _k[(1,)](o)\n"
                        "def go_t(o):\n    _k[(1,)](o)\n"
                        "def _wrap(o):\n    _k[(1,)](o)\n"
                        "def go_w(o):\n    _wrap(o)\n"
                        "def _none(o):\n    _k[(1,)](o)\n"},
       {"tests/test_k.py", "import torch\nfrom pkg.k import _none\n"
                           "def test_none():\n    _none(torch.empty((4, 4)))\n"}});
  ProjectModel::CallerTensor T = M.callerTensor("/p/pkg/k.py", "go", "o");
  ASSERT_TRUE(T.Known);
  EXPECT_EQ(T.Sizes, (std::vector<std::string>{"h", "n"}));
  EXPECT_EQ(T.Calls, 1u);
  EXPECT_NE(T.Where.find("pkg/layer.py:5 allocates it (2-D, contiguous)"), std::string::npos)
      << T.Where;
  // Through the wrapper go_w: the wrapped function's parameter.
  T = M.callerTensor("/p/pkg/k.py", "_wrap", "o");
  ASSERT_TRUE(T.Known);
  EXPECT_EQ(T.Sizes, (std::vector<std::string>{"h", "8"}));
  // One call passes a transposed tensor (the binding that reaches it).
  EXPECT_FALSE(M.callerTensor("/p/pkg/k.py", "go_t", "o").Known);
  // Only a test calls it: no production caller.
  EXPECT_FALSE(M.callerTensor("/p/pkg/k.py", "_none", "o").Known);
  // A comparison is a positional argument, not a keyword one: `o` is the
  // transpose, not the allocation after it.
  ProjectModel M2 = model(
      {{"pkg/__init__.py", "from .layer import fwd\n"},
       {"pkg/layer.py", "import torch\nfrom .k import go3\n"
                        "def fwd(x, h, n):\n"
                        "    go3(n != 0, x.t(), torch.empty((h, n)))\n"},
       {"pkg/k.py", std::string(Kernel) + "def go3(f, o, p):\n    _k[(1,)](o)\n"}});
  EXPECT_FALSE(M2.callerTensor("/p/pkg/k.py", "go3", "o").Known);
  EXPECT_TRUE(M2.callerTensor("/p/pkg/k.py", "go3", "p").Known);
  // The wrapper on the chain is answered too; a parameter that is not there is not.
  EXPECT_TRUE(M.callerTensor("/p/pkg/k.py", "go_w", "o").Known);
  EXPECT_FALSE(M.callerTensor("/p/pkg/k.py", "go", "p").Known);
}

// A Function with a forward only proves nothing (an inference wrapper).
TEST(ProjectProfile, ForwardOnlyFunction) {
  ProjectModel M = model(
      {{"pkg/__init__.py", "from .fn import op\n"},
       {"pkg/fn.py", std::string(Kernel) + "class Fn(torch.autograd.Function):\n"
                                          "    def forward(ctx, x):\n        _k[(1,)](x)\n"
                                          "def op(x):\n    return Fn.apply(x)\n"}});
  EXPECT_EQ(M.profile("/p/pkg/fn.py", "_k").Prof, Profile::Inference);
}

// The tensor method x.cast(dtype) is a cast, as x.to(dtype) and tl.cast(x, dtype) are.
TEST(ProjectHelpers, CastMethodReturns) {
  FileSummary S = summarisePython(
      "/p/u.py", "import triton\nimport triton.language as tl\n"
                 "@triton.jit\ndef pid64(axis):\n    return tl.program_id(axis).cast(tl.int64)\n"
                 "@triton.jit\ndef w(x):\n    return x.cast(tl.uint32)\n");
  ASSERT_EQ(S.Defs.size(), 2u);
  using R = Definition::Return;
  EXPECT_EQ(S.Defs[0].Ret.Kind, R::ProgramId);
  EXPECT_EQ(S.Defs[0].Ret.Bits, 64u);
  EXPECT_EQ(S.Defs[1].Ret.Kind, R::Cast);
  EXPECT_EQ(S.Defs[1].Ret.Bits, 32u);
  EXPECT_FALSE(S.Defs[1].Ret.Signed);
}

// What a helper returns (Definition::Ret), and which imported names denote one.
TEST(ProjectHelpers, Returns) {
  FileSummary S = summarisePython(
      "/p/u.py", "import triton\nimport triton.language as tl\n"
                 "@triton.jit\ndef pid64(axis):\n    return tl.program_id(axis).to(tl.int64)\n"
                 "@triton.jit\ndef w(x):\n    return tl.cast(x, tl.uint32)\n"
                 "@triton.jit\ndef c():\n    return 0x100\n"
                 "@triton.jit\ndef mix(x, F: tl.constexpr):\n    if F:\n        return 1\n"
                 "    return 2\n"
                 "@triton.jit\ndef none(x):\n    tl.store(x, 1)\n");
  ASSERT_EQ(S.Defs.size(), 5u);
  using R = Definition::Return;
  EXPECT_EQ(S.Defs[0].Ret.Kind, R::ProgramId);
  EXPECT_EQ(S.Defs[0].Ret.Bits, 64u);
  EXPECT_EQ(S.Defs[0].Ret.Param, 0);
  EXPECT_EQ(S.Defs[1].Ret.Kind, R::Cast);
  EXPECT_EQ(S.Defs[1].Ret.Bits, 32u);
  EXPECT_FALSE(S.Defs[1].Ret.Signed);
  EXPECT_EQ(S.Defs[2].Ret.Kind, R::Const);
  EXPECT_EQ(S.Defs[2].Ret.Value, 256);
  EXPECT_EQ(S.Defs[3].Ret.Kind, R::None);
  EXPECT_EQ(S.Defs[4].Ret.Kind, R::None);
  ProjectModel M = model(
      {{"pkg/__init__.py", ""},
       {"pkg/u.py", "import triton\nimport triton.language as tl\n"
                    "@triton.jit\ndef pid64(axis):\n    return tl.program_id(axis).to(tl.int64)\n"},
       {"pkg/k.py", "import triton\nfrom pkg.u import pid64\nfrom other import far\n"
                    "@triton.jit\ndef _k(p):\n    a = pid64(0)\n    b = far(0)\n"}});
  const Definition *H = M.importedJit("/p/pkg/k.py", "pid64");
  ASSERT_NE(H, nullptr);
  EXPECT_EQ(H->Name, "pid64");
  EXPECT_EQ(M.importedJit("/p/pkg/k.py", "far"), nullptr);
}
#endif

// Functions that test or time code, by name (isTestFunctionName).
TEST(ProjectPaths, TestFunctions) {
  for (const char *N : {"test", "test_int8", "test2", "_test_correct", "benchmark", "bench_decode",
                        "__benchmark", "TestDecode"})
    EXPECT_TRUE(isTestFunctionName(N)) << N;
  for (const char *N : {"attest", "contest_kernel", "latest", "_", "", "run_test", "prebench"})
    EXPECT_FALSE(isTestFunctionName(N)) << N;
}

TEST(ProjectPaths, Tests) {
  EXPECT_TRUE(isTestPath("tests/a.py"));
  EXPECT_TRUE(isTestPath("pkg/test_a.py"));
  EXPECT_TRUE(isTestPath("benchmark/x/y.py"));
  EXPECT_FALSE(isTestPath("pkg/testing.py"));
  EXPECT_FALSE(isTestPath("contest/a.py"));
  EXPECT_TRUE(isTestPath("op_tests/triton_tests/utils/ref.py"));
  EXPECT_TRUE(isTestPath("op_benchmarks/a.py"));
  EXPECT_TRUE(isTestPath("test_lmdeploy/a.py"));
  EXPECT_FALSE(isTestPath("pkg/testing/a.py"));
  EXPECT_FALSE(isTestPath("pkg/latest/a.py"));
  EXPECT_FALSE(isTestPath("pkg/test_/a.py"));
}

} // namespace
