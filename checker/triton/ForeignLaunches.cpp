//===- ForeignLaunches.cpp - a kernel's launches in other files ----------===//
//
// The project model (checker/project/Launches.cpp) knows which files launch
// a kernel of this one. Their launches are facts about the kernel as much
// as the launches of its own file: the grid, a constant block size, the
// tensors its pointers point into. joinForeignLaunches reads each such
// file (as untrusted input: regular files only, no link followed, bounded
// size), runs the launcher analysis over its launches of this file's
// kernels (Launcher.cpp, foreign mode) and joins what they say with what
// the kernel's own file says: a fact holds only where every site agrees, so
// a kernel launched elsewhere in a way the analysis cannot read keeps no
// launch facts at all.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include "project/Project.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kvlint {
namespace triton {

namespace {

constexpr size_t MaxForeignBytes = 8u << 20; ///< a launching file larger is not read
constexpr size_t MaxForeignFiles = 32;       ///< launching files read per module

/// The file's bytes, when it is a regular file no larger than the cap.
bool readPlain(const std::string &Path, std::string &Out) {
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (Fd < 0) return false;
  struct stat St;
  bool Ok = ::fstat(Fd, &St) == 0 && S_ISREG(St.st_mode) && size_t(St.st_size) <= MaxForeignBytes;
  if (Ok) {
    Out.resize(size_t(St.st_size));
    size_t Got = 0;
    while (Got < Out.size()) {
      ssize_t N = ::read(Fd, &Out[Got], Out.size() - Got);
      if (N <= 0) break;
      Got += size_t(N);
    }
    Out.resize(Got);
  }
  ::close(Fd);
  return Ok && Out.find('\0') == std::string::npos;
}

/// Two sites' facts for one parameter: a range joins, a name must agree.
ValueHint joinHint(const ValueHint &A, const ValueHint &B) {
  ValueHint H = joinSiteHints(A, B);
  H.Shape = !H.BoundBy.empty() && A.Shape && B.Shape;
  if (H.any()) H.Source = A.Source + ", " + B.Source;
  return H;
}

/// What the sites of X and of Y say together.
LaunchFacts join(const LaunchFacts &X, const LaunchFacts &Y) {
  LaunchFacts J;
  J.Sites = X.Sites + Y.Sites;
  for (const auto &[P, H] : X.Params) {
    auto It = Y.Params.find(P);
    if (It == Y.Params.end()) continue;
    ValueHint Both = joinHint(H, It->second);
    if (Both.any()) J.Params[P] = Both;
  }
  for (const auto &[P, T] : X.Elem) {
    auto It = Y.Elem.find(P);
    if (It != Y.Elem.end() && It->second.Bits == T.Bits && It->second.Signed == T.Signed)
      J.Elem[P] = T;
  }
  for (const auto &[P, E] : X.Extent) {
    auto It = Y.Extent.find(P);
    if (It != Y.Extent.end() && It->second.first == E.first)
      J.Extent[P] = {E.first, E.second + ", " + It->second.second};
  }
  for (const auto &[Flag, G] : X.FlagGuards) {
    auto It = Y.FlagGuards.find(Flag);
    if (It == Y.FlagGuards.end() || It->second.FitsWhenTrue != G.FitsWhenTrue) continue;
    std::vector<std::string> Both;
    for (const std::string &P : G.Ptrs)
      if (std::count(It->second.Ptrs.begin(), It->second.Ptrs.end(), P)) Both.push_back(P);
    if (!Both.empty()) J.FlagGuards[Flag] = {Both, G.Why + "; " + It->second.Why, G.FitsWhenTrue};
  }
  for (unsigned Ax = 0; Ax < 3; ++Ax) {
    J.Axis[Ax] = joinHint(X.Axis[Ax], Y.Axis[Ax]);
    if (!J.Axis[Ax].any()) J.Axis[Ax] = ValueHint();
  }
  for (const CheckedProduct &C : X.Checked)
    for (const CheckedProduct &D : Y.Checked)
      if (C.Factors == D.Factors && C.Max == D.Max) J.Checked.push_back(C);
  return J;
}

} // namespace

void joinForeignLaunches(Module &M) {
  if (!M.Project) return;
  // launching file -> (callee text -> kernel), and the kernels each reaches
  std::map<std::string, std::map<std::string, ForeignKernel>> ByFile;
  std::set<uint32_t> Launched;
  for (const std::string &Name : M.JitOrder) {
    const JitFn &J = M.Jit[Name];
    if (J.Called) continue; // a helper: inlined with its callers' facts
    std::vector<project::ProjectModel::ForeignLaunch> Ls =
        M.Project->foreignLaunches(M.ProjectPath, Name);
    if (Ls.empty()) continue;
    ForeignKernel K{ts_node_start_byte(J.Def), kernelParamNames(M, J.Def)};
    Launched.insert(K.Key);
    for (const auto &L : Ls)
      for (const std::string &C : L.Callees) ByFile[L.File][C] = K;
  }
  if (ByFile.empty()) return;
  std::set<uint32_t> Lost; // a launching file unread, or its launch unreadable
  TSParser *P = ts_parser_new();
  bool Lang = ts_parser_set_language(P, tree_sitter_python());
  size_t Read = 0;
  for (const auto &[File, Targets] : ByFile) {
    std::string Src, Text, Why;
    std::vector<uint32_t> Back;
    TSTree *T = nullptr;
    if (Lang && Read < MaxForeignFiles && readPlain(File, Src) && notSourceText(Src).empty() &&
        decodeSource(Src, Text, Back, Why))
      T = ts_parser_parse_string(P, nullptr, Text.data(), uint32_t(Text.size()));
    ++Read;
    std::map<uint32_t, LaunchFacts> Got;
    if (T) {
      const std::string &Root = M.Project->config().Root;
      std::string Rel = File.compare(0, Root.size() + 1, Root + "/") == 0 ? File.substr(Root.size() + 1) : File;
      Module B(Rel, Text, M.Opts);
      B.Alias["tl"] = "triton.language";
      B.Alias["triton"] = "triton";
      scanModule(B, ts_tree_root_node(T), 0);
      collectForeignLaunchFacts(B, Targets, Got);
      ts_tree_delete(T);
    }
    for (const auto &KV : Targets) {
      uint32_t Key = KV.second.Key;
      auto G = Got.find(Key);
      if (G == Got.end()) {
        Lost.insert(Key);
        continue;
      }
      auto Own = M.Launches.find(Key);
      if (Own == M.Launches.end()) M.Launches[Key] = G->second;
      else Own->second = join(Own->second, G->second);
    }
  }
  ts_parser_delete(P);
  for (uint32_t Key : Lost) M.Launches.erase(Key);
}

} // namespace triton
} // namespace kvlint
