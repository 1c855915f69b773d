//===- Callers.cpp - the tensors a function's callers pass it ------------===//
//
// A launcher rarely allocates what it launches on: its caller does (lightllm
// allocates the attention scores `self.alloc_tensor((heads, tokens), dtype)`
// in the layer and passes them to `token_att_fwd`, whose launch passes
// `att_out.stride(1)`). callerTensor answers, for a parameter of a
// function, what every call of the function in the project passes there:
// a contiguous tensor of known rank (and sizes, where the calls agree),
// following parameters passed on unchanged through wrappers
// (CallSite::ArgTensors, filled by the frontend's summary). The launcher
// analysis (checker/triton/LauncherEval.cpp) then knows that the innermost
// stride is 1, where the launcher itself shows nothing of the tensor.
//
// The answers are computed in build() for every parameter of every function
// that launches a kernel, so that the model stays read-only while files are
// analysed in parallel; factsDigest writes them.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"

#include <algorithm>
#include <cctype>

namespace kvlint {
namespace project {
namespace {

constexpr unsigned MaxChain = 4; // wrappers followed from a launcher outwards

} // namespace

/// Whether argument text A is a keyword argument `name=value` (not a
/// comparison `a != b`, `a <= b`, `a == b`), with its name and, when asked,
/// its value without the spaces around it.
bool ProjectModel::keyword(const std::string &A, std::string &Name, std::string *Value) {
  size_t Eq = A.find('=');
  if (Eq == std::string::npos || Eq == 0 || Eq + 1 >= A.size() || A[Eq + 1] == '=')
    return false;
  size_t E = A.find_last_not_of(' ', Eq - 1);
  if (E == std::string::npos)
    return false;
  Name = A.substr(0, E + 1);
  if (!(std::isalpha((unsigned char)Name[0]) || Name[0] == '_'))
    return false;
  for (char C : Name)
    if (!(std::isalnum((unsigned char)C) || C == '_'))
      return false;
  if (Value) {
    size_t B = A.find_first_not_of(' ', Eq + 1), L = A.find_last_not_of(' ');
    *Value = B == std::string::npos ? "" : A.substr(B, L - B + 1);
  }
  return true;
}

int ProjectModel::argIndex(const CallSite &C, const Definition &D, const std::string &Param) {
  int Index = -1;
  for (size_t K = 0; K < D.Params.size(); ++K) {
    const std::string &P = D.Params[K];
    if (P == "*")
      break;
    if (P.substr(0, P.find('=')) == Param)
      Index = int(K);
  }
  // A method's first parameter is the object: calls pass one fewer (not
  // a static method's).
  if (D.Kind == Definition::Method &&
      std::find(D.Decorators.begin(), D.Decorators.end(), "staticmethod") == D.Decorators.end())
    --Index;
  int Found = -1;
  size_t Pos = 0;
  bool Star = false;
  for (size_t I = 0; I < C.Args.size(); ++I) {
    const std::string &A = C.Args[I];
    if (A.rfind("*", 0) == 0) {
      Star = true;
      continue;
    }
    std::string Name;
    if (keyword(A, Name)) {
      if (Name == Param)
        Found = int(I);
    } else {
      if (int(Pos) == Index && !Star)
        Found = int(I);
      ++Pos;
    }
  }
  if (Found < 0 && (Star || C.Args.size() >= 64))
    return -2;
  return Found;
}

const ProjectModel::CallerTensor &ProjectModel::callerTensorAt(int F, int Def,
                                                                const std::string &Param,
                                                                unsigned Depth) const {
  static const CallerTensor None;
  auto Key = std::make_tuple(F, Def, Param);
  auto Hit = Tensors.find(Key);
  if (Hit != Tensors.end())
    return Hit->second;
  if (Depth > MaxChain)
    return None;
  Tensors[Key] = CallerTensor(); // a cycle of wrappers knows nothing
  CallerTensor Out;
  const Definition &D = Files[F].S.Defs[Def];
  // Every call that may be of D: by its name and by each name an import
  // binds it to (`from .k import go as g`). A function passed as a value
  // (`partial(go, ...)`, `op_func=go`) has calls no one can see.
  std::vector<std::pair<int, int>> Named = callsNamed(D.Name);
  for (const std::string &Alias : aliasesOf(D.Name)) {
    const auto &More = callsNamed(Alias);
    Named.insert(Named.end(), More.begin(), More.end());
  }
  bool Bad = Named.empty() || passedAsValue(D.Name);
  for (size_t J = 0; !Bad && J < Named.size(); ++J) {
    const auto &[G, K] = Named[J];
    const CallSite &C = Files[G].S.Calls[K];
    bool Mine = false, Other = false;
    for (const Target &T : resolveRef(G, C.Callee)) {
      Mine |= T.File == F && T.Def == Def;
      Other |= T.File != F || T.Def != Def;
    }
    if (!Mine && !Other) { // a call of this name nothing resolves (`self.go(...)`)
      Bad = true;
      break;
    }
    // A test's call is no production caller unless tests are scanned.
    if (!Mine || (!Cfg.IncludeTests && (Files[G].Test || (C.Scope >= 0 &&
                                                          isTestFunctionName(Files[G].S.Defs[C.Scope].Name)))))
      continue;
    int A = argIndex(C, D, Param);
    if (A < 0 || size_t(A) >= C.ArgTensors.size() || C.ArgTensors[A].empty()) {
      Bad = true;
      break;
    }
    const std::string &T = C.ArgTensors[A];
    std::vector<std::string> Sizes;
    std::string Where = Files[G].Rel + ":" + std::to_string(C.Line);
    if (T[0] == '=') { // passed on from the caller's own parameter
      if (C.Scope < 0) {
        Bad = true;
        break;
      }
      const CallerTensor &Up = callerTensorAt(G, C.Scope, T.substr(1), Depth + 1);
      if (!Up.Known) {
        Bad = true;
        break;
      }
      Sizes = Up.Sizes;
      Where += ", from " + Up.Where;
      Out.Calls += Up.Calls;
    } else if (T.rfind("new\t", 0) == 0) {
      Sizes = tabFields(T, 4);
      Where += " allocates it (" + std::to_string(Sizes.size()) + "-D, contiguous)";
      ++Out.Calls;
    } else {
      Bad = true;
      break;
    }
    if (Out.Where.empty()) {
      Out.Sizes = Sizes;
      Out.Where = Where;
    } else if (Sizes.size() != Out.Sizes.size()) {
      Bad = true;
    } else {
      for (size_t I = 0; I < Sizes.size(); ++I)
        if (Sizes[I] != Out.Sizes[I])
          Out.Sizes[I] = "?";
    }
  }
  Out.Known = !Bad && !Out.Where.empty();
  if (!Out.Known)
    Out = CallerTensor();
  return Tensors[Key] = Out;
}

/// The names imports bind a definition called Name to, other than Name.
const std::vector<std::string> &ProjectModel::aliasesOf(const std::string &Name) const {
  static const std::vector<std::string> None;
  if (Aliases.empty()) {
    Aliases[""]; // computed
    for (const FileInfo &G : Files)
      for (const Import &I : G.S.Imports)
        if (!I.Name.empty() && I.Name != "*" && !I.Local.empty() && I.Local != I.Name) {
          std::vector<std::string> &L = Aliases[I.Name];
          if (std::find(L.begin(), L.end(), I.Local) == L.end())
            L.push_back(I.Local);
        }
  }
  auto It = Aliases.find(Name);
  return It == Aliases.end() ? None : It->second;
}

/// Whether some call passes a function named Name (or bound to it) as an
/// argument: `functools.partial(go, ...)`, `register(op_func=go)`.
bool ProjectModel::passedAsValue(const std::string &Name) const {
  if (ValueArgs.empty()) {
    ValueArgs.insert(""); // computed
    for (const FileInfo &G : Files)
      for (const CallSite &C : G.S.Calls)
        for (const std::string &A : C.Args) {
          std::string K, V;
          if (!keyword(A, K, &V)) {
            size_t B = A.find_first_not_of(' '), E = A.find_last_not_of(' ');
            V = B == std::string::npos ? "" : A.substr(B, E - B + 1);
          }
          if (V.empty())
            continue;
          size_t Dot = V.find_last_of('.');
          std::string Last = Dot == std::string::npos ? V : V.substr(Dot + 1);
          bool Plain = !Last.empty();
          for (char Ch : V)
            Plain &= std::isalnum((unsigned char)Ch) || Ch == '_' || Ch == '.';
          if (Plain)
            ValueArgs.insert(Last);
        }
  }
  if (ValueArgs.count(Name))
    return true;
  for (const std::string &Alias : aliasesOf(Name))
    if (ValueArgs.count(Alias))
      return true;
  return false;
}

void ProjectModel::linkCallerTensors() {
  Tensors.clear();
  ValueArgs.clear();
  Aliases.clear();
  for (size_t F = 0; F < Files.size(); ++F) {
    const FileSummary &S = Files[F].S;
    std::set<int> Launchers;
    for (const CallSite &C : S.Calls)
      if (C.Launch && C.Scope >= 0 && S.Defs[C.Scope].Kind == Definition::Function)
        Launchers.insert(C.Scope);
    for (int D : Launchers)
      for (const std::string &P : S.Defs[D].Params)
        if (P != "*")
          callerTensorAt(int(F), D, P.substr(0, P.find('=')), 0);
  }
}

ProjectModel::CallerTensor ProjectModel::callerTensor(const std::string &Path,
                                                      const std::string &Func,
                                                      const std::string &Param) const {
  int F = fileAt(Path);
  if (F < 0)
    return {};
  auto D = Files[F].TopDefs.find(Func);
  if (D == Files[F].TopDefs.end() || D->second.size() != 1)
    return {};
  auto It = Tensors.find(std::make_tuple(F, D->second[0], Param));
  return It == Tensors.end() ? CallerTensor() : It->second;
}

} // namespace project
} // namespace kvlint
