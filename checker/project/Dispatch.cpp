//===- Dispatch.cpp - launches behind a branch no caller takes ------------===//
//
// A launcher that dispatches on a mode parameter (`if mode == "split":
// split_kernel[grid](...)`, aiter's flash-attention backward) reaches the
// kernels of a branch only when some call passes that mode. deadBranch
// decides, for a private function, that every call in the project passes
// another value: a string literal, or a module constant the caller defines
// or imports (`mode=BWD_MODE`, `BWD_MODE = "fused"` in utils.py), or the
// parameter's default. A public function, a call whose argument is
// anything else (a variable, a `*args`), or no call at all keeps the
// branch live: users or unseen code may pass the mode.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"

namespace kvlint {
namespace project {
namespace {

/// The string a literal's text spells ('x', "x"), or false.
bool literal(const std::string &T, std::string &Out) {
  if (T.size() < 2 || (T[0] != '"' && T[0] != '\'') || T.back() != T[0])
    return false;
  Out = T.substr(1, T.size() - 2);
  return Out.find_first_of("\"'\\\\") == std::string::npos;
}

std::string lastPart(const std::string &D) {
  size_t P = D.find_last_of('.');
  return P == std::string::npos ? D : D.substr(P + 1);
}

} // namespace

/// The calls in the project of a function named Name (any module), by
/// (file, call) index; launches are not calls.
const std::vector<std::pair<int, int>> &ProjectModel::callsNamed(const std::string &Name) const {
  static const std::vector<std::pair<int, int>> None;
  if (CallsByName.empty())
    for (size_t G = 0; G < Files.size(); ++G)
      for (size_t K = 0; K < Files[G].S.Calls.size(); ++K)
        if (!Files[G].S.Calls[K].Launch)
          CallsByName[lastPart(Files[G].S.Calls[K].Callee)].push_back({int(G), int(K)});
  auto It = CallsByName.find(Name);
  return It == CallsByName.end() ? None : It->second;
}

/// The string value a call's argument text has in file F: a literal, a
/// module constant of F, or one F imports by name; false when unknown.
bool ProjectModel::stringArg(int F, const std::string &Text, std::string &Out,
                             std::string &Where) const {
  if (literal(Text, Out))
    return true;
  auto FromConstants = [&](int G, const std::string &Name) {
    for (const auto &[N, V] : Files[G].S.Constants)
      if (N == Name && literal(V, Out)) {
        Where = Files[G].Rel;
        return true;
      }
    return false;
  };
  if (FromConstants(F, Text))
    return true;
  for (const Import &I : Files[F].S.Imports)
    if (I.Local == Text && !I.Name.empty() && I.Name != "*" && I.Scope < 0)
      for (int G : importedModules(F, I))
        if (FromConstants(G, I.Name))
          return true;
  return false;
}

const ProjectModel::PassedValues &ProjectModel::passedValues(int F, int Def,
                                                              const std::string &Param) const {
  auto Key = std::make_tuple(F, Def, Param);
  auto Hit = Passed.find(Key);
  if (Hit != Passed.end())
    return Hit->second;
  PassedValues &Out = Passed[Key];
  const Definition &D = Files[F].S.Defs[Def];
  std::string Default;
  for (const std::string &P : D.Params) {
    if (P == "*")
      break;
    if (P.substr(0, P.find('=')) == Param && P.find('=') != std::string::npos)
      Default = P.substr(P.find('=') + 1);
  }
  Out.Known = false;
  for (const auto &[G, K] : callsNamed(D.Name)) {
    const CallSite &C = Files[G].S.Calls[K];
    bool Mine = false;
    for (const Target &T : resolveRef(G, C.Callee))
      Mine |= T.File == F && T.Def == Def;
    if (!Mine)
      continue;
    // the argument for Param: by keyword, by position, else the default
    int A = argIndex(C, D, Param);
    std::string Arg;
    if (A >= 0) {
      std::string Name;
      if (!keyword(C.Args[A], Name, &Arg))
        Arg = C.Args[A];
    } else if (A == -2 || Default.empty()) { // unknown, or past what is kept
      return Out;
    } else {
      Arg = Default;
    }
    std::string V, Where;
    if (!stringArg(G, Arg, V, Where)) {
      return Out;
    }
    Out.Values.insert(V);
    if (Out.First.empty())
      Out.First = Files[G].Rel + ":" + std::to_string(C.Line) + " passes " + Param + "=" + Arg +
                  (Arg[0] == '"' || Arg[0] == '\'' ? "" : " ('" + V + "'" +
                   (Where.empty() ? "" : ", " + Where) + ")");
    ++Out.Calls;
  }
  Out.Known = Out.Calls > 0;
  return Out;
}

bool ProjectModel::deadBranch(int F, int Def, const std::string &Param,
                              const std::vector<std::string> &Values, std::string &Why) const {
  const Definition &D = Files[F].S.Defs[Def];
  // Public API keeps every branch: a user may pass any mode. Private: a
  // leading `_` on the function, its module or a folder on its path.
  bool Private = !Files[F].Public || (!D.Name.empty() && D.Name[0] == '_');
  for (size_t B = 0, E; !Private && B < Files[F].Rel.size(); B = E + 1) {
    E = Files[F].Rel.find('/', B);
    if (E == std::string::npos)
      break;
    Private = Files[F].Rel[B] == '_';
  }
  if (D.Kind != Definition::Function || !Private)
    return false;
  const PassedValues &P = passedValues(F, Def, Param);
  if (!P.Known)
    return false;
  for (const std::string &W : Values)
    if (P.Values.count(W))
      return false;
  std::string Vs;
  for (const std::string &W : Values)
    Vs += (Vs.empty() ? "'" : " or '") + W + "'";
  Why = "launched from `" + D.Name + "` only where " + Param + " == " + Vs +
        ", and no call passes that (" + P.First +
        (P.Calls > 1 ? ", and " + std::to_string(P.Calls - 1) + " more" : "") + ")";
  return true;
}

} // namespace project
} // namespace kvlint
