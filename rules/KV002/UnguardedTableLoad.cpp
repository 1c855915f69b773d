//===- UnguardedTableLoad.cpp - KV002 ---------------------------------------===//
//
// For every load: split its address into a base pointer and additive terms;
// find a column term derived from a position divided (or shifted) by a
// block size; ask whether the base is an index table at all (table
// evidence); then sort the guards, masks and clamps that bound the column
// (or the position it is divided from):
//
//   width     the row stride of the same address, a name like
//             max_num_blocks, the next entry of a CSR indptr: silent;
//   sequence  a sequence length, or cdiv(seq_len, block_size): the
//             paged-attention idiom, safe by a scheduler invariant the
//             kernel does not check: reported at the `latent` level only;
//   other     anything else (K, the number of experts, the number of
//             requests): on a table named as such this is the wrong bound
//             and is reported; on an array that is only a table by shape
//             (a struct field, a call's result) the column is a bounded
//             quotient (k / group_size with k < K): not a table, silent.
//
// With nothing bounding the position at all (padding, speculative and
// CUDA-graph positions), the load is reported at the default level.
//
// At the latent level, a column that is a loop counter bounded by
// cdiv(seq_len, block_size) (the paged-attention loop) is reported too.
//
// The level (issue 24): a finding is reported at the default level only with
// evidence that the row can be narrower than the position's span --
//   narrow rows  the table's pointer, row width or block size is read per
//                KV-cache group; the kernel's names speak of a sliding
//                window, chunked-local attention or context parallelism
//                (virtual blocks); the width is used only as a pitch while
//                a sibling function of the file bounds a column by it;
//   an unbounded column (for an otherwise unbounded position) -- the
//                position is a draft, speculative, stale or prefetched one,
//                or read from another index table.
// Without evidence the load is in bounds while the scheduler allocates
// cdiv(len, block) columns, which nothing checks: the latent level. A read
// bounded by the sequence length (the paged-attention idiom) is latent
// whatever the tree shows: engines size every group's row for the request's
// own span.
//
//===----------------------------------------------------------------------===//
#include "UnguardedTableLoad.h"
#include "kvlint/Walk.h"

#include <algorithm>
#include <functional>
#include <set>

namespace kvlint {

std::vector<OptionSpec> UnguardedTableLoad::options() const {
  return {
      {"TablePattern",
       "table|req_to_token|req_to_page|indices|page_ids|block_ids|blocks|pages|kv_indptr|token_to|"
       "block_offsets|page_entr",
       "regex (case-insensitive) of table pointer names (also struct fields); a column divided "
       "by a plain literal counts only on such a table"},
      {"WidthPattern",
       "width|max_num_blocks|max_blocks|blocks_per|num_cols|cols|max_pages|pages_per|row_len|"
       "stride|max_len|max_context|max_seq_blocks|blocks$",
       "regex (case-insensitive) of names that bound a table column (the row width)"},
      {"BlockSizePattern", "block|page|blk|bs$|^bs|chunk|tile|group",
       "regex (case-insensitive) of divisor names that are block sizes"},
      {"SeqLenPattern",
       "seq_?lens?|seq_?length|seqlens?|seqused|context_?lens?|context_length|ctx_?lens?|"
       "kv_?lens?|^k_lens?$|kv_length|cache_?lens?|cache_seqlens|prefix_len|num_computed|"
       "total_?lens?|cur_?len",
       "regex (case-insensitive) of sequence lengths: a column bounded only by one of these "
       "(or by a loop over cdiv(seq_len, block_size)) is reported at the latent level only"},
      {"PadValue", "-1", "the pad slot the fix-it emits for out-of-range lanes (PAD_SLOT_ID)"},
  };
}

void UnguardedTableLoad::configure(const Options &O) {
  TableRe = optRegex(O, "TablePattern");
  WidthRe = optRegex(O, "WidthPattern");
  BlockRe = optRegex(O, "BlockSizePattern");
  SeqRe = optRegex(O, "SeqLenPattern");
  PadValue = opt(O, "PadValue");
  Latent = optLatent(O);
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

/// The last component of a member name: `params.block_table` -> block_table.
std::string leafName(const std::string &S) {
  size_t P = S.find_last_of(".>");
  return P == std::string::npos ? S : S.substr(P + 1);
}

bool knownInteger(const Node *N) { return N && N->Ty.known() && !N->Ty.Pointer; }

/// A null pointer constant (0, nullptr, NULL), through casts.
bool nullPtr(const Node *N) {
  for (unsigned I = 0; N && I < 8 && (N->K == Kind::Cast || N->K == Kind::Var); ++I)
    N = N->op(0);
  if (!N)
    return false;
  if (N->K == Kind::Const)
    return N->Value == 0;
  return N->Text == "nullptr" || N->Text == "NULL" || N->Name == "nullptr";
}

/// Splits an address into its base pointer and additive integer terms. An
/// untyped `Add` in base position (a pointer the frontend could not type,
/// `p = helper(...)`) splits at its one operand that is not an integer.
void splitAddress(const Node *A, const Node *&Base, std::vector<const Node *> &Terms,
                  bool CallsInlined, unsigned Depth = 0) {
  if (!A || Depth > 32)
    return;
  if (A->K == Kind::Var || (A->K == Kind::Call && A->op(0) && CallsInlined) ||
      (A->K == Kind::Cast && A->Ty.Pointer)) {
    splitAddress(A->op(0), Base, Terms, CallsInlined, Depth + 1);
    return;
  }
  auto AddTerms = [&](const Node *Off) {
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
    Add(Off, Depth);
  };
  if (A->K == Kind::PtrAdd) {
    splitAddress(A->op(0), Base, Terms, CallsInlined, Depth + 1);
    AddTerms(A->op(1));
    return;
  }
  // p = table ? table + row * W : nullptr: the pointer is the non-null arm.
  if ((A->K == Kind::Select && A->Ops.size() == 3) || (A->K == Kind::Phi && A->Ops.size() == 2)) {
    const Node *X = A->K == Kind::Select ? A->op(1) : A->op(0);
    const Node *Y = A->K == Kind::Select ? A->op(2) : A->op(1);
    if (nullPtr(X) && !nullPtr(Y)) {
      splitAddress(Y, Base, Terms, CallsInlined, Depth + 1);
      return;
    }
    if (nullPtr(Y) && !nullPtr(X)) {
      splitAddress(X, Base, Terms, CallsInlined, Depth + 1);
      return;
    }
  }
  if (A->K == Kind::Add && !A->Ty.known() && A->Ops.size() == 2) {
    const Node *L = A->op(0), *R = A->op(1);
    if (knownInteger(R) && !knownInteger(L)) {
      splitAddress(L, Base, Terms, CallsInlined, Depth + 1);
      AddTerms(R);
      return;
    }
    if (knownInteger(L) && !knownInteger(R)) {
      splitAddress(R, Base, Terms, CallsInlined, Depth + 1);
      AddTerms(L);
      return;
    }
  }
  Base = A;
}

/// sameValue for leaves only: loop-carried Phis are cyclic, and comparing
/// two of them structurally would not terminate.
bool sameLeaf(const Node *A, const Node *B) {
  if (A == B)
    return true;
  const Node *SA = stripVars(A), *SB = stripVars(B);
  if (!SA || !SB)
    return false;
  if (SA == SB)
    return true;
  if (A->K == Kind::Var && B->K == Kind::Var && !A->Name.empty() && A->Name == B->Name &&
      SA->K != Kind::Phi && SB->K != Kind::Phi)
    return sameLeaf(SA, SB);
  switch (SA->K) {
  case Kind::Const: case Kind::Param: case Kind::Symbolic: case Kind::LaunchIdx:
  case Kind::ThreadIdx: case Kind::LaunchDim:
    return sameValue(SA, SB);
  case Kind::Cast: case Kind::Div: case Kind::Shr: case Kind::Mul: case Kind::Add:
  case Kind::Sub: case Kind::Rem:
    if (SA->K != SB->K || SA->Ops.size() != SB->Ops.size())
      return false;
    for (size_t I = 0; I < SA->Ops.size(); ++I)
      if (!sameLeaf(SA->Ops[I], SB->Ops[I]))
        return false;
    return true;
  default:
    return false;
  }
}

/// True when X occurs in Hay (through locals; into memory reads only when
/// ThroughLoads). Visits each node once.
bool occurs(const Node *Hay, const Node *X, bool ThroughLoads) {
  return walkOperands({Hay}, 2048, [&](const Node *N) {
    if (sameLeaf(N, X))
      return Walk::Stop;
    return N->K == Kind::Load && !ThroughLoads ? Walk::Over : Walk::Into;
  });
}

/// True when N's value is computed from X without reading memory (through
/// locals, casts, arithmetic, inlined calls, merges): `j * TILE + offs`
/// derives from `j`; `positions[offs]` does not derive from `offs`.
bool derives(const Node *N, const Node *X) { return occurs(N, X, false); }

/// mentions() without the structural comparison of cyclic merges.
bool mentionsSafe(const Node *Hay, const Node *X) { return occurs(Hay, X, true); }

} // namespace

struct UnguardedTableLoad::Check {
  const UnguardedTableLoad &R;
  const Function &F;
  std::vector<Finding> &Out;
  mutable Magnitudes M; // a memo: filled by const queries

  enum class Bound : uint8_t { None, Other, Seq, Width };

  bool blockSize(const Node *D) const {
    D = strip(D);
    if (!D)
      return false;
    std::string N = nameOf(D);
    if (!N.empty() && R.BlockRe.search(N))
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
      // A literal counts as a block size from 8 (a shift from 3): x / 2 in
      // a binary search and dim >> 1 in a rotary table are not blocks.
      bool IsConst = FD.I && FD.I->Lo == FD.I->Hi;
      if (IsConst && FD.I->Lo < (T->K == Kind::Shr ? 3 : 8))
        return nullptr;
      bool Literal = IsConst && FD.I->Lo > 1;
      if (Named || (Literal && TableNamed) ||
          (T->K == Kind::Shr && TableNamed && !Literal))
        return T;
      return nullptr;
    }
    if (T->K == Kind::Add || T->K == Kind::Sub) // pos / bs + 1
      for (const Node *O : T->Ops)
        if (const Node *D = columnDiv(O, TableNamed, Depth + 1))
          return D;
    if (T->K == Kind::Phi) // offset = 0; if (seq_starts) offset = seq_starts[b] / bs;
      for (const Node *O : T->Ops)
        if (O != T)
          if (const Node *D = columnDiv(O, TableNamed, Depth + 1))
            return D;
    return nullptr;
  }

  /// Does E (the large side of a comparison, or a clamp bound) name a row
  /// width for this address?
  bool widthLike(const Node *E, const std::vector<const Node *> &Strides,
                 const std::vector<std::string> &TermLoadBases) const {
    return walkOperands({E}, 256, [&](const Node *N) {
      for (const Node *W : Strides)
        if (sameLeaf(N, W))
          return Walk::Stop;
      std::string Nm = nameOf(N);
      if ((N->K == Kind::Param || N->K == Kind::Var || N->K == Kind::Symbolic ||
           N->K == Kind::Const || N->K == Kind::Unknown) &&
          !Nm.empty() && R.WidthRe.search(Nm))
        return Walk::Stop;
      if (N->K != Kind::Load)
        return Walk::Into;
      std::string BN = nameOf(addressBase(N->op(0)));
      for (const std::string &X : TermLoadBases)
        if (!BN.empty() && X == BN)
          return Walk::Stop; // CSR: indptr[b + 1] bounds a row started at indptr[b]
      return Walk::Over;
    });
  }

  /// Is E a sequence length, or computed from one without other memory
  /// reads (cdiv(seq_len, block_size), min(seq_len, window_end))? A value
  /// loaded from a table of sequence lengths (seq_lens[b]) counts.
  bool seqDerived(const Node *Root) const {
    return walkOperands({Root}, 1024, [&](const Node *E) {
      std::string Nm = nameOf(E);
      if (E->K == Kind::Load) {
        // A table of sequence lengths, or of any per-request lengths
        // (gather_lens, query_lens): bounded by the sequence.
        static const Pattern LenTable = Pattern::builtin("(^|_)(lens?|lengths?)(_ptr)?$");
        std::string BN = nameOf(addressBase(E->op(0)));
        bool Len = (!BN.empty() && (R.SeqRe.search(BN) || LenTable.search(BN))) ||
                   (!E->Name.empty() && R.SeqRe.search(E->Name));
        return Len ? Walk::Stop : Walk::Over;
      }
      if ((E->K == Kind::Param || E->K == Kind::Var || E->K == Kind::Symbolic ||
           E->K == Kind::Unknown || E->K == Kind::Call) &&
          !Nm.empty() && R.SeqRe.search(Nm))
        return Walk::Stop;
      return Walk::Into;
    });
  }

  /// Is E a count of blocks: a division by a block size (cdiv(n, bs) is
  /// (n + bs - 1) / bs) or a tl.cdiv / triton.cdiv call?
  bool blockCount(const Node *E, unsigned Depth = 0) const {
    if (!E || Depth > 16)
      return false;
    if (E->K == Kind::Var || (E->K == Kind::Cast && !E->Ty.Pointer))
      return blockCount(E->op(0), Depth + 1);
    if (E->K == Kind::Div || E->K == Kind::Shr)
      return blockSize(E->op(1));
    if (E->K == Kind::Call && E->Name.find("cdiv") != std::string::npos)
      return E->Ops.size() >= 2 ? blockSize(E->Ops.back()) : true;
    if (E->K == Kind::Call && E->op(0))
      return blockCount(E->op(0), Depth + 1);
    if (E->K == Kind::Min || E->K == Kind::Max || E->K == Kind::Add || E->K == Kind::Sub)
      return blockCount(E->op(0), Depth + 1) || blockCount(E->op(1), Depth + 1);
    return false;
  }

  /// What kind of bound the large side of a comparison (or a clamp) is.
  Bound classify(const Node *Big, const std::vector<const Node *> &Strides,
                 const std::vector<std::string> &Bases) const {
    const Node *S = strip(Big);
    if (S && S->K == Kind::Min) { // min(cdiv(seq_len, bs), max_num_blocks): the width wins
      Bound A = classify(S->op(0), Strides, Bases), B = classify(S->op(1), Strides, Bases);
      return std::max(A, B);
    }
    for (const Node *W : Strides) // the row stride of this very address
      if (sameLeaf(Big, W))
        return Bound::Width;
    if (seqDerived(Big))
      return Bound::Seq;
    if (widthLike(Big, Strides, Bases))
      return Bound::Width;
    return Bound::Other;
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

  /// The comparison as it holds, oriented Small < Big (or <=); false when
  /// it bounds nothing from above.
  static bool orient(const Node *Cmp, bool Positive, const Node *&Small, const Node *&Big) {
    Kind K = Cmp->K;
    if (!Positive) { // !(a >= b) is a < b
      switch (K) {
      case Kind::Lt: K = Kind::Ge; break;
      case Kind::Le: K = Kind::Gt; break;
      case Kind::Gt: K = Kind::Le; break;
      case Kind::Ge: K = Kind::Lt; break;
      default: return false;
      }
    }
    if (K == Kind::Lt || K == Kind::Le) {
      Small = Cmp->op(0), Big = Cmp->op(1);
      return true;
    }
    if (K == Kind::Gt || K == Kind::Ge) {
      Small = Cmp->op(1), Big = Cmp->op(0);
      return true;
    }
    return false;
  }

  /// Does the small side of a bound speak about this column: the column,
  /// its division, the position, or a variable the position is computed
  /// from without a memory read (`j` in `j * TILE + offs`)?
  bool aboutColumn(const Node *Small, const Node *Col, const Node *Div, const Node *Pos) const {
    if (mentionsSafe(Small, Col) || (Div && mentionsSafe(Small, Div)) ||
        (Pos && mentionsSafe(Small, Pos)))
      return true;
    // A bound on a variable the position is computed from (j in
    // j * TILE + offs) bounds the position only when nothing else in it is
    // read from memory (token - start + seq_starts[b]: the loaded start is
    // unbounded), sequence lengths aside.
    const Node *S = strip(Small);
    if (S && Pos &&
        (S->K == Kind::Phi || S->K == Kind::Param || S->K == Kind::LaunchIdx ||
         Small->K == Kind::Var) &&
        derives(Pos, Small) && !foreignLoad(Pos))
      return true;
    return false;
  }

  /// Is E computed from sequence lengths and constants alone (seq_len - 1,
  /// cdiv(seq_len, BLOCK) - 1, min(cdiv(seq_len, BLOCK), other) - 1)?
  bool onlySeq(const Node *Root) const {
    std::vector<const Node *> Active;
    return seqOnly(Root, Active, 0) == 2;
  }

  /// A size: a parameter, member, constexpr or unknown leaf (through
  /// locals and casts), not a value read from memory or a launch index.
  static bool sizeLeaf(const Node *N) {
    for (unsigned I = 0; N && I < 16 && (N->K == Kind::Var || N->K == Kind::Cast); ++I)
      N = N->op(0);
    return N && (N->K == Kind::Param || N->K == Kind::Symbolic || N->K == Kind::Unknown ||
                 N->K == Kind::Const);
  }

  /// 0: not bounded by a sequence length; 1: constant-like (constants,
  /// lanes); 2: bounded by a sequence length.
  int seqOnly(const Node *E, std::vector<const Node *> &Active, unsigned Depth) const {
    if (!E || Depth > 40)
      return 0;
    if (std::find(Active.begin(), Active.end(), E) != Active.end())
      return 1; // a loop-carried merge reaching itself adds nothing
    std::string Nm = nameOf(E);
    if (E->K == Kind::Load)
      return seqDerived(E) ? 2 : 0;
    if ((E->K == Kind::Var || E->K == Kind::Param || E->K == Kind::Unknown ||
         E->K == Kind::Symbolic) &&
        !Nm.empty() && R.SeqRe.search(Nm))
      return 2;
    switch (E->K) {
    case Kind::Const: case Kind::Symbolic: case Kind::Range: case Kind::ThreadIdx:
      return 1;
    default:
      break;
    }
    // An opaque call (a header the scan does not have: cute::ceil_div) whose
    // arguments, as written, name a sequence length.
    if (E->K == Kind::Call && E->Ops.empty())
      return !E->Text.empty() && R.SeqRe.search(E->Text) ? 2 : 0;
    if (E->Ops.empty())
      return 0;
    Active.push_back(E);
    int R2;
    if (E->K == Kind::Min) { // bounded by its smallest bounded arm
      R2 = 0;
      for (const Node *O : E->Ops)
        R2 = std::max(R2, seqOnly(O, Active, Depth + 1));
    } else {
      // A scale (n_block * kBlockN, x / page_size) keeps the bound when the
      // scale is a size: a parameter, a constant, not a read from memory.
      bool Scale = E->K == Kind::Mul || E->K == Kind::Div || E->K == Kind::Shl ||
                   E->K == Kind::Shr;
      R2 = 1;
      for (const Node *O : E->Ops) {
        int X = seqOnly(O, Active, Depth + 1);
        if (X == 0 && Scale && sizeLeaf(O))
          X = 1;
        if (X == 0) {
          R2 = 0;
          break;
        }
        R2 = std::max(R2, X);
      }
    }
    Active.pop_back();
    return R2;
  }

  /// Does the position include a value read from memory other than a
  /// sequence length? What is subtracted (a start, the length of another
  /// region: token - prev_window_len - raw_kv_lens[b]) only lowers it.
  bool foreignLoad(const Node *Pos) const {
    std::vector<const Node *> Work = {Pos};
    std::set<const Node *> Seen;
    while (!Work.empty() && Seen.size() < 1024) {
      const Node *N = Work.back();
      Work.pop_back();
      if (!N || !Seen.insert(N).second)
        continue;
      if (N->K == Kind::Load) {
        if (!seqDerived(N))
          return true;
        continue;
      }
      if (N->K == Kind::Sub && N->Ops.size() == 2) {
        Work.push_back(N->op(0));
        continue;
      }
      for (const Node *O : N->Ops)
        Work.push_back(O);
    }
    return false;
  }

  struct Site {
    const Node *Col = nullptr, *Div = nullptr;
    Bound B = Bound::None;
    const Node *BoundBy = nullptr; ///< the large side that bounds it
    bool PosFromSeq = false;      ///< the position is itself a sequence length (seq_len - 1)
    const Node *RealToken = nullptr; ///< padded tokens left earlier (slot_mapping[t] < 0)
    bool FromGrid = false;        ///< the position comes from launch indices alone
    bool LoopColumn = false;      ///< a loop counter bounded by cdiv(seq_len, bs)
    std::string Evidence;         ///< why the row can be narrower (default level)
  };

  /// Names that say a row is narrower than the sequence it serves.
  static const Pattern &narrowNames() {
    static const Pattern Re = Pattern::builtin(
        "sliding|window|^swa|_swa|chunked|attn_chunk|attention_chunk|local_attn|"
        "(^|_)cp_(world|size|rank)|cp_world|^dcp|^pcp|context_parallel|virtual_block|interleave");
    return Re;
  }

  /// A name matching Re among the leaves reachable from Roots (no deeper
  /// than memory reads), or "".
  static std::string nameIn(const std::vector<const Node *> &Roots, const Pattern &Re) {
    std::string Found;
    walkOperands(Roots, 2048, [&](const Node *N) {
      if (N->K == Kind::Param || N->K == Kind::Var || N->K == Kind::Symbolic ||
          N->K == Kind::Unknown) {
        std::string Nm = nameOf(N);
        if (!Nm.empty() && Re.search(Nm)) {
          Found = Nm;
          return Walk::Stop;
        }
      }
      return Walk::Into;
    });
    return Found;
  }

  /// Evidence that this table's row can be narrower than the span of the
  /// positions it is read at, or "".
  std::string narrowRows(const Access &A, const Node *SB, const std::vector<const Node *> &Strides,
                         const Node *Div) const {
    bool Inlined = F.Lang != Language::Triton;
    // A pointer read at a computed index of an array of pointers
    // (block_tables[g], _load_ptr(block_table_ptrs + group_id)).
    auto Indexed = [&](const Node *P) {
      if (!P)
        return false;
      const Node *X = P->K == Kind::Call ? (P->Ops.empty() ? nullptr : P->Ops[0]) : P->op(0);
      if (P->K == Kind::Call && !X && !P->Args.empty())
        X = P->Args[0];
      for (unsigned I = 0; X && I < 8 && (X->K == Kind::Var || X->K == Kind::Cast); ++I)
        X = X->op(0);
      if (X && X->K == Kind::Load) // _load_ptr's body: tl.load(ptr_to_ptr)
        X = X->op(0);
      for (unsigned I = 0; X && I < 8 && (X->K == Kind::Var || X->K == Kind::Cast); ++I)
        X = X->op(0);
      return X && (X->K == Kind::PtrAdd || X->K == Kind::Add);
    };
    if (SB && (SB->K == Kind::Load || (!Inlined && SB->K == Kind::Call)) && Indexed(SB))
      return "the table's pointer is read from an array of tables (one per KV-cache group)";
    // A width or block size read from an array of them: one per group.
    auto PerGroup = [&](const Node *N, const Pattern &Re) {
      const Node *L = strip(N);
      if (!L || L->K != Kind::Load)
        return false;
      std::string B = leafName(nameOf(addressBase(L->op(0))));
      return !B.empty() && Re.search(B);
    };
    if (Div && PerGroup(Div->op(1), R.BlockRe))
      return "the block size is read per KV-cache group ('" +
             (Div->op(1)->Text.empty() ? nameOf(Div->op(1)) : Div->op(1)->Text) + "')";
    for (const Node *W : Strides)
      if (PerGroup(W, R.WidthRe))
        return "the row width is read per KV-cache group ('" +
               (W->Text.empty() ? nameOf(W) : W->Text) + "')";
    if (Div) {
      const Node *D = strip(Div->op(1));
      if (D && D->K == Kind::Mul)
        return "the column is a virtual block of several ranks ('" +
               (Div->op(1)->Text.empty() ? nameOf(D) : Div->op(1)->Text) +
               "'): a context-parallel table";
    }
    return "";
  }

  /// Weaker evidence, for a position nothing else bounds: a name of the
  /// kernel's that speaks of a sliding window, chunked-local attention or
  /// context parallelism. Not for a sequence-bounded read: vLLM's hybrid
  /// allocator keeps a sliding-window group's row as wide as the sequence
  /// (out-of-window columns hold the null block).
  std::string narrowNamed(const Access &A, const Node *Div) const {
    std::vector<const Node *> Roots = {A.Addr, A.Mask};
    for (const Guard &G : A.Guards)
      Roots.push_back(G.Cond);
    if (Div)
      Roots.push_back(Div);
    std::string N = nameIn(Roots, narrowNames());
    if (!N.empty())
      return "'" + N + "' says the table serves a sliding-window, chunked or context-parallel "
                       "cache, whose rows can be narrower than the positions";
    return "";
  }

  /// The seed: the width is only a pitch here, and a sibling function of
  /// the file bounds a column by it. Evidence for a position nothing else
  /// bounds (not for a sequence-bounded read: the sibling's guard is about
  /// positions past the sequence's span, not inside it).
  std::string siblingGuard(const std::vector<const Node *> &Strides) const {
    for (const Node *W : Strides) {
      const Node *SW = strip(W);
      if (!SW || (SW->K != Kind::Param && SW->K != Kind::Symbolic && SW->K != Kind::Unknown))
        continue;
      std::string Nm = nameOf(SW);
      if (const NamedFact *G = ProjectFacts::find(F.Facts.GuardedWidths, Nm))
        return "'" + Nm + "' is used here only as a pitch, while " + G->Why;
    }
    return "";
  }

  /// Evidence that the position is not bounded by the request's length, or "".
  std::string unboundedColumn(const Node *Pos) const {
    static const Pattern Draft =
        Pattern::builtin("draft|spec|stale|prefetch|lookahead|accept|next_?(pos|block)");
    // another index table, or a table of starts inside the request
    // (vLLM's gather: token - cu_seq_lens[b] + seq_starts[b])
    static const Pattern Foreign = Pattern::builtin(
        "block_?table|req_?to_?token|kv_?indices|indptr|page_?table|token_?to|_indices$|"
        "(^|_)starts(_ptr)?$");
    std::string N = nameIn({Pos}, Draft);
    if (!N.empty())
      return "the position '" + N + "' is a draft, speculative or prefetched one, which the "
                                    "request's length does not bound";
    static const Pattern Starts = Pattern::builtin("(^|_)starts(_ptr)?$");
    std::string Why;
    // The loads the position adds (a subtracted start makes it relative to
    // the request: token - cu_seq_lens[b]).
    std::vector<const Node *> Work = {Pos};
    std::set<const Node *> Seen;
    while (!Work.empty() && Why.empty() && Seen.size() < 1024) {
      const Node *X = Work.back();
      Work.pop_back();
      if (!X || !Seen.insert(X).second)
        continue;
      if (X->K == Kind::Sub && X->Ops.size() == 2) {
        Work.push_back(X->op(0));
        continue;
      }
      if (X->K != Kind::Load) {
        for (const Node *O : X->Ops)
          Work.push_back(O);
        continue;
      }
      std::string B = leafName(nameOf(addressBase(X->op(0))));
      if (B.empty() || !(Foreign.search(B) || Draft.search(B)))
        continue;
      Why = Starts.search(B) ? "the position is offset by a start read from '" + B +
                                   "', which the request's length does not bound"
                             : "the position is read from another table ('" + B +
                                   "'), which the request's length does not bound";
    }
    return Why;
  }

  /// A base in shared memory or registers (`storage.amax_scratch[g][row]`
  /// of a struct over the shared buffer, a row of a fixed-size 2-D array):
  /// scratch of one CTA, never a block table the scheduler fills.
  static bool onChip(const Node *SB) {
    if (!SB)
      return false;
    const Node *B = addressBase(SB);
    return SB->OnChip || (B && B->OnChip);
  }

  /// The arrays the function itself stores into, by the name of their base.
  /// A block table is filled by the scheduler and only read by the kernels
  /// that address the cache; an array the kernel writes (`scratch[row] =
  /// amax` before `scratch[row]` is read back) is its own scratch, whatever
  /// its name or shape says.
  std::set<std::string> writtenBases() const {
    std::set<std::string> W;
    for (const Access &A : F.Accesses)
      if (A.AK == AccessKind::Store && A.Addr) {
        std::string N = leafName(nameOf(addressBase(A.Addr)));
        if (!N.empty())
          W.insert(N);
      }
    return W;
  }

  void run() {
    const std::set<std::string> Written = writtenBases();
    for (const Access &A : F.Accesses) {
      if (A.AK != AccessKind::Load || !A.Addr)
        continue;
      const Node *Base = nullptr;
      std::vector<const Node *> Terms;
      // A Clang Call node with an operand is an inlined helper (its value);
      // a Triton Call node is an opaque call (its operands are arguments),
      // so a Triton call in base position is the pointer it returns.
      bool Inlined = F.Lang != Language::Triton;
      splitAddress(A.Addr, Base, Terms, Inlined);
      if (!Base || Terms.empty())
        continue;
      const Node *SB = Inlined || Base->K != Kind::Call ? strip(Base) : Base;
      std::string BaseName = leafName(nameOf(SB));
      bool TableNamed = !BaseName.empty() && R.TableRe.search(BaseName);
      // Strides of the row term (row * W) and the bases of loaded row starts.
      std::vector<const Node *> Strides;
      std::vector<std::string> LoadBases;
      const Node *Col = nullptr, *Div = nullptr;
      std::vector<const Node *> Plain; // other terms: loop counters, maybe
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
          continue;
        }
        if (S && S->K == Kind::Load) {
          std::string B = nameOf(addressBase(S->op(0)));
          if (!B.empty())
            LoadBases.push_back(B);
          continue;
        }
        Plain.push_back(T);
      }
      // Table evidence: named like a table, a CSR row (indices[indptr[b] +
      // ...]), a struct field, or a pointer the kernel did not receive as a
      // typed parameter (returned by a call, read from a pointer array).
      bool CSR = !LoadBases.empty();
      auto Member = [](const std::string &S) {
        return S.find('.') != std::string::npos || S.find("->") != std::string::npos;
      };
      bool Field = SB && ((SB->K == Kind::Unknown && SB->Ty.Pointer) ||
                          (SB->K == Kind::Param &&
                           (!SB->Object.empty() || Member(SB->Name) || Member(SB->Text))));
      bool Returned = SB && (SB->K == Kind::Call || SB->K == Kind::Load);
      bool Evidence = TableNamed || CSR || Field || Returned;
      if (!Evidence || onChip(SB) || Written.count(leafName(nameOf(addressBase(SB)))))
        continue;

      std::vector<std::pair<const Node *, bool>> As;
      for (const Guard &G : A.Guards)
        atoms(G.Cond, !G.Negated, As);
      if (A.Mask)
        atoms(A.Mask, true, As);

      if (!Col) {
        // The paged-attention loop: a loop counter bounded by
        // cdiv(seq_len, block_size). Latent level only, unless the file
        // shows rows narrower than the sequence.
        // (Latent whatever the tree shows: the loop is bounded by the
        // request's own span, which engines size every group's row for.)
        if (!R.Latent)
          continue;
        std::string Narrow;
        for (const Node *T : Plain) {
          const Node *S = strip(T);
          if (!S || S->K == Kind::Const || S->K == Kind::Range || S->K == Kind::ThreadIdx ||
              S->K == Kind::LaunchIdx)
            continue; // a constant column, or lanes of the row
          Site St;
          for (const Guard &G : A.Guards) {
            if (G.How != Guard::Loop)
              continue;
            std::vector<std::pair<const Node *, bool>> LA;
            atoms(G.Cond, !G.Negated, LA);
            for (auto &[Cmp, Pos] : LA) {
              const Node *Small, *Big;
              if (!orient(Cmp, Pos, Small, Big) || !derives(T, Small))
                continue;
              Bound B = classify(Big, Strides, LoadBases);
              if (B == Bound::Seq && !blockCount(Big))
                B = Bound::Other; // i < seq_len: a token loop, not the block loop
              if (B == Bound::Seq && St.B != Bound::Width)
                St.B = B, St.BoundBy = Big;
              if (B == Bound::Width)
                St.B = B;
            }
          }
          if (St.B != Bound::Seq)
            continue;
          // No other guard may bound it by a width either.
          bool Width = false;
          for (auto &[Cmp, Pos] : As) {
            const Node *Small, *Big;
            if (orient(Cmp, Pos, Small, Big) && aboutColumn(Small, T, nullptr, nullptr) &&
                classify(Big, Strides, LoadBases) == Bound::Width)
              Width = true;
          }
          if (Width)
            continue;
          St.Col = T;
          St.LoopColumn = true;
          St.Evidence = Narrow;
          report(A, St, Strides);
          break;
        }
        continue;
      }

      const Node *Pos = Div->op(0);
      Site St;
      St.Col = Col, St.Div = Div;
      auto Take = [&](Bound B, const Node *Big) {
        if (B > St.B) {
          St.B = B;
          St.BoundBy = Big;
        }
      };
      // A clamp on the column itself: min(col, width - 1); a ?: arm.
      for (const Node *C = Col; C;) {
        if (C->K == Kind::Min) {
          Take(classify(C->op(0), Strides, LoadBases) == Bound::Width ||
                       classify(C->op(1), Strides, LoadBases) == Bound::Width
                   ? Bound::Width
                   : Bound::None,
               nullptr);
        }
        if (C->K == Kind::Select) {
          std::vector<std::pair<const Node *, bool>> SA;
          atoms(C->op(0), true, SA);
          for (auto &[Cmp, P] : SA) {
            const Node *Small, *Big;
            if (orient(Cmp, P, Small, Big) && aboutColumn(Small, Col, Div, Pos))
              Take(classify(Big, Strides, LoadBases), Big);
          }
        }
        if (C->K != Kind::Var && C->K != Kind::Cast)
          break;
        C = C->op(0);
      }
      for (auto &[Cmp, P] : As) {
        const Node *Small, *Big;
        if (!orient(Cmp, P, Small, Big))
          continue;
        if (aboutColumn(Small, Col, Div, Pos)) {
          Take(classify(Big, Strides, LoadBases), Big);
          continue;
        }
        // Another term of the column bounded by the width minus this one:
        // pid < min(end, W - offset) reads row[offset + pid] inside the row.
        bool OtherTerm = false;
        for (const Node *T : Plain)
          OtherTerm |= mentionsSafe(Small, T);
        if (OtherTerm && mentionsSafe(Big, Col) && widthLike(Big, Strides, LoadBases))
          Take(Bound::Width, Big);
        // ... or by a block count minus the position (a masked buffer_load
        // from row[start // n] at offsets j < cdiv(len, bs) - start): the
        // column stays below the request's own count.
        else if (OtherTerm && Big->K == Kind::Sub && mentionsSafe(Big->op(1), Pos) &&
                 classify(Big->op(0), Strides, LoadBases) == Bound::Seq)
          Take(Bound::Seq, Big);
      }
      if (St.B == Bound::Width)
        continue;
      // A position that is itself a sequence length (the last token:
      // seq_len - 1) is bounded by it.
      if (St.B == Bound::None && onlySeq(Pos))
        St.PosFromSeq = true;
      // Padded tokens (CUDA-graph padding) left before the load: the
      // kernel returned on the token's pad slot, so the position is a real
      // token's, inside its sequence.
      if (St.B == Bound::None && !St.PosFromSeq)
        St.RealToken = padExit(A);
      // A position computed from launch indices alone (pos = program_id(0))
      // is bounded by the grid the launcher sizes, not read from memory.
      if (!St.PosFromSeq && !St.RealToken && St.B != Bound::Seq && fromGrid(Pos))
        St.FromGrid = true;
      bool SeqLike = St.B == Bound::Seq || St.PosFromSeq || St.RealToken || St.FromGrid;
      // A quotient bounded by something that is neither a width nor a
      // sequence length (k < K, e < num_experts), on an array that is a
      // table only by its shape: a per-group scale, not a block table.
      if (!SeqLike && St.B == Bound::Other && !TableNamed && !CSR)
        continue;
      // Evidence counts for a position nothing bounds. A sequence-bounded
      // read stays latent even in a multi-group or sliding-window tree:
      // engines size every group's row for the request's own span (vLLM's
      // allocator fills out-of-window columns with the null block).
      if (!SeqLike)
        St.Evidence = narrowRows(A, SB, Strides, Div);
      if (St.Evidence.empty() && !SeqLike)
        St.Evidence = narrowNamed(A, Div);
      if (St.Evidence.empty() && !SeqLike)
        St.Evidence = siblingGuard(Strides);
      if (St.Evidence.empty() && !SeqLike)
        St.Evidence = unboundedColumn(Pos);
      if (St.Evidence.empty() && !R.Latent)
        continue;
      report(A, St, Strides);
    }
  }

  /// Is the position computed from launch indices (and sizes, constants)
  /// alone, with no value read from memory?
  bool fromGrid(const Node *Pos) const {
    bool Launch = false;
    bool Read = walkOperands({Pos}, 1024, [&](const Node *N) {
      if (N->K == Kind::Load || N->K == Kind::Call || N->K == Kind::Unknown)
        return Walk::Stop;
      Launch |= N->K == Kind::LaunchIdx;
      return Walk::Into;
    });
    return Launch && !Read;
  }

  /// An early exit (or enclosing guard) that skips padded tokens: a test
  /// that a value read from a slot mapping is the pad (slot_id < 0,
  /// slot == PAD_SLOT_ID) whose negation holds at the access. Returns the
  /// comparison, or null.
  const Node *padExit(const Access &A) const {
    static const Pattern SlotTable =
        Pattern::builtin("slot_mapping|slot_map|slot_ids?|out_cache_loc|cache_loc");
    for (const Guard &G : A.Guards) {
      std::vector<std::pair<const Node *, bool>> As;
      atoms(G.Cond, !G.Negated, As);
      for (auto &[Cmp, Pos] : As) {
        Kind K = Cmp->K;
        if (!Pos) {
          switch (K) {
          case Kind::Lt: K = Kind::Ge; break;
          case Kind::Le: K = Kind::Gt; break;
          case Kind::Eq: K = Kind::Ne; break;
          default: K = Kind::Unknown; break;
          }
        }
        const Node *X = strip(Cmp->op(0)), *C = strip(Cmp->op(1));
        bool Fact = (K == Kind::Ge && C && C->K == Kind::Const && C->Value >= 0) ||
                    (K == Kind::Gt && C && C->K == Kind::Const && C->Value >= -1) ||
                    (K == Kind::Ne && C && C->K == Kind::Const && C->Value < 0);
        if (!Fact || !X || X->K != Kind::Load)
          continue;
        std::string B = nameOf(addressBase(X->op(0)));
        if (!B.empty() && SlotTable.search(B))
          return Cmp->op(0);
      }
    }
    return nullptr;
  }

  /// The Load node the access reads into (same address, or same range).
  const Node *loadOf(const Access &A) const {
    const Node *Found = nullptr;
    std::vector<const Node *> Roots;
    for (const Access &X : F.Accesses)
      Roots.insert(Roots.end(), {X.Addr, X.Value, X.Mask});
    walkOperands(Roots, 4096, [&](const Node *N) {
      if (N->K == Kind::Load &&
          (N->op(0) == A.Addr ||
           (N->Range.valid() && A.Range.valid() && N->Range.Begin.Offset == A.Range.Begin.Offset &&
            N->Range.End.Offset == A.Range.End.Offset && N->Range.Begin.File == A.Range.Begin.File))) {
        Found = N;
        return Walk::Stop;
      }
      return Walk::Into;
    });
    return Found;
  }

  /// Stores whose written value is computed from the loaded block id: the
  /// slot-mapping stores the fix must pad. Direct is set when some store
  /// writes the block id itself.
  std::vector<const Access *> consumers(const Node *Ld, bool &Direct) const {
    std::vector<const Access *> R;
    Direct = false;
    if (!Ld)
      return R;
    for (const Access &X : F.Accesses) {
      if (X.AK != AccessKind::Store || !X.Value)
        continue;
      if (strip(X.Value) == Ld) {
        Direct = true;
        continue;
      }
      if (derives(X.Value, Ld))
        R.push_back(&X);
    }
    return R;
  }

  static bool editable(const SrcRange &Rg) {
    return Rg.valid() && !Rg.InMacro && Rg.End.Offset > Rg.Begin.Offset;
  }

  void report(const Access &A, const Site &St, const std::vector<const Node *> &Strides) {
    Finding Fd;
    Fd.Code = R.code();
    Fd.Check = R.check();
    Fd.Range = A.Range.valid() ? A.Range : A.Addr->Range;
    const Node *Col = St.Col;
    std::string ColText = Col->Text.empty() ? nameOf(Col) : Col->Text;
    Fd.Group = ColText; // one finding per column of the function: one guard fixes it
    if (St.LoopColumn) {
      std::string By = St.BoundBy ? (St.BoundBy->Text.empty() ? nameOf(St.BoundBy)
                                                               : St.BoundBy->Text)
                                  : "";
      Fd.Message = "table load reads column '" + ColText + "', a loop counter bounded by '" + By +
                   "', the sequence length in blocks, not by the row width; it stays in the "
                   "row only while the table spans the whole sequence";
    } else if (St.FromGrid) {
      std::string P = St.Div->op(0)->Text.empty() ? nameOf(St.Div->op(0)) : St.Div->op(0)->Text;
      Fd.Message = "table load reads column '" + ColText +
                   "', a position divided by a block size, where the position '" + P +
                   "' comes from launch indices: bounded by the grid the launcher sizes, not by "
                   "the row width; it stays in the row only while the grid stays inside the "
                   "sequence";
    } else if (St.RealToken) {
      Fd.Message = "table load reads column '" + ColText +
                   "', a position divided by a block size, of a real token (padded tokens "
                   "left on '" + (St.RealToken->Text.empty() ? nameOf(St.RealToken)
                                                            : St.RealToken->Text) +
                   "'), not bounded by the row width; it stays in the row only while the table "
                   "spans the whole sequence";
    } else if (St.B == Bound::Seq || St.PosFromSeq) {
      std::string By = St.BoundBy ? (St.BoundBy->Text.empty() ? nameOf(St.BoundBy)
                                                               : St.BoundBy->Text)
                                  : (St.Div->op(0)->Text.empty() ? nameOf(St.Div->op(0))
                                                                  : St.Div->op(0)->Text);
      Fd.Message = "table load reads column '" + ColText +
                   "', a position divided by a block size, bounded only by '" + By +
                   "', which comes from a sequence length, not by the row width; it stays in "
                   "the row only while the table spans the whole sequence";
    } else {
      Fd.Message = "table load reads column '" + ColText +
                   "', a position divided by a block size, with no bound against the row width; "
                   "past the row it reads the next row's blocks or faults";
    }
    bool OtherZero = A.Other && strip(A.Other) && strip(A.Other)->K == Kind::Const &&
                     strip(A.Other)->Value == 0;
    bool SeqLike = St.LoopColumn || St.FromGrid || St.RealToken || St.B == Bound::Seq ||
                   St.PosFromSeq;
    Fd.Latent = St.Evidence.empty();
    if (Fd.Latent && !SeqLike)
      Fd.Message += "; latent: in bounds while the scheduler allocates cdiv(len, block) "
                    "columns; nothing here checks it (nothing in this file shows a row "
                    "narrower than the position's span)";
    if (A.Mask)
      Fd.Message += "; the mask does not bound the column";
    if (OtherZero)
      Fd.Message += " and other=0 is a valid block id";
    Fd.Message += "; guard 'col < width' and emit the pad slot (" + R.PadValue + ")";
    // The mechanical C++ fix, when the width is the row stride of this very
    // address: the load reads only inside the row, and every store that
    // writes a slot computed from the block id writes the pad slot itself
    // for an out-of-row column (block * bs + off with block = -1 would be a
    // negative slot other than the pad, which consumers do not skip).
    const Node *W = nullptr;
    for (const Node *S : Strides) {
      std::string N = nameOf(strip(S));
      if (!N.empty() && R.WidthRe.search(N)) {
        W = S;
        break;
      }
    }
    bool Fixed = false;
    if (F.Lang != Language::Triton && W && !W->Text.empty() && !Col->Text.empty() &&
        Col->Text.find("...") == std::string::npos && editable(Fd.Range)) {
      std::string Cond = "(" + Col->Text + ") < (" + W->Text + ")";
      bool Direct = false;
      std::vector<const Access *> Cons = consumers(loadOf(A), Direct);
      bool Ok = Direct || !Cons.empty();
      for (const Access *C : Cons)
        Ok = Ok && editable(C->Value->Range) && C->Value->Range.Begin.File == Fd.Range.Begin.File;
      if (Ok) {
        FixIt Open, Close;
        Open.Begin = Fd.Range.Begin;
        Open.Text = "(" + Cond + " ? ";
        Close.Begin = Fd.Range.End;
        Close.Text = " : " + R.PadValue + ")";
        Fd.Fixes = {Open, Close};
        for (const Access *C : Cons) {
          FixIt O2, C2;
          O2.Begin = C->Value->Range.Begin;
          O2.Text = "(" + Cond + " ? ";
          C2.Begin = C->Value->Range.End;
          C2.Text = " : " + R.PadValue + ")";
          Fd.Fixes.push_back(O2);
          Fd.Fixes.push_back(C2);
        }
        Fixed = true;
      }
    }
    for (FixIt &X : Fd.Fixes)
      X.Safe = false; // consumers then see the pad slot: each must skip it (KV003)
    if (!Fixed)
      Fd.Notes.push_back({Fd.Range, "bound the column by the table's row width in the guard or "
                                    "mask, and give out-of-range lanes the pad slot " +
                                        R.PadValue + " (the slot itself, not the block id)"});
    if (!St.Evidence.empty())
      Fd.Notes.push_back({Fd.Range, "reported at the default level: " + St.Evidence});
    Out.push_back(std::move(Fd));
  }
};

void UnguardedTableLoad::run(const Function &F, std::vector<Finding> &Out) const {
  Check C{*this, F, Out, {}};
  C.run();
}

KVLINT_REGISTER_RULE(UnguardedTableLoad, "KV002", "kvlint-unguarded-table-load")

} // namespace kvlint
