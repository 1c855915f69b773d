//===- CacheTest.cpp - the scan's cache: encodings and hostile entries ----===//
//
// The summary encoding round-trips every field (a field added to Summary.h
// without SummaryIO.cpp fails here, or at SummaryIO.cpp's static_asserts);
// entries read back from a cache folder are untrusted: every truncation and
// byte flip of a pack, a summary or a result is a miss, never a crash; the
// folder is never used through a symlink, and --clean-cache removes only a
// folder kvlint tagged.
//
//===----------------------------------------------------------------------===//
#include "Cache.h"
#include "Wire.h"
#include "project/Project.h"
#include "project/SummaryIO.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace kvlint;
using namespace kvlint::project;
namespace fs = std::filesystem;

namespace {

/// Every field of a summary, compared. Keep in step with Summary.h.
void expectSame(const FileSummary &A, const FileSummary &B) {
  EXPECT_EQ(A.Path, B.Path);
  ASSERT_EQ(A.Defs.size(), B.Defs.size());
  for (size_t I = 0; I < A.Defs.size(); ++I) {
    const Definition &X = A.Defs[I], &Y = B.Defs[I];
    EXPECT_EQ(X.Kind, Y.Kind);
    EXPECT_EQ(X.Name, Y.Name);
    EXPECT_EQ(X.Owner, Y.Owner);
    EXPECT_EQ(X.Line, Y.Line);
    EXPECT_EQ(X.EndLine, Y.EndLine);
    EXPECT_EQ(X.Kernel, Y.Kernel);
    EXPECT_EQ(X.Registered, Y.Registered);
    EXPECT_EQ(X.Bases, Y.Bases);
    EXPECT_EQ(X.Decorators, Y.Decorators);
    EXPECT_EQ(X.Refs, Y.Refs);
    EXPECT_EQ(X.Strings, Y.Strings);
    EXPECT_TRUE(X.Ret.sameFact(Y.Ret));
    EXPECT_EQ(X.Ret.ParamName, Y.Ret.ParamName);
  }
  ASSERT_EQ(A.Imports.size(), B.Imports.size());
  for (size_t I = 0; I < A.Imports.size(); ++I) {
    const Import &X = A.Imports[I], &Y = B.Imports[I];
    EXPECT_EQ(X.Module, Y.Module);
    EXPECT_EQ(X.Level, Y.Level);
    EXPECT_EQ(X.Name, Y.Name);
    EXPECT_EQ(X.Local, Y.Local);
    EXPECT_EQ(X.Scope, Y.Scope);
    EXPECT_EQ(X.Line, Y.Line);
  }
  ASSERT_EQ(A.Calls.size(), B.Calls.size());
  for (size_t I = 0; I < A.Calls.size(); ++I) {
    const CallSite &X = A.Calls[I], &Y = B.Calls[I];
    EXPECT_EQ(X.Scope, Y.Scope);
    EXPECT_EQ(X.Callee, Y.Callee);
    EXPECT_EQ(X.Args, Y.Args);
    EXPECT_EQ(X.ArgTensors, Y.ArgTensors);
    EXPECT_EQ(X.Grid, Y.Grid);
    EXPECT_EQ(X.Launch, Y.Launch);
    EXPECT_EQ(X.Line, Y.Line);
  }
  EXPECT_EQ(A.ModuleRefs, B.ModuleRefs);
  EXPECT_EQ(A.ModuleStrings, B.ModuleStrings);
  EXPECT_EQ(A.Constants, B.Constants);
  EXPECT_EQ(A.HasMain, B.HasMain);
  EXPECT_EQ(A.HasAll, B.HasAll);
  EXPECT_EQ(A.All, B.All);
  EXPECT_EQ(A.Parsed, B.Parsed);
}

/// A summary with every field set to something other than its default.
FileSummary everyField() {
  FileSummary S;
#ifdef KVLINT_HAVE_TRITON
  S = summarisePython("/p/pkg/mod.py", R"py(
import triton
import triton.language as tl
from .util import helper as h
from . import other
from pkg.star import *
import importlib

__all__ = ["run", "Fn"]
BLOCK = 128
NAME = "pkg.models.llama"


@triton.jit
def _ret64(x):
    return x.to(tl.int64)


@triton.jit
def _pid(axis):
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def _kernel(cache, ids, BLOCK: tl.constexpr):
    t = _pid(0)
    tl.store(cache + tl.load(ids + t) * BLOCK, 0)


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        import pkg.late
        _kernel[(x.shape[0],)](x, x, BLOCK=BLOCK)
        return h(x)


@torch.library.custom_op("pkg::run", mutates_args=())
def run(x):
    m = importlib.import_module(f"pkg.models.{x}")
    return Fn.apply(x)


if __name__ == "__main__":
    run(None)
)py");
  EXPECT_TRUE(S.Parsed);
  EXPECT_TRUE(S.HasMain);
  EXPECT_TRUE(S.HasAll);
  EXPECT_FALSE(S.Defs.empty());
  EXPECT_FALSE(S.Calls.empty());
  EXPECT_FALSE(S.Constants.empty());
#endif
  // Whatever the snippet gave, each field once more by hand.
  Definition D;
  D.Kind = Definition::Method;
  D.Name = "forward", D.Owner = "Fn";
  D.Line = 7, D.EndLine = 9;
  D.Kernel = true, D.Registered = true;
  D.Bases = {"torch.autograd.Function"};
  D.Decorators = {"staticmethod", "triton.jit"};
  D.Refs = {"a.b.c", "k"};
  D.Strings = {"pkg.mod:attr", ".rel"};
  D.Ret.Kind = Definition::Return::ProgramId;
  D.Ret.Bits = 64, D.Ret.Signed = false, D.Ret.Value = -5, D.Ret.Param = 2;
  D.Ret.ParamName = "axis";
  S.Defs.push_back(D);
  S.Imports.push_back({"x.y", 2, "z", "w", int(S.Defs.size()) - 1, 11});
  CallSite C;
  C.Scope = int(S.Defs.size()) - 1;
  C.Callee = "kern";
  C.Args = {"a", "k=v"};
  C.ArgTensors = {"new\th\tn", "=v"};
  C.Grid = "(n,)";
  C.Launch = true;
  C.Line = 12;
  S.Calls.push_back(C);
  S.ModuleRefs.push_back("torch.ops.pkg.run");
  S.ModuleStrings.push_back("pkg.models.");
  S.Constants.push_back({"N", "(1, 2)"});
  S.HasMain = S.HasAll = S.Parsed = true;
  S.All.push_back("run");
  S.Path = "/p/pkg/mod.py";
  return S;
}

TEST(CacheSummaryIO, RoundTripsEveryField) {
  FileSummary S = everyField(), Back;
  std::string Bytes = encodeSummary(S);
  ASSERT_TRUE(decodeSummary(Bytes, Back));
  expectSame(S, Back);
  EXPECT_EQ(encodeSummary(Back), Bytes);
}

/// Every prefix and many byte flips of Bytes: Decode must not crash, and
/// every strict prefix must fail.
template <typename F> void hostile(const std::string &Bytes, F Decode) {
  for (size_t N = 0; N < Bytes.size(); ++N)
    EXPECT_FALSE(Decode(Bytes.substr(0, N))) << "prefix " << N;
  std::mt19937 Rng(7);
  for (int I = 0; I < 2000; ++I) {
    std::string B = Bytes;
    for (int K = 0; K < 1 + I % 4; ++K)
      B[Rng() % B.size()] = char(Rng());
    Decode(B); // a miss or an entry, never a crash or a huge allocation
  }
  // A count near 2^32 right after the magic.
  std::string Huge = Bytes.substr(0, 4) + std::string("\xff\xff\xff\x7f", 4) + Bytes.substr(4);
  EXPECT_FALSE(Decode(Huge));
}

TEST(CacheSummaryIO, HostileBytesAreMisses) {
  std::string Bytes = encodeSummary(everyField());
  hostile(Bytes, [](const std::string &B) {
    FileSummary S;
    return decodeSummary(B, S);
  });
  // Scopes out of range would index Defs: refused.
  FileSummary S = everyField();
  S.Calls.back().Scope = 1000;
  FileSummary Back;
  EXPECT_FALSE(decodeSummary(encodeSummary(S), Back));
}

TEST(CacheResultIO, HostileBytesAreMisses) {
  FileResult R;
  Finding F;
  F.Code = "KV001", F.Check = "kvlint-narrowed-index-overflow";
  F.Range.Begin.File = "/p/k.cu";
  F.Message = "m";
  F.Notes.push_back({});
  R.Findings.push_back(F);
  R.Notes.push_back({"/p/k.cu", "n", false});
  R.Read = {"/p/h.h"};
  R.Absent = {"/p/missing.h"};
  R.Hashes["/p/k.cu"] = "abc";
  R.Analysed = true;
  std::string Bytes = encodeResult(R);
  FileResult Back;
  ASSERT_TRUE(decodeResult(Bytes, Back));
  EXPECT_EQ(Back.Read, R.Read);
  EXPECT_EQ(Back.Absent, R.Absent);
  hostile(Bytes, [](const std::string &B) {
    FileResult X;
    return decodeResult(B, X);
  });
}

TEST(CachePack, HostileBytesAreMisses) {
  CachePack P;
  P.Records["/p/a.py"] = {"value one", 100, false};
  P.Records["/p/b.cu"] = {std::string(300, 'x'), 200, true};
  std::string Bytes = P.serialise("id-1", 1000);
  CachePack Q;
  ASSERT_TRUE(Q.parse(Bytes, "id-1"));
  EXPECT_EQ(Q.Records.size(), 2u);
  EXPECT_EQ(Q.Records["/p/a.py"].Value, "value one");
  EXPECT_EQ(Q.Records["/p/b.cu"].Used, 1000u); // touched: used now
  EXPECT_FALSE(Q.parse(Bytes, "id-2")) << "another build's pack";
  EXPECT_TRUE(Q.Records.empty());
  for (size_t N = 0; N < Bytes.size(); ++N)
    EXPECT_FALSE(Q.parse(Bytes.substr(0, N), "id-1"));
  std::mt19937 Rng(3);
  for (int I = 0; I < 2000; ++I) {
    std::string B = Bytes;
    B[Rng() % B.size()] = char(Rng());
    Q.parse(B, "id-1");
  }
}

TEST(CachePack, FuzzSeedsAreWholePacks) {
  // tools/fuzz/corpus/cache: packs of build "id" the fuzz target starts from.
  fs::path Dir = fs::path(__FILE__).parent_path() / "../../tools/fuzz/corpus/cache";
  unsigned N = 0;
  for (const char *Name : {"results-pack", "summaries-pack"}) {
    std::ifstream In(Dir / Name, std::ios::binary);
    std::stringstream SS;
    SS << In.rdbuf();
    CachePack P;
    EXPECT_TRUE(P.parse(SS.str(), "id")) << Name;
    N += P.Records.size();
  }
  EXPECT_GT(N, 0u);
}

TEST(CachePack, DropsStaleEntries) {
  CachePack P;
  uint64_t Now = 100 * 24 * 3600;
  P.Records["old"] = {"v", Now - CachePack::MaxAgeSeconds - 1, false};
  P.Records["recent"] = {"v", Now - 3600, false};
  P.Records["used"] = {"v", 1, true};
  CachePack Q;
  ASSERT_TRUE(Q.parse(P.serialise("i", Now), "i"));
  EXPECT_EQ(Q.Records.count("old"), 0u);
  EXPECT_EQ(Q.Records.count("recent"), 1u);
  EXPECT_EQ(Q.Records.count("used"), 1u);
}

#ifdef KVLINT_HAVE_TRITON
ProjectModel model(const std::map<std::string, std::string> &Files) {
  std::vector<FileSummary> S;
  for (const auto &F : Files)
    S.push_back(summarisePython("/p/" + F.first, F.second));
  ProjectModel M;
  ProjectConfig C;
  C.Root = "/p";
  M.build(std::move(S), C);
  return M;
}

const char *Kern = "import triton\nimport triton.language as tl\n\n@triton.jit\n"
                   "def _k(p):\n    tl.store(p, 0)\n\ndef launch(p):\n    _k[(1,)](p)\n";

TEST(FactsDigest, FollowsWhatOtherFilesDecide) {
  std::map<std::string, std::string> Files = {{"pkg/__init__.py", "from .live import run\n"},
                                              {"pkg/live.py", "def run():\n    pass\n"},
                                              {"pkg/dead.py", Kern},
                                              {"pkg/other.py", "X = 1\n"}};
  std::string Dead = model(Files).factsDigest("/p/pkg/dead.py");
  EXPECT_EQ(Dead, model(Files).factsDigest("/p/pkg/dead.py")) << "deterministic";
  EXPECT_NE(Dead, model(Files).factsDigest("/p/pkg/live.py"));
  // Another module changes, nothing about dead.py does: the same digest.
  Files["pkg/other.py"] = "X = 2\nY = 3\n";
  EXPECT_EQ(Dead, model(Files).factsDigest("/p/pkg/dead.py"));
  // The package now imports it: its kernel's reachability changed.
  Files["pkg/__init__.py"] = "from .live import run\nfrom .dead import launch\n";
  EXPECT_NE(Dead, model(Files).factsDigest("/p/pkg/dead.py"));
  // A file the model does not hold, and no model at all.
  EXPECT_NE(model(Files).factsDigest("/p/csrc/k.cu"), ProjectModel().factsDigest("/p/csrc/k.cu"));
}

TEST(FactsDigest, ImportedHelperReturns) {
  std::map<std::string, std::string> Files = {
      {"pkg/__init__.py", "from .k import run\n"},
      {"pkg/util.py", "import triton\nimport triton.language as tl\n\n@triton.jit\n"
                      "def pid():\n    return tl.program_id(0)\n"},
      {"pkg/k.py", "import triton\nimport triton.language as tl\nfrom .util import pid\n\n"
                   "@triton.jit\ndef _k(p):\n    tl.store(p + pid() * 4096, 0)\n\n"
                   "def run(p):\n    _k[(1,)](p)\n"}};
  std::string Before = model(Files).factsDigest("/p/pkg/k.py");
  Files["pkg/util.py"] = "import triton\nimport triton.language as tl\n\n@triton.jit\n"
                         "def pid():\n    return tl.program_id(0).to(tl.int64)\n";
  EXPECT_NE(Before, model(Files).factsDigest("/p/pkg/k.py")) << "the helper's return widened";
}
#endif

struct TempDir {
  std::string Path;
  TempDir() {
    char T[] = "/tmp/kvlint-cache-test-XXXXXX";
    Path = ::mkdtemp(T);
  }
  ~TempDir() { fs::remove_all(Path); }
};

TEST(ScanCacheFolder, RefusesSymlinkAndForeignFolders) {
  TempDir T;
  fs::create_directory(T.Path + "/elsewhere");
  fs::create_directory_symlink(T.Path + "/elsewhere", T.Path + "/link");
  std::string Why;
  {
    ScanCache C;
    EXPECT_FALSE(C.open(T.Path + "/link", Why));
    EXPECT_NE(Why.find("symlink"), std::string::npos) << Why;
  }
  EXPECT_TRUE(fs::is_empty(T.Path + "/elsewhere"));
  fs::create_directory(T.Path + "/theirs");
  std::ofstream(T.Path + "/theirs/notes.txt") << "mine";
  {
    ScanCache C;
    EXPECT_FALSE(C.open(T.Path + "/theirs", Why));
  }
  std::ostringstream Out, Err;
  EXPECT_EQ(cleanCache(T.Path + "/theirs", Out, Err), 2);
  EXPECT_TRUE(fs::exists(T.Path + "/theirs/notes.txt"));
  EXPECT_EQ(cleanCache(T.Path + "/link", Out, Err), 2);
  EXPECT_TRUE(fs::exists(T.Path + "/elsewhere"));
}

TEST(ScanCacheFolder, StoresLoadsAndCleans) {
  TempDir T;
  std::string Dir = T.Path + "/.kvlint_cache", Why;
  std::ofstream(T.Path + "/k.cu") << "int x;\n";
  std::ofstream(T.Path + "/h.h") << "int y;\n";
  std::set<std::string> Scanned = {fs::canonical(T.Path + "/k.cu").string()};
  FileResult R;
  R.Analysed = true;
  R.Functions = 3;
  R.Read = {T.Path + "/h.h"};
  R.Absent = {T.Path + "/none.h"};
  {
    ScanCache C;
    ASSERT_TRUE(C.open(Dir, Why)) << Why;
    C.storeResult(T.Path + "/k.cu", "key1", Scanned, R);
    C.storeSummary("/p/a.py", "h1", everyField());
    ASSERT_TRUE(C.save(Why)) << Why;
  }
  std::ifstream Ignore(Dir + "/.gitignore");
  std::string Line;
  std::getline(Ignore, Line);
  EXPECT_EQ(Line, "*");
  {
    ScanCache C;
    ASSERT_TRUE(C.open(Dir, Why));
    FileResult Back;
    EXPECT_FALSE(C.loadResult(T.Path + "/k.cu", "key2", Scanned, Back)) << "another key";
    EXPECT_TRUE(C.loadResult(T.Path + "/k.cu", "key1", Scanned, Back));
    EXPECT_EQ(Back.Functions, 3u);
    FileSummary S;
    EXPECT_FALSE(C.loadSummary("/p/a.py", "h2", S));
    EXPECT_TRUE(C.loadSummary("/p/a.py", "h1", S));
  }
  std::ofstream(T.Path + "/h.h") << "int z;\n"; // a header it read changed
  {
    ScanCache C;
    ASSERT_TRUE(C.open(Dir, Why));
    FileResult Back;
    EXPECT_FALSE(C.loadResult(T.Path + "/k.cu", "key1", Scanned, Back));
  }
  std::ofstream(T.Path + "/h.h") << "int y;\n";
  std::ofstream(T.Path + "/none.h") << ""; // a header it looked for appeared
  {
    ScanCache C;
    ASSERT_TRUE(C.open(Dir, Why));
    FileResult Back;
    EXPECT_FALSE(C.loadResult(T.Path + "/k.cu", "key1", Scanned, Back));
  }
  std::ostringstream Out, Err;
  EXPECT_EQ(cleanCache(Dir, Out, Err), 0) << Err.str();
  EXPECT_FALSE(fs::exists(Dir));
  EXPECT_TRUE(fs::exists(T.Path + "/k.cu"));
}

} // namespace
