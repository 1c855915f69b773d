//===- UnguardedTableLoad.cpp - KV002 ---------------------------------------===//
//
// For every load: split its address into a base pointer and additive terms;
// find a column term derived from a position divided (or shifted) by a
// block size; then look for a guard, mask or clamp that bounds the column
// (or the position) by a width: the row stride of the same address, a name
// like max_num_blocks, or the next entry of a CSR indptr. A bound on
// anything else (number of requests, number of tokens) does not count.
//
//===----------------------------------------------------------------------===//
#include "UnguardedTableLoad.h"

#include <functional>

namespace kvlint {

std::vector<OptionSpec> UnguardedTableLoad::options() const {
  return {
      {"TablePattern",
       "table|req_to_token|req_to_page|indices|page_ids|block_ids|blocks|pages|kv_indptr|token_to",
       "regex (case-insensitive) of table pointer names; a column divided by a plain literal "
       "counts only on such a table"},
      {"WidthPattern",
       "width|max_num_blocks|max_blocks|blocks_per|num_cols|cols|max_pages|pages_per|row_len|"
       "stride|max_len|max_context|max_seq_blocks|blocks$",
       "regex (case-insensitive) of names that bound a table column (the row width)"},
      {"BlockSizePattern", "block|page|blk|bs$|^bs|chunk|tile|group",
       "regex (case-insensitive) of divisor names that are block sizes"},
      {"PadValue", "-1", "the pad slot the fix-it emits for out-of-range lanes (PAD_SLOT_ID)"},
      {"LoopBoundedTier", "false",
       "also report a column that is only bounded by a loop over cdiv(seq_len, block_size) "
       "(the paged-attention idiom, which relies on the table spanning the sequence)"},
  };
}

void UnguardedTableLoad::configure(const Options &O) {
  TableRe = optRegex(O, "TablePattern");
  WidthRe = optRegex(O, "WidthPattern");
  BlockRe = optRegex(O, "BlockSizePattern");
  PadValue = opt(O, "PadValue");
  LoopTier = optBool(O, "LoopBoundedTier");
}

namespace {

const Node *strip(const Node *N) {
  for (unsigned I = 0; N && I < 64; ++I) {
    if (N->K == Kind::Var || (N->K == Kind::Call && N->op(0)))
      N = N->op(0);
    else if (N->K == Kind::Cast && !N->Ty.Pointer)
      N = N->op(0);
    else
      break;
  }
  return N;
}

std::string nameOf(const Node *N) {
  if (!N)
    return "";
  if (!N->Name.empty())
    return N->Name;
  return N->Text;
}

/// Splits an address into its base pointer and additive integer terms.
void splitAddress(const Node *A, const Node *&Base, std::vector<const Node *> &Terms,
                  unsigned Depth = 0) {
  if (!A || Depth > 32)
    return;
  if (A->K == Kind::Var || (A->K == Kind::Call && A->op(0)) || (A->K == Kind::Cast && A->Ty.Pointer)) {
    splitAddress(A->op(0), Base, Terms, Depth + 1);
    return;
  }
  if (A->K == Kind::PtrAdd) {
    splitAddress(A->op(0), Base, Terms, Depth + 1);
    std::function<void(const Node *, unsigned)> Add = [&](const Node *T, unsigned D) {
      const Node *S = T;
      while (S && (S->K == Kind::Var || (S->K == Kind::Cast && !S->Ty.Pointer)) && D < 48) {
        const Node *In = S->op(0);
        if (!In || (In->K != Kind::Add && In->K != Kind::Var && In->K != Kind::Cast))
          break;
        S = In;
        ++D;
      }
      if (S && S->K == Kind::Add && D < 48) {
        Add(S->op(0), D + 1);
        Add(S->op(1), D + 1);
        return;
      }
      Terms.push_back(T);
    };
    Add(A->op(1), Depth);
    return;
  }
  Base = A;
}

} // namespace

struct UnguardedTableLoad::Check {
  const UnguardedTableLoad &R;
  const Function &F;
  std::vector<Finding> &Out;
  mutable Magnitudes M; // a memo: filled by const queries

  bool blockSize(const Node *D) const {
    D = strip(D);
    if (!D)
      return false;
    std::string N = nameOf(D);
    if (!N.empty() && std::regex_search(N, R.BlockRe))
      return true;
    if (D->K == Kind::Mul) // block_size * cp_size: context-parallel virtual blocks
      return blockSize(D->op(0)) || blockSize(D->op(1));
    return false;
  }

  /// The division (or shift) that makes T a block column, or null.
  const Node *columnDiv(const Node *T, bool TableNamed, unsigned Depth = 0) const {
    T = strip(T);
    if (!T || Depth > 8)
      return nullptr;
    if (T->K == Kind::Div || T->K == Kind::Shr) {
      const Node *Num = T->op(0), *Den = T->op(1);
      const Fact &FN = M.of(Num);
      if (FN.M == Mag::Small && FN.O == Origin::None)
        return nullptr; // threadIdx / 4: a lane, not a position
      bool Named = blockSize(Den);
      const Fact &FD = M.of(Den);
      bool Literal = FD.I && FD.I->Lo == FD.I->Hi && FD.I->Lo > 1;
      if (Named || (Literal && TableNamed) ||
          (T->K == Kind::Shr && TableNamed && !Literal))
        return T;
      return nullptr;
    }
    if (T->K == Kind::Add || T->K == Kind::Sub) // pos / bs + 1
      for (const Node *O : T->Ops)
        if (const Node *D = columnDiv(O, TableNamed, Depth + 1))
          return D;
    return nullptr;
  }

  /// Does E (the large side of a comparison, or a clamp bound) name a row
  /// width for this address?
  bool widthLike(const Node *E, const std::vector<const Node *> &Strides,
                 const std::vector<std::string> &TermLoadBases) const {
    bool Found = false;
    std::vector<const Node *> Stack = {E};
    std::vector<const Node *> Seen;
    while (!Stack.empty() && !Found && Seen.size() < 256) {
      const Node *N = Stack.back();
      Stack.pop_back();
      if (!N || std::find(Seen.begin(), Seen.end(), N) != Seen.end())
        continue;
      Seen.push_back(N);
      for (const Node *W : Strides)
        if (sameValue(N, W))
          Found = true;
      std::string Nm = nameOf(N);
      if ((N->K == Kind::Param || N->K == Kind::Var || N->K == Kind::Symbolic ||
           N->K == Kind::Const || N->K == Kind::Unknown) &&
          !Nm.empty() && std::regex_search(Nm, R.WidthRe))
        Found = true;
      if (N->K == Kind::Load) {
        std::string BN = nameOf(addressBase(N->op(0)));
        for (const std::string &X : TermLoadBases)
          if (!BN.empty() && X == BN)
            Found = true; // CSR: indptr[b + 1] bounds a row started at indptr[b]
        continue;
      }
      for (const Node *O : N->Ops)
        Stack.push_back(O);
    }
    return Found;
  }

  /// Atomic facts of a guard: (comparison, holds-as-written).
  void atoms(const Node *C, bool Positive, std::vector<std::pair<const Node *, bool>> &Out,
             unsigned Depth = 0) const {
    C = strip(C);
    if (!C || Depth > 16)
      return;
    if (C->K == Kind::LNot) {
      atoms(C->op(0), !Positive, Out, Depth + 1);
      return;
    }
    if ((C->K == Kind::LAnd && Positive) || (C->K == Kind::LOr && !Positive)) {
      atoms(C->op(0), Positive, Out, Depth + 1);
      atoms(C->op(1), Positive, Out, Depth + 1);
      return;
    }
    if (C->K == Kind::And && C->Ty.Bool && Positive) { // Triton masks: a & b
      atoms(C->op(0), Positive, Out, Depth + 1);
      atoms(C->op(1), Positive, Out, Depth + 1);
      return;
    }
    if (isComparison(C->K))
      Out.push_back({C, Positive});
  }

  /// Does the comparison, as it holds, put an upper bound on Col (or on
  /// the position it is divided from) by a width?
  bool bounds(const Node *Cmp, bool Positive, const Node *Col, const Node *Div,
              const std::vector<const Node *> &Strides,
              const std::vector<std::string> &Bases) const {
    Kind K = Cmp->K;
    if (!Positive) { // !(a >= b) is a < b
      switch (K) {
      case Kind::Lt: K = Kind::Ge; break;
      case Kind::Le: K = Kind::Gt; break;
      case Kind::Gt: K = Kind::Le; break;
      case Kind::Ge: K = Kind::Lt; break;
      case Kind::Eq: K = Kind::Ne; break;
      case Kind::Ne: K = Kind::Eq; break;
      default: break;
      }
    }
    const Node *Small, *Big;
    if (K == Kind::Lt || K == Kind::Le) {
      Small = Cmp->op(0), Big = Cmp->op(1);
    } else if (K == Kind::Gt || K == Kind::Ge) {
      Small = Cmp->op(1), Big = Cmp->op(0);
    } else {
      return false;
    }
    bool AboutCol = mentions(Small, Col) || mentions(Small, Div) || mentions(Small, Div->op(0));
    return AboutCol && widthLike(Big, Strides, Bases);
  }

  void run() {
    for (const Access &A : F.Accesses) {
      if (A.AK != AccessKind::Load || !A.Addr)
        continue;
      const Node *Base = nullptr;
      std::vector<const Node *> Terms;
      splitAddress(A.Addr, Base, Terms);
      if (!Base || Terms.empty())
        continue;
      std::string BaseName = nameOf(strip(Base));
      bool TableNamed = !BaseName.empty() && std::regex_search(BaseName, R.TableRe);
      // Strides of the row term (row * W) and the bases of loaded row starts.
      std::vector<const Node *> Strides;
      std::vector<std::string> LoadBases;
      const Node *Col = nullptr, *Div = nullptr;
      for (const Node *T : Terms) {
        const Node *S = strip(T);
        if (!Col)
          if (const Node *D = columnDiv(T, TableNamed)) {
            Col = T, Div = D;
            continue;
          }
        if (S && (S->K == Kind::Mul || S->K == Kind::Shl)) {
          Strides.push_back(S->op(0));
          Strides.push_back(S->op(1));
        }
        if (S && S->K == Kind::Load) {
          std::string B = nameOf(addressBase(S->op(0)));
          if (!B.empty())
            LoadBases.push_back(B);
        }
      }
      if (!Col)
        continue;
      // A clamp on the column itself: min(col, width - 1).
      bool Guarded = false;
      for (const Node *C = Col; C && !Guarded;) {
        if (C->K == Kind::Min)
          Guarded = widthLike(C->op(0), Strides, LoadBases) ||
                    widthLike(C->op(1), Strides, LoadBases);
        if (C->K == Kind::Select) {
          std::vector<std::pair<const Node *, bool>> As;
          atoms(C->op(0), true, As);
          for (auto &[Cmp, Pos] : As)
            Guarded |= bounds(Cmp, Pos, Col, Div, Strides, LoadBases);
        }
        if (C->K != Kind::Var && C->K != Kind::Cast)
          break;
        C = C->op(0);
      }
      std::vector<std::pair<const Node *, bool>> As;
      for (const Guard &G : A.Guards)
        atoms(G.Cond, !G.Negated, As);
      if (A.Mask)
        atoms(A.Mask, true, As);
      for (auto &[Cmp, Pos] : As)
        if (!Guarded)
          Guarded = bounds(Cmp, Pos, Col, Div, Strides, LoadBases);
      if (Guarded)
        continue;
      report(A, Col, Strides);
    }
  }

  void report(const Access &A, const Node *Col, const std::vector<const Node *> &Strides) {
    Finding Fd;
    Fd.Code = R.code();
    Fd.Check = R.check();
    Fd.Range = A.Range.valid() ? A.Range : A.Addr->Range;
    std::string ColText = Col->Text.empty() ? nameOf(Col) : Col->Text;
    Fd.Message = "table load reads column '" + ColText +
                 "', a position divided by a block size, with no bound against the row width; "
                 "past the row it reads the next row's blocks or faults";
    bool OtherZero = A.Other && strip(A.Other) && strip(A.Other)->K == Kind::Const &&
                     strip(A.Other)->Value == 0;
    if (A.Mask)
      Fd.Message += "; the mask does not bound the column";
    if (OtherZero)
      Fd.Message += " and other=0 is a valid block id";
    Fd.Message += "; guard 'col < width' and emit the pad slot (" + R.PadValue + ")";
    // The mechanical C++ fix: a ternary around the load, when the width is
    // the row stride of this very address.
    const Node *W = nullptr;
    for (const Node *S : Strides) {
      std::string N = nameOf(strip(S));
      if (!N.empty() && std::regex_search(N, R.WidthRe)) {
        W = S;
        break;
      }
    }
    if (F.Lang != Language::Triton && W && !W->Text.empty() && !Col->Text.empty() &&
        Col->Text.find("...") == std::string::npos && !Fd.Range.InMacro && Fd.Range.valid() &&
        Fd.Range.End.Offset > Fd.Range.Begin.Offset) {
      FixIt Open, Close;
      Open.Begin = Fd.Range.Begin;
      Open.Text = "((" + Col->Text + ") < (" + W->Text + ") ? ";
      Close.Begin = Fd.Range.End;
      Close.Text = " : " + R.PadValue + ")";
      Fd.Fixes = {Open, Close};
    } else {
      Fd.Notes.push_back({Fd.Range, "bound the column by the table's row width in the guard or "
                                    "mask, and give out-of-range lanes the pad slot " +
                                        R.PadValue});
    }
    Out.push_back(std::move(Fd));
  }
};

void UnguardedTableLoad::run(const Function &F, std::vector<Finding> &Out) const {
  Check C{*this, F, Out, {}};
  C.run();
}

KVLINT_REGISTER_RULE(UnguardedTableLoad, "KV002", "kvlint-unguarded-table-load")

} // namespace kvlint
