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

namespace kvlint {
namespace project {
namespace {

constexpr unsigned MaxChain = 4; // wrappers followed from a launcher outwards

} // namespace

/// The argument call C passes for parameter Index/Param of D: the index into
/// C.Args, -1 when it passes none (the default), -2 when it cannot be told
/// (`*args`, `**kwargs`).
int ProjectModel::argIndex(const CallSite &C, const Definition &D, const std::string &Param) {
  int Index = -1;
  for (size_t K = 0; K < D.Params.size(); ++K) {
    const std::string &P = D.Params[K];
    if (P == "*")
      break;
    if (P.substr(0, P.find('=')) == Param)
      Index = int(K);
  }
  // A method's first parameter is the object: calls pass one fewer.
  if (D.Kind == Definition::Method)
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
    size_t Eq = A.find('=');
    bool Kw = Eq != std::string::npos && Eq > 0 && Eq + 1 < A.size() && A[Eq + 1] != '=' &&
              A.find_first_of("([{'\"") > Eq;
    if (Kw) {
      if (A.substr(0, Eq) == Param)
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
  const std::vector<std::pair<int, int>> &Named = callsNamed(D.Name);
  bool Bad = Named.empty();
  for (size_t J = 0; !Bad && J < Named.size(); ++J) {
    const auto &[G, K] = Named[J];
    const CallSite &C = Files[G].S.Calls[K];
    bool Mine = false;
    for (const Target &T : resolveRef(G, C.Callee))
      Mine |= T.File == F && T.Def == Def;
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
      for (size_t B = 4, E; B <= T.size(); B = E + 1) {
        E = T.find('\t', B);
        if (E == std::string::npos)
          E = T.size();
        Sizes.push_back(T.substr(B, E - B));
      }
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

void ProjectModel::linkCallerTensors() {
  Tensors.clear();
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
