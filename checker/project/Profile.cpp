//===- Profile.cpp - the profile the project's callers put a kernel in ----===//
//
// A kernel's deployment profile (docs/envelope.md, "How the profile is
// chosen") from the whole program, not its file alone:
//
//   * training code is the `forward` and `backward` of a class derived from
//     torch.autograd.Function (directly, or through a class of the project
//     that is one) that defines a `backward` (an autograd.Function with a
//     forward only is an inference wrapper: vLLM's copies of fla ops), and
//     every file below a `training/`, `train/` or `trainer/` directory;
//   * a kernel is **inference** when a walk from the roots (Project.h; tests
//     and benchmarks left out: they exercise kernels, they do not deploy
//     them) that never enters training code reaches it;
//   * it is **training** when it is reached, that walk does not reach it,
//     and a walk from the reached training code does;
//   * otherwise the model cannot say (Unknown): the frontend keeps its
//     same-file facts.
//
// Both walks follow the reachability graph (Reach.cpp) with one exception:
// an edge that only says "public API" (a public module's public function,
// what an `__init__` binds) is followed only to a definition that nothing
// reached calls. `chunk_gla_fwd` is public in a public module, and only
// ChunkGLAFunction.forward calls it: it is judged by its callers, as the
// frontend's same-file rule judges a function the file calls (a function
// nothing calls is an entry point of its own).
//
// The answers are computed once, in build (single-threaded), and only read
// afterwards: the analysis asks from several threads.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"

#include <algorithm>
#include <deque>

namespace kvlint {
namespace project {

namespace {

constexpr unsigned MaxBaseDepth = 4; // classes between a class and autograd.Function

std::string noSpace(std::string S) {
  S.erase(std::remove_if(S.begin(), S.end(),
                         [](char C) { return C == ' ' || C == '\n' || C == '\r' || C == '\t'; }),
          S.end());
  return S;
}

bool autogradBase(const std::string &B) {
  std::string T = noSpace(B);
  return T == "Function" || T == "torch.autograd.Function" || T == "autograd.Function" ||
         T == "torch.autograd.function.Function" || T == "function.Function";
}

/// The directory of Rel (relative to the root) that makes it training-only,
/// or "".
std::string trainingSegment(const std::string &Rel) {
  size_t B = 0;
  for (;;) {
    size_t E = Rel.find('/', B);
    if (E == std::string::npos)
      return "";
    std::string C = Rel.substr(B, E - B);
    if (C == "training" || C == "train" || C == "trainer")
      return C;
    B = E + 1;
  }
}

} // namespace

bool ProjectModel::autogradClass(int F, int Def, unsigned Depth, bool &HasBackward) const {
  if (Depth > MaxBaseDepth)
    return false;
  const FileInfo &FI = Files[F];
  const Definition &C = FI.S.Defs[Def];
  for (const Definition &M : FI.S.Defs)
    if (M.Kind == Definition::Method && M.Owner == C.Name && M.Name == "backward")
      HasBackward = true;
  bool Is = false;
  for (const std::string &B : C.Bases) {
    if (autogradBase(B)) {
      Is = true;
      continue;
    }
    std::string T = noSpace(B);
    if (T.empty() || T.find_first_of("([=*") != std::string::npos)
      continue; // a call, a subscript, a keyword (metaclass=...)
    for (const Target &X : resolveRef(F, T))
      if (X.Def >= 0 && !(X.File == F && X.Def == Def) &&
          Files[X.File].S.Defs[X.Def].Kind == Definition::Class &&
          autogradClass(X.File, X.Def, Depth + 1, HasBackward))
        Is = true;
  }
  return Is;
}

std::string ProjectModel::nodeName(int Node) const {
  const FileInfo &F = Files[NodeFile[Node]];
  if (NodeDef[Node] < 0)
    return F.Module.empty() ? F.Rel : F.Module;
  const Definition &D = F.S.Defs[NodeDef[Node]];
  return (D.Kind == Definition::Method ? D.Owner + "." : std::string()) + D.Name;
}

std::string ProjectModel::nodeWhere(int Node) const {
  const FileInfo &F = Files[NodeFile[Node]];
  if (NodeDef[Node] < 0)
    return F.Rel;
  return F.Rel + ":" + std::to_string(F.S.Defs[NodeDef[Node]].Line);
}

void ProjectModel::computeProfiles() {
  size_t N = Edges.size();
  Gate.assign(N, 0);
  for (size_t I = 0; I < Files.size(); ++I) {
    const FileInfo &F = Files[I];
    if (!trainingSegment(F.Rel).empty()) {
      for (size_t J = 0; J <= F.S.Defs.size(); ++J)
        Gate[F.ModNode + J] = 1;
      continue;
    }
    for (size_t J = 0; J < F.S.Defs.size(); ++J) {
      const Definition &D = F.S.Defs[J];
      if (D.Kind != Definition::Method || (D.Name != "forward" && D.Name != "backward"))
        continue;
      auto C = F.TopDefs.find(D.Owner);
      if (C == F.TopDefs.end())
        continue;
      for (int K : C->second) {
        bool HasBackward = false;
        if (F.S.Defs[K].Kind == Definition::Class && autogradClass(int(I), K, 0, HasBackward) &&
            HasBackward)
          Gate[F.ModNode + 1 + J] = 1;
      }
    }
  }
  // Called: a reached definition or module outside tests names it (the
  // class-method edges, and a definition's edge to its own module, say
  // nothing about callers).
  std::vector<char> Called(N, 0);
  for (size_t X = 0; X < N; ++X) {
    if (!Reached[X] || Files[NodeFile[X]].Test)
      continue;
    const FileInfo &FX = Files[NodeFile[X]];
    for (int Y : Edges[X]) {
      if (NodeDef[Y] < 0 || Called[Y])
        continue;
      if (NodeDef[X] < 0 && std::binary_search(ApiOnly.begin(), ApiOnly.end(),
                                               std::make_pair(int(X), Y)))
        continue;
      if (NodeDef[X] >= 0 && NodeFile[X] == NodeFile[Y]) {
        const Definition &A = FX.S.Defs[NodeDef[X]], &B = FX.S.Defs[NodeDef[Y]];
        if ((A.Kind == Definition::Class && B.Kind == Definition::Method && B.Owner == A.Name) ||
            (A.Kind == Definition::Method && B.Kind == Definition::Class && A.Owner == B.Name))
          continue;
      }
      Called[Y] = 1;
    }
  }
  auto Follow = [&](int X, int Y) {
    if (NodeDef[X] < 0 && Called[Y] &&
        std::binary_search(ApiOnly.begin(), ApiOnly.end(), std::make_pair(X, Y)))
      return false;
    return true;
  };
  auto Walk = [&](const std::vector<int> &From, std::vector<int> &Parent, bool AvoidGates,
                  const std::vector<int> *Skip) {
    Parent.assign(N, -2);
    std::deque<int> Q;
    for (int R : From)
      if (Parent[R] == -2 && !(AvoidGates && Gate[R])) {
        Parent[R] = -1;
        Q.push_back(R);
      }
    while (!Q.empty()) {
      int X = Q.front();
      Q.pop_front();
      for (int Y : Edges[X]) {
        if (Parent[Y] != -2 || (AvoidGates && Gate[Y]) || (Skip && (*Skip)[Y] != -2) ||
            !Follow(X, Y))
          continue;
        Parent[Y] = X;
        Q.push_back(Y);
      }
    }
  };
  Walk(RootNodes, InfParent, true, nullptr);
  std::vector<int> Entries;
  for (size_t X = 0; X < N; ++X)
    if (Gate[X] && Reached[X] && !Files[NodeFile[X]].Test)
      Entries.push_back(int(X));
  Walk(Entries, TrainParent, false, &InfParent);
  // The @triton.jit helpers of other modules that kernels name.
  Jits.clear();
  for (size_t I = 0; I < Files.size(); ++I)
    for (const Definition &D : Files[I].S.Defs) {
      if (!D.Kernel)
        continue;
      for (const std::string &R : D.Refs) {
        if (Jits.count({int(I), R}))
          continue;
        bool Ok = true;
        const Definition *One = nullptr;
        Target At{-1, -1};
        for (const Target &T : resolveRef(int(I), R)) {
          if (T.Def < 0)
            continue;
          const Definition &H = Files[T.File].S.Defs[T.Def];
          if (T.File == int(I) || !H.Kernel || H.Ret.Kind == Definition::Return::None) {
            Ok = false;
            break;
          }
          if (One && !One->Ret.sameFact(H.Ret)) {
            Ok = false;
            break;
          }
          One = &H;
          At = T;
        }
        if (Ok && One)
          Jits[{int(I), R}] = At;
      }
    }
}

ProjectModel::ProfileVerdict ProjectModel::profile(const std::string &Path,
                                                   const std::string &Kernel) const {
  ProfileVerdict V;
  int F = fileAt(Path);
  if (F < 0 || InfParent.empty())
    return V;
  const FileInfo &FI = Files[F];
  int Train = -1;
  for (size_t J = 0; J < FI.S.Defs.size(); ++J) {
    const Definition &D = FI.S.Defs[J];
    if (D.Name != Kernel || D.Kind == Definition::Method)
      continue;
    int Node = FI.ModNode + 1 + int(J);
    if (InfParent[Node] != -2) {
      // The entry of the path: the definition nearest the root.
      int Entry = -1, X = Node;
      for (unsigned I = 0; X >= 0 && I < Edges.size(); ++I, X = InfParent[X])
        if (NodeDef[X] >= 0 && X != Node)
          Entry = X;
      V.Prof = Profile::Inference;
      if (Entry >= 0) {
        V.Why = "reached from `" + nodeName(Entry) + "` (" + nodeWhere(Entry) +
                ") through no autograd.Function forward/backward";
      } else {
        // Only modules on the way: the one whose code names the kernel.
        int P = InfParent[Node];
        V.Why = "reached from module `" + (P >= 0 ? nodeName(P) : FI.Rel) +
                "` through no autograd.Function forward/backward";
      }
      return V;
    }
    if (TrainParent[Node] != -2 && Train < 0)
      Train = Node;
  }
  if (Train < 0)
    return V;
  int X = Train;
  for (unsigned I = 0; TrainParent[X] >= 0 && I < Edges.size(); ++I)
    X = TrainParent[X];
  V.Prof = Profile::Training;
  const FileInfo &G = Files[NodeFile[X]];
  std::string Seg = trainingSegment(G.Rel);
  if (!Seg.empty())
    V.Why = "reached only from training-only modules (`" + G.Rel + "`, in a '" + Seg +
            "' directory)";
  else
    V.Why = "reached only through `" + nodeName(X) + "` (" + nodeWhere(X) +
            "), the forward/backward of an autograd.Function";
  return V;
}

const Definition *ProjectModel::importedJit(const std::string &Path,
                                            const std::string &Dotted) const {
  int F = fileAt(Path);
  if (F < 0)
    return nullptr;
  auto It = Jits.find({F, Dotted});
  return It == Jits.end() ? nullptr : &Files[It->second.File].S.Defs[It->second.Def];
}

} // namespace project
} // namespace kvlint
