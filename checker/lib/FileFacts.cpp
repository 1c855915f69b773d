//===- FileFacts.cpp - what a file's functions show about each other ------===//
//
// Rules judge one function at a time. Some evidence sits in a sibling: the
// slot-mapping kernel that stores the pad (-1, PAD_SLOT_ID) into the table a
// store kernel reads, the consumer that tests that table for the pad, the
// kernel that bounds a block-table column by the width its sibling uses only
// as a pitch. shareFileFacts reads them off the lowered IR of one file and
// hands every function of the file the same lists (Function::Facts). The
// project model will add the same kinds of fact across files.
//
//===----------------------------------------------------------------------===//
#include "kvlint/Analysis.h"
#include "kvlint/IR.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace kvlint {

std::string ProjectFacts::norm(const std::string &Name) {
  size_t P = Name.find_last_of(".>:");
  std::string S = P == std::string::npos ? Name : Name.substr(P + 1);
  std::transform(S.begin(), S.end(), S.begin(), [](unsigned char C) { return std::tolower(C); });
  for (const char *Suf : {"_ptr", "_ptrs", "ptr"})
    if (S.size() > std::strlen(Suf) + 1 && endsWith(S, Suf)) {
      S.resize(S.size() - std::strlen(Suf));
      break;
    }
  while (!S.empty() && S.back() == '_')
    S.pop_back();
  if (S.size() > 3 && S.back() == 's')
    S.pop_back();
  return S;
}

const NamedFact *ProjectFacts::find(const std::vector<NamedFact> &In, const std::string &Name) {
  std::string K = norm(Name);
  if (K.empty())
    return nullptr;
  for (const NamedFact &F : In)
    if (F.Name == K)
      return &F;
  return nullptr;
}

namespace {

const Node *through(const Node *N) {
  for (unsigned I = 0; N && I < 32 && (N->K == Kind::Var || (N->K == Kind::Cast && !N->Ty.Pointer));
       ++I)
    N = N->op(0);
  return N;
}

bool padName(const std::string &S) {
  std::string L = S;
  std::transform(L.begin(), L.end(), L.begin(), [](unsigned char C) { return std::tolower(C); });
  // Not "null": a null block id is a reserved real block (vLLM's is 0).
  return L.find("pad") != std::string::npos || L.find("invalid") != std::string::npos;
}

/// A negative constant, or a value named like the pad (PAD_SLOT_ID, PAD_ID).
bool padValue(const Node *N, unsigned Depth = 0) {
  const Node *P = through(N);
  if (!P || Depth > 8)
    return false;
  if (N && N->K == Kind::Var && padName(N->Name))
    return true;
  if (P->K == Kind::Const)
    return P->Value < 0;
  if (P->K == Kind::Neg) {
    const Node *X = through(P->op(0));
    return X && X->K == Kind::Const && X->Value > 0;
  }
  if (P->K == Kind::Select) // tl.where(ok, slot, PAD_ID): an arm is the pad
    return padValue(P->op(1), Depth + 1) || padValue(P->op(2), Depth + 1);
  if (P->K == Kind::Param || P->K == Kind::Symbolic || P->K == Kind::Unknown)
    return padName(nameOf(P));
  return false;
}

/// The table a value is read from, through locals and casts, or "".
std::string tableOf(const Node *N) {
  const Node *P = through(N);
  if (!P || P->K != Kind::Load)
    return "";
  std::string B = nameOf(addressBase(P->op(0)));
  return B.empty() ? P->Name : B;
}

/// Does N compute a block column (a division or shift) without a memory read?
bool hasQuotient(const Node *N, unsigned Depth = 0) {
  N = through(N);
  if (!N || Depth > 12 || N->K == Kind::Load || N->K == Kind::Phi)
    return false;
  if (N->K == Kind::Div || N->K == Kind::Shr)
    return true;
  if (N->K == Kind::Add || N->K == Kind::Sub)
    return hasQuotient(N->op(0), Depth + 1) || hasQuotient(N->op(1), Depth + 1);
  return false;
}

/// Parameter-like names in a width expression (min(w, x), w - 1).
void widthNames(const Node *N, std::vector<std::string> &Out, unsigned Depth = 0) {
  N = through(N);
  if (!N || Depth > 8)
    return;
  if (N->K == Kind::Param || N->K == Kind::Symbolic || N->K == Kind::Unknown) {
    std::string Nm = nameOf(N);
    if (!Nm.empty())
      Out.push_back(Nm);
    return;
  }
  if (N->K == Kind::Load || N->K == Kind::Const)
    return;
  for (const Node *O : N->Ops)
    widthNames(O, Out, Depth + 1);
}

std::string at(const Function &F, const SrcRange &R) {
  std::string File = R.Begin.File;
  size_t S = File.find_last_of('/');
  if (S != std::string::npos)
    File = File.substr(S + 1);
  return "'" + F.Name + "' (" + File + ":" + std::to_string(R.Begin.Line) + ")";
}

void add(std::vector<NamedFact> &V, const std::string &Name, const std::string &Why) {
  std::string K = ProjectFacts::norm(Name);
  if (K.empty() || ProjectFacts::find(V, K))
    return;
  V.push_back({K, Why});
}

} // namespace

void guardAtoms(const Node *C, bool Pos, std::vector<std::pair<const Node *, bool>> &Out,
                unsigned Depth) {
  C = through(C);
  if (!C || Depth > 16)
    return;
  if (C->K == Kind::LNot)
    return guardAtoms(C->op(0), !Pos, Out, Depth + 1);
  if ((C->K == Kind::LAnd && Pos) || (C->K == Kind::LOr && !Pos) || (C->K == Kind::And && Pos)) {
    guardAtoms(C->op(0), Pos, Out, Depth + 1);
    guardAtoms(C->op(1), Pos, Out, Depth + 1);
    return;
  }
  if (isComparison(C->K))
    Out.push_back({C, Pos});
}


void shareFileFacts(std::vector<std::unique_ptr<Function>> &Fns,
                    const std::vector<NamedFact> *ExtraPadWritten) {
  ProjectFacts All;
  for (const auto &FP : Fns) {
    const Function &F = *FP;
    for (const Access &A : F.Accesses) {
      if (A.AK == AccessKind::Store && A.Value && A.Addr && padValue(A.Value)) {
        std::string B = nameOf(addressBase(A.Addr));
        if (!B.empty())
          add(All.PadWritten, B, "function " + at(F, A.Range) + " stores the pad into it");
      }
      std::vector<std::pair<const Node *, bool>> As;
      for (const Guard &G : A.Guards)
        guardAtoms(G.Cond, !G.Negated, As);
      if (A.Mask)
        guardAtoms(A.Mask, true, As);
      for (auto &[Cmp, Pos] : As) {
        // slot < 0, slot >= 0, slot == PAD, slot != -1 on a value read from
        // a table: a consumer that skips the pad.
        for (int I = 0; I < 2; ++I) {
          std::string T = tableOf(Cmp->op(I));
          const Node *O = through(Cmp->op(1 - I));
          if (T.empty() || !O)
            continue;
          bool Zero = O->K == Kind::Const && (O->Value == 0 || O->Value == -1);
          bool Ord = Cmp->K == Kind::Lt || Cmp->K == Kind::Le || Cmp->K == Kind::Gt ||
                     Cmp->K == Kind::Ge;
          bool Eq = Cmp->K == Kind::Eq || Cmp->K == Kind::Ne;
          if ((Ord && Zero) || (Eq && padValue(Cmp->op(1 - I))))
            add(All.PadChecked, T, "function " + at(F, A.Range) + " tests it for the pad");
        }
        // col < width, pos / bs >= width: a column bounded by a width.
        if (Cmp->K == Kind::Eq || Cmp->K == Kind::Ne)
          continue;
        for (int I = 0; I < 2; ++I)
          if (hasQuotient(Cmp->op(I))) {
            std::vector<std::string> Ws;
            widthNames(Cmp->op(1 - I), Ws);
            for (const std::string &W : Ws)
              add(All.GuardedWidths, W,
                  "function " + at(F, A.Range) + " bounds a block column by it");
          }
      }
    }
  }
  if (ExtraPadWritten)
    for (const NamedFact &X : *ExtraPadWritten)
      add(All.PadWritten, X.Name, X.Why);
  for (auto &FP : Fns) {
    ProjectFacts &P = FP->Facts;
    for (const NamedFact &X : All.PadWritten)
      add(P.PadWritten, X.Name, X.Why);
    for (const NamedFact &X : All.PadChecked)
      add(P.PadChecked, X.Name, X.Why);
    for (const NamedFact &X : All.GuardedWidths)
      add(P.GuardedWidths, X.Name, X.Why);
  }
}

} // namespace kvlint
