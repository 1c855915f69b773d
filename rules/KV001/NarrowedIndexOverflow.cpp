//===- NarrowedIndexOverflow.cpp - KV001 ------------------------------------===//
//
// Walks every address's offset tree (through +, -, casts, variables, helper
// calls, selects) looking for a multiply or left shift evaluated in at most
// 32 bits where one factor is an unbounded index and the other a stride.
//
//===----------------------------------------------------------------------===//
#include "NarrowedIndexOverflow.h"

#include <cctype>

namespace kvlint {

std::vector<OptionSpec> NarrowedIndexOverflow::options() const {
  return {
      {"StridePattern",
       "stride|size|dim|width|bytes|pitch|elems|numel|count|^num|^n_|len$|heads|hidden|^ld|^max|_per_",
       "ECMAScript regex (case-insensitive) of parameter and member names that are strides or "
       "sizes, never indices; ALL_CAPS names are constants and count as strides too"},
      {"IndexPattern",
       "page|block|blk|slot|token|tok|seq|req|batch|loc|pos|idx|index|offset|entry|id$",
       "ECMAScript regex (case-insensitive): a 32-bit parameter or member whose name matches "
       "(and is not a stride) is an unbounded index; values loaded from memory or narrowed are "
       "indices whatever their name"},
      {"LaunchIndexTier", "false",
       "also report launch-index products (blockIdx.x * stride, tl.program_id(0) * stride)"},
      {"MinConstantStride", "2", "a constant factor below this is not a stride"},
      {"DependentLoadBits", "32",
       "in a primary template, the width assumed for an index table whose element type is a "
       "template parameter (0: do not assume)"},
      {"TableBasePattern",
       "table|indptr|indices|req_to_token|req_to_page|page_ids|block_ids|seq_lens|query_start_loc|"
       "cu_seqlens|slot_mapping|positions",
       "regex (case-insensitive) of index-table pointers: offsets into them (req * "
       "block_table_stride) are bounded by the table's size, far below 2^31, and not reported"},
      {"SafeHelpers", "",
       "regex of helper functions whose results are trusted offsets and whose bodies are not "
       "reported (e.g. ^page_offset$)"},
  };
}

void NarrowedIndexOverflow::configure(const Options &O) {
  StrideRe = optRegex(O, "StridePattern");
  HasSafe = !opt(O, "SafeHelpers").empty(); // an empty pattern would match every name
  SafeRe = optRegex(O, "SafeHelpers");
  IndexRe = optRegex(O, "IndexPattern");
  TableRe = optRegex(O, "TableBasePattern");
  LaunchTier = optBool(O, "LaunchIndexTier");
  MinConstantStride = optInt(O, "MinConstantStride");
  DependentLoadBits = optInt(O, "DependentLoadBits");
}

bool NarrowedIndexOverflow::strideName(const std::string &Name) const {
  if (Name.empty())
    return false;
  bool Caps = true, Letter = false;
  for (char C : Name) {
    if (std::islower(static_cast<unsigned char>(C)))
      Caps = false;
    Letter |= std::isalpha(static_cast<unsigned char>(C)) != 0;
  }
  if (Caps && Letter)
    return true;
  // kPageStride style constants.
  if (Name.size() > 1 && Name[0] == 'k' && std::isupper(static_cast<unsigned char>(Name[1])))
    return true;
  return std::regex_search(Name, StrideRe);
}

bool NarrowedIndexOverflow::isIndex(const Fact &F) const {
  if (F.M == Mag::Launch)
    return LaunchTier;
  if (F.M != Mag::Unbounded)
    return false;
  switch (F.O) {
  case Origin::Loaded:
  case Origin::Narrowed:
    return true;
  case Origin::Param:
    return !strideName(F.Name) && std::regex_search(F.Name, IndexRe);
  default:
    return false;
  }
}

bool NarrowedIndexOverflow::isStride(const Fact &F) const {
  if (F.I && F.I->Lo == F.I->Hi)
    return (F.I->Lo < 0 ? -F.I->Lo : F.I->Lo) >= MinConstantStride;
  if (F.M == Mag::Small && F.O == Origin::None)
    return false; // threadIdx, tl.arange, x % C: bounded, not a stride
  if (F.M == Mag::Launch && !LaunchTier)
    return false; // blockIdx.x * max_blocks: a launch product, its own tier
  return true;
}

static bool fits(const Fact &A, const Fact &B, const IntTy &T) {
  if (!A.I || !B.I || !T.known())
    return false;
  __int128 C[4] = {__int128(A.I->Lo) * B.I->Lo, __int128(A.I->Lo) * B.I->Hi,
                   __int128(A.I->Hi) * B.I->Lo, __int128(A.I->Hi) * B.I->Hi};
  __int128 Lo = C[0], Hi = C[0];
  for (__int128 X : C) {
    Lo = X < Lo ? X : Lo;
    Hi = X > Hi ? X : Hi;
  }
  __int128 Max = T.Signed ? (__int128(1) << (T.Bits - 1)) - 1 : (__int128(1) << T.Bits) - 1;
  __int128 Min = T.Signed ? -(__int128(1) << (T.Bits - 1)) : 0;
  return Lo >= Min && Hi <= Max;
}

static std::string quote(const Node *N) {
  std::string T = N->Text.empty() ? N->Name : N->Text;
  return "'" + T + "'";
}

struct NarrowedIndexOverflow::Walk {
  const NarrowedIndexOverflow &R;
  const Function &F;
  std::vector<Finding> &Out;
  Magnitudes M;
  std::set<std::pair<const Node *, bool>> Seen;
  std::set<const Node *> SeenAddr;

  bool safeCall(const Node *N) const {
    return N->K == Kind::Call && R.HasSafe && std::regex_search(N->Name, R.SafeRe);
  }

  void addr(const Node *N) {
    if (!N || !SeenAddr.insert(N).second)
      return;
    switch (N->K) {
    case Kind::PtrAdd:
      addr(N->op(0));
      offset(N->op(1), false);
      return;
    case Kind::Call:
      if (safeCall(N))
        return;
      [[fallthrough]];
    case Kind::Var:
    case Kind::Cast:
      addr(N->op(0));
      return;
    case Kind::Select:
      addr(N->op(1));
      addr(N->op(2));
      return;
    case Kind::Phi:
      for (const Node *O : N->Ops)
        addr(O);
      return;
    default:
      return;
    }
  }

  // Suppressed: inside the factors of a product already reported.
  void offset(const Node *N, bool Suppressed) {
    if (!N || !Seen.insert({N, Suppressed}).second)
      return;
    switch (N->K) {
    case Kind::Var:
      // A reported product's index factor stays suppressed through its
      // variables: in 'start = blk * BLOCK; p + start * stride' the report
      // is the outer product, and its fix-it widens the chain at 'blk'.
      offset(N->op(0), Suppressed);
      return;
    case Kind::Call:
      if (!safeCall(N))
        offset(N->op(0), Suppressed);
      return;
    case Kind::Cast:
      if (!Suppressed && narrowsWideOffset(N))
        return;
      [[fallthrough]];
    case Kind::Add:
    case Kind::Sub:
    case Kind::Neg:
    case Kind::Min:
    case Kind::Max:
    case Kind::Phi:
      for (const Node *O : N->Ops)
        offset(O, Suppressed);
      return;
    case Kind::Select:
      offset(N->op(1), Suppressed);
      offset(N->op(2), Suppressed);
      return;
    case Kind::Mul:
    case Kind::Shl: {
      const Node *Index = nullptr, *Stride = nullptr;
      if (!Suppressed && qualifies(N, Index, Stride)) {
        report(N, Index);
        offset(Index, true);
        offset(Stride, true);
        return;
      }
      for (const Node *O : N->Ops)
        offset(O, Suppressed);
      return;
    }
    default:
      return; // loads, divisions, remainders, masks: the walk stops
    }
  }

  /// A 64-bit offset (index * stride widened correctly) cut back to 32 bits
  /// before it is used: `int off = (int64_t)page * stride; cache[off]`.
  bool narrowsWideOffset(const Node *Cast) {
    const Node *From = Cast->op(0);
    if (!From || !Cast->Ty.narrow() || !From->Ty.known() || From->Ty.Pointer ||
        From->Ty.Bits <= Cast->Ty.Bits)
      return false;
    std::vector<const Node *> Stack = {From};
    for (unsigned Steps = 0; !Stack.empty() && Steps < 64; ++Steps) {
      const Node *N = Stack.back();
      Stack.pop_back();
      if (!N)
        continue;
      if (N->K == Kind::Add || N->K == Kind::Sub || N->K == Kind::Var ||
          (N->K == Kind::Cast && !N->Ty.narrow())) {
        for (const Node *O : N->Ops)
          Stack.push_back(O);
        continue;
      }
      if (N->K != Kind::Mul || N->Ty.narrow() || !N->Ty.known())
        continue;
      for (int I = 0; I < 2; ++I) {
        const Fact &FI = M.of(N->op(I));
        if (!R.isIndex(FI) || !R.isStride(M.of(N->op(1 - I))))
          continue;
        Finding Fd;
        Fd.Code = R.code();
        Fd.Check = R.check();
        Fd.Range = Cast->Range;
        Fd.Message = std::to_string(From->Ty.Bits) + "-bit offset " + quote(From) +
                     " is narrowed to " + std::to_string(Cast->Ty.Bits) +
                     " bits before it is used as a memory offset and wraps past " +
                     (Cast->Ty.Signed ? "2^31" : "2^32") +
                     "; keep the offset in a 64-bit type (int64_t)";
        Out.push_back(std::move(Fd));
        return true;
      }
    }
    return false;
  }

  /// The width a value has in the instantiations that matter when the
  /// primary template leaves it dependent: an index table's element type is
  /// assumed DependentLoadBits wide (IdType is int32_t in every engine we
  /// measured); anything else dependent stays unknown.
  IntTy effective(const Node *N, unsigned Depth = 0) const {
    if (!N || Depth > 16)
      return IntTy::unknown();
    if (N->Ty.known() || N->Ty.Pointer)
      return N->Ty;
    switch (N->K) {
    case Kind::Load:
      return R.DependentLoadBits > 0 ? IntTy::integer(unsigned(R.DependentLoadBits), true)
                                     : IntTy::unknown();
    case Kind::Var:
    case Kind::Call:
      return effective(N->op(0), Depth + 1);
    case Kind::Add: case Kind::Sub: case Kind::Mul: case Kind::Select: case Kind::Phi: {
      IntTy T = IntTy::integer(32, true);
      for (size_t I = N->K == Kind::Select ? 1 : 0; I < N->Ops.size(); ++I) {
        IntTy O = effective(N->Ops[I], Depth + 1);
        if (!O.known())
          return IntTy::unknown();
        if (O.Bits > T.Bits || (O.Bits == T.Bits && !O.Signed))
          T = O.Bits < 32 ? T : O;
      }
      return T;
    }
    default:
      return IntTy::unknown();
    }
  }

  bool qualifies(const Node *N, const Node *&Index, const Node *&Stride) {
    if (isRoundDown(N))
      return false;
    IntTy Ty = N->Ty.known() ? N->Ty : effective(N);
    if (!Ty.narrow())
      return false;
    const Node *A = N->op(0), *B = N->op(1);
    if (!A || !B)
      return false;
    const Fact &FA = M.of(A);
    Fact FB = M.of(B);
    if (N->K == Kind::Shl) { // x << c is x * 2^c
      if (FB.I && FB.I->Lo == FB.I->Hi) {
        if (FB.I->Lo < 0 || FB.I->Lo > 62)
          return false;
        int64_t P = int64_t(1) << FB.I->Lo;
        FB.I = Interval{P, P};
      } else {
        FB.I.reset();
      }
    }
    if (fits(FA, FB, Ty))
      return false;
    if (R.isIndex(FA) && R.isStride(FB)) {
      Index = A, Stride = B;
      return true;
    }
    if (N->K == Kind::Mul && R.isIndex(FB) && R.isStride(FA)) {
      Index = B, Stride = A;
      return true;
    }
    return false;
  }

  void report(const Node *N, const Node *Index) {
    IntTy Ty = N->Ty.known() ? N->Ty : effective(N);
    const Node *Leaf = leftmostFactor(Index);
    const Fact &FI = M.of(Index);
    // Name the leaf when it is the index itself (page in page * a * b);
    // otherwise the whole index factor (4 * page).
    const Node *Named = R.isIndex(M.of(Leaf)) ? Leaf : Index;
    Finding Fd;
    Fd.Code = R.code();
    Fd.Check = R.check();
    Fd.Range = N->Range;
    std::string Why;
    switch (FI.O) {
    case kvlint::Origin::Loaded: Why = "is loaded from memory"; break;
    case kvlint::Origin::Narrowed: Why = "is narrowed to 32 bits"; break;
    case kvlint::Origin::Param: Why = "is a 32-bit parameter"; break;
    case kvlint::Origin::Launch: Why = "is a launch index"; break;
    default: Why = "is not bounded"; break;
    }
    Fd.Message = std::to_string(Ty.Bits) + "-bit " + (Ty.Signed ? "signed" : "unsigned") +
                 " product " + quote(N) + " is used as a memory offset and wraps past " +
                 (Ty.Signed ? "2^31" : "2^32") + ": index " + quote(Named) + " " + Why +
                 "; widen it to 64 bits before it multiplies";
    if (!widenFix(F.Lang, Leaf, Fd.Fixes))
      Fd.Notes.push_back({Leaf->Range, "the index is spelled inside a macro; widen it there"});
    Out.push_back(std::move(Fd));
  }
};

void NarrowedIndexOverflow::run(const Function &F, std::vector<Finding> &Out) const {
  if (HasSafe && std::regex_search(F.Name, SafeRe))
    return;
  Walk W{*this, F, Out, {}, {}, {}};
  for (const Access &A : F.Accesses) {
    const Node *Base = addressBase(A.Addr);
    if (Base && !Base->Name.empty() && std::regex_search(Base->Name, TableRe))
      continue;
    W.addr(A.Addr);
  }
}

KVLINT_REGISTER_RULE(NarrowedIndexOverflow, "KV001", "kvlint-narrowed-index-overflow")

} // namespace kvlint
