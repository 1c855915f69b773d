//===- Reach.cpp - the project's roots and what they reach ----------------===//
//
// One node per module (its top-level code) and per definition. Edges: a
// module to the modules it imports and to what its top-level code names; a
// definition to what its body names, to the modules its body imports, and to
// its own module (a function runs only once its module is imported); a class
// to its methods and back; a package's `__init__` to its public bindings; a
// public module to its public functions (ProjectConfig::PublicModulesAreApi).
// Project.h lists the roots. Reachability is a breadth-first walk, run twice:
// from the roots, and from the roots plus the tests and benchmarks, so that a
// kernel only a test reaches says so.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"

#include <algorithm>
#include <deque>

namespace kvlint {
namespace project {

namespace {

/// No leading underscore, or a dunder (`__getattr__`: Python calls it).
bool isPublicName(const std::string &N) {
  return !N.empty() && (N[0] != '_' || (N.size() > 4 && N.rfind("__", 0) == 0 &&
                                        N.compare(N.size() - 2, 2, "__") == 0));
}

} // namespace

/// A package's test function (isTestFunctionName), not in a test file.
bool ProjectModel::isTestFunction(const Target &T) const {
  const FileInfo &F = Files[T.File];
  const Definition &D = F.S.Defs[T.Def];
  return !F.Test && F.InPackage && D.Kind != Definition::Method && !D.Kernel &&
         isTestFunctionName(D.Name);
}

namespace {

std::string dirOf(const std::string &P) {
  size_t S = P.rfind('/');
  return S == std::string::npos ? "" : P.substr(0, S);
}

} // namespace

void ProjectModel::build(std::vector<FileSummary> In, const ProjectConfig &C) {
  Cfg = C;
  Files.clear();
  ByPath.clear();
  ByModule.clear();
  Memo.clear();
  BranchWhy.clear();
  Passed.clear();
  CallsByName.clear();
  Tensors.clear();
  std::sort(In.begin(), In.end(),
            [](const FileSummary &A, const FileSummary &B) { return A.Path < B.Path; });
  for (FileSummary &S : In) {
    if (!Files.empty() && Files.back().S.Path == S.Path)
      continue;
    FileInfo F;
    F.S = std::move(S);
    Files.push_back(std::move(F));
  }
  nameModules();
  buildGraph();
  computeReach();
  computeProfiles();
  linkLaunches();
  linkCallerTensors();
}

void ProjectModel::buildGraph() {
  size_t N = 0;
  for (FileInfo &F : Files) {
    F.ModNode = int(N);
    N += 1 + F.S.Defs.size();
  }
  Edges.assign(N, {});
  NodeFile.assign(N, 0);
  NodeDef.assign(N, -1);
  for (size_t I = 0; I < Files.size(); ++I) {
    const FileInfo &F = Files[I];
    NodeFile[F.ModNode] = int(I);
    for (size_t J = 0; J < F.S.Defs.size(); ++J) {
      NodeFile[F.ModNode + 1 + J] = int(I);
      NodeDef[F.ModNode + 1 + J] = int(J);
    }
  }
  auto NodeOf = [&](const Target &T) { return Files[T.File].ModNode + 1 + T.Def; };
  auto Edge = [&](int From, int To) {
    if (From != To)
      Edges[From].push_back(To);
  };
  // An edge that says only that a definition is public API.
  ApiOnly.clear();
  std::vector<std::pair<int, int>> DefApi; // (file, node) of public functions
  auto ApiEdge = [&](int From, int To) {
    if (From == To)
      return;
    Edges[From].push_back(To);
    ApiOnly.push_back({From, To});
  };
  for (size_t I = 0; I < Files.size(); ++I) {
    FileInfo &F = Files[I];
    int Mod = F.ModNode;
    auto ScopeNode = [&](int Scope) { return Scope < 0 ? Mod : Mod + 1 + Scope; };
    // A module's package runs first: an edge to each enclosing __init__.
    std::string Dir = dirOf(F.S.Path);
    if (F.IsInit)
      Dir = dirOf(Dir);
    for (int P; (P = fileAt(Dir + "/__init__.py")) >= 0; Dir = dirOf(Dir)) {
      Edge(Mod, Files[P].ModNode);
      if (Dir.size() <= Cfg.Root.size())
        break;
    }
    // Imports: the modules they name, and what a name they bind denotes
    // when that is a module (`from . import sub`).
    for (const Import &Im : F.S.Imports) {
      int From = ScopeNode(Im.Scope);
      for (int M : importedModules(int(I), Im)) {
        Edge(From, Files[M].ModNode);
        if (M != int(I) &&
            std::find(Files[M].Importers.begin(), Files[M].Importers.end(), F.Rel) ==
                Files[M].Importers.end())
          Files[M].Importers.push_back(F.Rel);
      }
      if (Im.Name.empty() || Im.Name == "*")
        continue;
      std::vector<Target> Ts;
      bindingTargets(int(I), Im, 0, Ts);
      for (const Target &T : Ts)
        if (T.Def < 0) {
          Edge(From, Files[T.File].ModNode);
          if (T.File != int(I) &&
              std::find(Files[T.File].Importers.begin(), Files[T.File].Importers.end(),
                        F.Rel) == Files[T.File].Importers.end())
            Files[T.File].Importers.push_back(F.Rel);
        }
    }
    // Module-level code that calls a package's test function (a kernel
    // module's `__main__` self-test: `test_correct_int8()`,
    // `benchmark.run(...)`) reaches it only as a test does (computeReach).
    for (const std::string &R : F.S.ModuleRefs)
      for (const Target &T : resolveRef(int(I), R))
        if (T.Def < 0 || !isTestFunction(T))
          Edge(Mod, T.Def < 0 ? Files[T.File].ModNode : NodeOf(T));
    for (const std::string &R : F.S.ModuleStrings)
      for (const Target &T : resolveString(int(I), R))
        Edge(Mod, T.Def < 0 ? Files[T.File].ModNode : NodeOf(T));
    for (size_t J = 0; J < F.S.Defs.size(); ++J) {
      const Definition &D = F.S.Defs[J];
      int Me = Mod + 1 + int(J);
      Edge(Me, Mod);
      // refs only inside branches on a parameter no call takes: no edge
      std::map<std::string, std::string> Dead;
      for (const std::string &G : D.Guards) {
        std::vector<std::string> Parts = tabFields(G);
        std::string Why;
        if (Parts.size() >= 4 &&
            deadBranch(int(I), int(J), Parts[1],
                       std::vector<std::string>(Parts.begin() + 3, Parts.end()), Why))
          Dead[Parts[0]] = Why + " (" + F.Rel + ":" + Parts[2] + ")";
      }
      for (const std::string &R : D.Refs) {
        auto X = Dead.find(R);
        for (const Target &T : resolveRef(int(I), R)) {
          int To = T.Def < 0 ? Files[T.File].ModNode : NodeOf(T);
          if (X != Dead.end()) {
            BranchWhy.emplace(To, X->second);
            continue;
          }
          Edge(Me, To);
        }
      }
      for (const std::string &R : D.Strings)
        for (const Target &T : resolveString(int(I), R))
          Edge(Me, T.Def < 0 ? Files[T.File].ModNode : NodeOf(T));
      if (D.Registered)
        Edge(Mod, Me);
      if (D.Kind == Definition::Method) {
        auto C = F.TopDefs.find(D.Owner);
        if (C != F.TopDefs.end())
          for (int K : C->second)
            if (F.S.Defs[K].Kind == Definition::Class) {
              Edge(Me, Mod + 1 + K);
              Edge(Mod + 1 + K, Me);
            }
      }
      // The module's public API.
      // A loose file's (no package): its public definitions, kernels too
      // (a script or a file of kernels whose use the tree does not show).
      bool Api = D.Kind != Definition::Method && isPublicName(D.Name) &&
                 !isTestFunction({int(I), int(J)}) &&
                 (F.InPackage ? !D.Kernel && Cfg.PublicModulesAreApi && F.Public && !F.IsInit
                              : true);
      if (Api)
        DefApi.push_back({int(I), Me});
    }
    // A package's __init__: what it binds publicly, and its __all__.
    if (F.IsInit) {
      std::vector<std::string> Names = F.S.All;
      for (const auto &D : F.TopDefs)
        if (isPublicName(D.first))
          Names.push_back(D.first);
      for (const auto &B : F.Binds)
        if (isPublicName(B.first))
          Names.push_back(B.first);
      for (const std::string &Nm : Names) {
        std::vector<Target> Ts;
        lookupIn(int(I), Nm, true, 0, Ts);
        for (const Target &T : Ts)
          if (T.Def < 0)
            Edge(Mod, Files[T.File].ModNode);
          else
            ApiEdge(Mod, NodeOf(T));
      }
    }
  }
  // A module's public functions are API once every importer is known,
  // unless nothing imports it and it runs as a script: `python -m pkg.mod`
  // runs its `__main__` block, nobody calls its functions (a kernel
  // module's self-test and benchmark under `__main__`).
  for (const auto &[I, Me] : DefApi) {
    const FileInfo &F = Files[I];
    if (!(F.InPackage && F.S.HasMain && F.Importers.empty() && !F.TopPackage))
      ApiEdge(F.ModNode, Me);
  }
  // An API edge also added as a real one (module-level code that names the
  // definition) is real: it occurs in Edges more often than it was added
  // as API.
  std::sort(ApiOnly.begin(), ApiOnly.end());
  {
    std::vector<std::pair<int, int>> Keep;
    for (size_t I = 0; I < ApiOnly.size();) {
      size_t J = I;
      while (J < ApiOnly.size() && ApiOnly[J] == ApiOnly[I])
        ++J;
      const std::vector<int> &E = Edges[ApiOnly[I].first];
      if (size_t(std::count(E.begin(), E.end(), ApiOnly[I].second)) == J - I)
        Keep.push_back(ApiOnly[I]);
      I = J;
    }
    ApiOnly.swap(Keep);
  }
  for (auto &E : Edges) {
    std::sort(E.begin(), E.end());
    E.erase(std::unique(E.begin(), E.end()), E.end());
  }
}

void ProjectModel::computeReach() {
  size_t N = Edges.size();
  std::vector<int> Roots, TestRoots;
  for (const FileInfo &F : Files) {
    bool Root = F.TopPackage || !F.InPackage || F.S.HasMain;
    std::vector<int> &To = F.Test ? TestRoots : Roots;
    // A package's function named test*/bench* (isTestFunctionName) is a
    // test: a root only with the tests.
    if (!F.Test && F.InPackage)
      for (size_t J = 0; J < F.S.Defs.size(); ++J)
        if (isTestFunction({int(&F - Files.data()), int(J)}))
          TestRoots.push_back(F.ModNode + 1 + int(J));
    if (F.Test) {
      // A test file and everything it defines (pytest calls the tests).
      To.push_back(F.ModNode);
      for (size_t J = 0; J < F.S.Defs.size(); ++J)
        To.push_back(F.ModNode + 1 + int(J));
    } else if (Root) {
      To.push_back(F.ModNode);
    } else if (F.Public && Cfg.PublicModulesAreApi &&
               std::any_of(F.Importers.begin(), F.Importers.end(), isTestPath)) {
      // A public module a test imports is importable API (a library's
      // module users import by its path: `fla.modules.grpo`), even when
      // nothing else in the tree imports it. What it does not make public
      // (its private helpers, kernels only a test launches) is not.
      To.push_back(F.ModNode);
    }
  }
  RootNodes = Roots;
  if (Cfg.IncludeTests) {
    Roots.insert(Roots.end(), TestRoots.begin(), TestRoots.end());
    TestRoots.clear();
  }
  auto Walk = [&](const std::vector<int> &From, std::vector<int> &Parent) {
    std::deque<int> Q;
    for (int R : From)
      if (Parent[R] == -2) {
        Parent[R] = -1;
        Q.push_back(R);
      }
    while (!Q.empty()) {
      int X = Q.front();
      Q.pop_front();
      for (int Y : Edges[X])
        if (Parent[Y] == -2) {
          Parent[Y] = X;
          Q.push_back(Y);
        }
    }
  };
  std::vector<int> P(N, -2);
  Walk(Roots, P);
  Reached.assign(N, 0);
  for (size_t I = 0; I < N; ++I)
    Reached[I] = P[I] != -2;
  // With the tests too: the parents lead back to the test that reaches a node.
  TestParent.assign(N, -2);
  if (!TestRoots.empty()) {
    Walk(TestRoots, TestParent);
  }
}

std::string ProjectModel::whyUnreached(int Node) const {
  const FileInfo &F = Files[NodeFile[Node]];
  const Definition &D = F.S.Defs[NodeDef[Node]];
  if (auto B = BranchWhy.find(Node); B != BranchWhy.end() && TestParent[Node] == -2)
    return B->second;
  std::string What = D.Kernel ? "kernel" : "function";
  if (TestParent[Node] != -2) {
    int X = Node;
    while (TestParent[X] >= 0)
      X = TestParent[X];
    // The test: a file of tests, or a test function of the package.
    const FileInfo &T = Files[NodeFile[X]];
    std::string From = "`" + T.Rel + "`";
    if (NodeDef[X] >= 0 && !T.Test)
      From = "`" + T.S.Defs[NodeDef[X]].Name + "` (" + T.Rel + ")";
    return "only tests or benchmarks launch it: `" + D.Name + "` is reached from " + From +
           " (--include-tests counts them)";
  }
  std::string M = F.Module.empty() ? F.Rel : F.Module;
  if (!Reached[F.ModNode]) {
    if (F.Importers.empty())
      return "no caller in the project: module `" + M + "` is never imported";
    return "no caller in the project: module `" + M + "` is imported only from code nothing "
           "reaches (`" + F.Importers.front() + "`)";
  }
  // Who names it, though nothing reaches them.
  for (size_t I = 0; I < Edges.size(); ++I) {
    if (NodeDef[I] < 0 || int(I) == Node)
      continue;
    const std::vector<int> &E = Edges[I];
    if (!std::binary_search(E.begin(), E.end(), Node))
      continue;
    const FileInfo &G = Files[NodeFile[I]];
    const Definition &C = G.S.Defs[NodeDef[I]];
    if (C.Kind == Definition::Class || (C.Kind == Definition::Method && C.Owner == D.Owner &&
                                        D.Kind == Definition::Method))
      continue;
    std::string Name = (C.Kind == Definition::Method ? C.Owner + "." : "") + C.Name;
    return "no caller in the project: " + What + " `" + D.Name + "` is used only by `" + Name +
           "` (" + G.Rel + ":" + std::to_string(C.Line) + "), which nothing calls";
  }
  return "no caller in the project: nothing in module `" + M + "` or elsewhere uses " + What +
         " `" + D.Name + "`";
}

ProjectModel::Verdict ProjectModel::reach(const std::string &Path, const std::string &Name) const {
  Verdict V;
  int F = fileAt(Path);
  if (F < 0)
    return V;
  const FileInfo &FI = Files[F];
  int Found = -1;
  for (size_t J = 0; J < FI.S.Defs.size(); ++J) {
    const Definition &D = FI.S.Defs[J];
    if (D.Name != Name && (D.Owner + "." + D.Name) != Name)
      continue;
    V.Known = true;
    int Node = FI.ModNode + 1 + int(J);
    if (Reached[Node]) {
      V.Reached = true;
      return V;
    }
    if (Found < 0)
      Found = Node;
  }
  if (Found < 0)
    return V;
  V.Reached = false;
  V.Why = whyUnreached(Found);
  V.File = FI.S.Path;
  V.Line = FI.S.Defs[NodeDef[Found]].Line;
  return V;
}

ProjectModel::Stats ProjectModel::stats() const {
  Stats S;
  S.Files = Files.size();
  for (const FileInfo &F : Files)
    for (size_t J = 0; J < F.S.Defs.size(); ++J) {
      ++S.Defs;
      if (!F.S.Defs[J].Kernel || F.Test)
        continue;
      ++S.Kernels;
      int Node = F.ModNode + 1 + int(J);
      if (Reached[Node])
        ++S.KernelsReached;
      else if (TestParent[Node] != -2)
        ++S.KernelsOnlyTests;
    }
  return S;
}

} // namespace project
} // namespace kvlint
