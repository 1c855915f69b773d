//===- NarrowedIndexOverflow.cpp - KV001 ------------------------------------===//
//
// Walks every address's offset tree (through +, -, casts, variables, helper
// calls, selects) looking for a multiply or left shift evaluated in at most
// 32 bits whose bound (Bounds.h: facts first, then the deployment envelope)
// leaves its type. Names decide nothing here that a fact can decide.
//
//===----------------------------------------------------------------------===//
#include "NarrowedIndexOverflow.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace kvlint {

std::vector<OptionSpec> NarrowedIndexOverflow::options() const {
  return {
      {"DependentLoadBits", "32",
       "in a primary template, the width assumed for an index table whose element type is a "
       "template parameter (0: do not assume)"},
      {"DependentMemberBits", "32",
       "the width assumed for a member of a params struct whose type the primary template "
       "(or a missing header) leaves unknown (`params.h`, `params.seqlen_q_rounded`), unless "
       "DependentMemberWidePattern names it (0: do not assume)"},
      {"DependentMemberWidePattern", "stride|^ld[a-z]?$|pitch|offset|ptr|size_t|bytes",
       "regex (case-insensitive) of such members that engines declare 64-bit (index_t "
       "strides) and that are not assumed narrow"},
      {"TableBasePattern",
       "table|indptr|indices|req_to_token|req_to_page|page_ids|block_ids|seq_lens|query_start_loc|"
       "cu_seqlens|slot_mapping|positions",
       "regex (case-insensitive) of index-table pointers: offsets into them (req * "
       "block_table_stride) are bounded by the table's size, far below 2^31, and not reported"},
      {"SafeHelpers", "",
       "regex of helper functions whose results are trusted offsets and whose bodies are not "
       "reported (e.g. ^page_offset$)"},
      {"OnChipPattern", "smem",
       "regex (case-insensitive) of pointer names (a helper's parameter, an accessor's result, "
       "a member), or of the object a member belongs to (smem in smem.state), that point into "
       "shared memory, where the array is declared out of sight: offsets into them are bounded "
       "by the CTA's shared memory and not reported"},
      {"RotaryTablePattern",
       "^(cos|sin)(_|$)|_(cos|sin)(_|$)|^cos_?sin|^freqs?(_|$)|_freqs?(_|$)|inv_?freq|"
       "rope_?cache|rotary_?(cache|emb|table)",
       "regex (case-insensitive) of pointer parameters that address a RoPE cos/sin or "
       "frequency table ([positions, rotary_dim]): an offset into one is below "
       "Envelope.RotaryTable, so a product in it is reported only at the latent level, "
       "with a note"},
      {"OffsetSinkPattern", "offset|_off$|^off_|ofst",
       "regex (case-insensitive) of arrays that hold offsets for later addressing (a "
       "prefetched `kv_offset[j] = page * stride_page`): the value stored there is checked "
       "as an offset"},
  };
}

void NarrowedIndexOverflow::configure(const Options &O) {
  HasSafe = !opt(O, "SafeHelpers").empty(); // an empty pattern would match every name
  SafeRe = optRegex(O, "SafeHelpers");
  TableRe = optRegex(O, "TableBasePattern");
  OnChipRe = optRegex(O, "OnChipPattern");
  HasOnChip = !opt(O, "OnChipPattern").empty();
  RotaryRe = optRegex(O, "RotaryTablePattern");
  HasRotary = !opt(O, "RotaryTablePattern").empty();
  SinkRe = optRegex(O, "OffsetSinkPattern");
  HasSink = !opt(O, "OffsetSinkPattern").empty();
  DependentLoadBits = optInt(O, "DependentLoadBits");
  DependentMemberBits = optInt(O, "DependentMemberBits");
  MemberWideRe = optRegex(O, "DependentMemberWidePattern");
  Latent = optLatent(O);
  Env.configure([&](const std::string &K) { return opt(O, K.c_str()); });
  TrainEnv.configure([&](const std::string &K) { return opt(O, K.c_str()); });
  ProfileOpt = opt(O, "Profile");
}

static std::string quote(const Node *N) {
  std::string T = N->Text.empty() ? N->Name : N->Text;
  return "'" + T + "'";
}

/// The value a widening fixes at the root: the name the widened expression
/// starts with ('bos' of 'bos + last_idx', 'offs_m' of 'offs_m[:, None]',
/// 'blockIdx.x'), or "" when it starts with something else (a cast, a
/// parenthesis). Sites of one function with the same root are one fix.
static std::string rootName(const Node *N) {
  std::string T = N->Text.empty() ? N->Name : N->Text;
  auto Id = [](char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; };
  if (T.empty() || !(std::isalpha(static_cast<unsigned char>(T[0])) || T[0] == '_'))
    return "";
  size_t J = 0;
  while (J < T.size() && (Id(T[J]) || (T[J] == '.' && J + 1 < T.size() && Id(T[J + 1]))))
    ++J;
  std::string R = T.substr(0, J);
  static const char *Casts[] = {"static_cast", "reinterpret_cast", "const_cast", "int",
                                "unsigned", "long", "size_t", "int64_t", "uint32_t", "int32_t"};
  for (const char *C : Casts)
    if (R == C)
      return "";
  if (J < T.size() && (T[J] == '<' || T[J] == ':'))
    return ""; // a template or a qualified name: no plain value
  if (J < T.size() && T[J] == '(') { // tl.program_id(0): the call with its arguments
    size_t E = T.find(')', J);
    if (E == std::string::npos || E - J > 16)
      return "";
    R = T.substr(0, E + 1);
  }
  return R;
}

// Offsets into a cache grow upwards: a product wraps when its upper bound
// passes the type's maximum. (Lower bounds of index arithmetic are loose --
// T - 1 - i, pos - start -- and a product that wraps below -2^31 would
// first have to address memory before the tensor.)
static bool wraps(const Bound &B, const IntTy &T) { return B.Hi > typeBound(T).Hi; }

/// 'x' <= 4,194,303 (why), or 'x' = 74,880 for a known value.
static std::string describe(const Node *N, const Bound &B) {
  if (B.Lo == B.Hi)
    return quote(N) + " = " + withCommas(B.Hi);
  std::string S = quote(N) + " <= " + (B.Hi >= Bounds::Inf ? "any value" : withCommas(B.Hi));
  if (!B.Why.empty())
    S += " (" + B.Why + ")";
  return S;
}

struct NarrowedIndexOverflow::Walk {
  const NarrowedIndexOverflow &R;
  const Function &F;
  std::vector<Finding> &Out;
  Bounds In;     ///< inside the envelope
  Bounds Beyond; ///< beyond it (the latent level)
  Profile Prof = Profile::Inference; ///< the profile the envelope is of
  /// The access being walked points into a tensor of at most Cap.Hi
  /// elements (Bounds::extentOf of CapBase), when CapBase is set.
  Bound Cap;
  const Node *CapBase = nullptr;
  std::string CapWhy; ///< where Cap comes from, for the note

  /// Where the product wraps: in the kernel's profile, or only beyond it.
  std::string where(bool AtLatent) const {
    return AtLatent ? std::string(" only beyond the ") + profileName(Prof) + " envelope"
                    : std::string(" in the ") + profileName(Prof) + " profile";
  }
  std::set<std::pair<const Node *, bool>> Seen;
  std::set<const Node *> SeenAddr;
  std::vector<const Node *> VarPath; ///< locals between the address and here
  /// The 32-bit (or narrower) local or cast the walk passed through whose
  /// value's type is dependent (`int const idx = i * params.inner;`): the
  /// value ends up that wide whatever the template's types are, so a
  /// product of unknown width inside it is judged at the holder's width.
  IntTy Holder;
  /// Why the kernel is in its profile, when its callers (not the option,
  /// not the default) chose it: said in a note on every finding.
  std::string ProfWhy;

  /// Walks into Holder's value (a Var or Cast), with Holder set when N is a
  /// narrow holder of a value of unknown type.
  void intoHolder(const Node *N, bool Suppressed) {
    IntTy Saved = Holder;
    if (N->Ty.narrow() && N->op(0) && !N->op(0)->Ty.known() && !N->op(0)->Ty.Pointer)
      Holder = N->Ty;
    offset(N->op(0), Suppressed);
    Holder = Saved;
  }

  /// A value's width for the rule: its type, else what the template's
  /// instantiations give it (effective), else its holder's.
  IntTy widthOf(const Node *N) const {
    if (N->Ty.Float) // float arithmetic: no integer product
      return N->Ty;
    IntTy Ty = N->Ty.known() ? N->Ty : effective(N);
    if (Ty.known() || !Holder.known() || !runtimeDependent(N))
      return Ty;
    return Holder;
  }

  /// Every leaf of unknown width under N is a kernel argument (a parameter,
  /// a member of a params struct): runtime sizes that the holder's width
  /// applies to. A dependent compile-time constant (`Cta_tile::M`, a class
  /// template's enum) leaves the product unjudged: its value is the
  /// template's, and the envelope has nothing to say about it.
  static bool runtimeDependent(const Node *N, unsigned Depth = 0) {
    if (!N || Depth > 16 || N->Ty.Float)
      return false;
    if (N->Ty.known())
      return true;
    switch (N->K) {
    case Kind::Param:
      return !N->Ty.Pointer;
    case Kind::Var:
    case Kind::Cast:
    case Kind::Add:
    case Kind::Sub:
    case Kind::Mul:
      for (const Node *O : N->Ops)
        if (!runtimeDependent(O, Depth + 1))
          return false;
      return !N->Ops.empty();
    default:
      return false;
    }
  }

  bool safeCall(const Node *N) const {
    return N->K == Kind::Call && R.HasSafe && R.SafeRe.search(N->Name);
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
      VarPath.push_back(N);
      intoHolder(N, Suppressed);
      VarPath.pop_back();
      return;
    case Kind::Call:
      if (safeCall(N))
        return;
      if (N->op(0)) {
        // An inlined helper's return type holds the value like a local.
        VarPath.push_back(N);
        offset(N->op(0), Suppressed);
        VarPath.pop_back();
        return;
      }
      // A call no body explains (`binfo.q_offset(seqlen_q_rounded * h *
      // d_rounded, h * d_rounded, bidb)` on a dependent object): its result
      // is computed from its arguments, so a product there is in the offset.
      for (const Node *A : N->Args)
        if (A && !A->Ty.Pointer)
          offset(A, Suppressed);
      return;
    case Kind::Cast:
      if (!Suppressed && narrowsWideOffset(N))
        return;
      intoHolder(N, Suppressed);
      return;
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
      bool AtLatent = false;
      if (!Suppressed && qualifies(N, AtLatent)) {
        report(N, AtLatent);
        offset(N->op(0), true);
        offset(N->op(1), true);
        return;
      }
      for (const Node *O : N->Ops)
        offset(O, Suppressed);
      return;
    }
    case Kind::Div:
    case Kind::Shr: {
      // A bit or word index (offset / 8, offset >> 5): the dividend wraps
      // before it is scaled down. Only small constant scales: a division by
      // a size (i / block_size) computes another index, and its dividend is
      // not an offset into this address.
      const Node *D = N->op(1);
      while (D && (D->K == Kind::Var || D->K == Kind::Cast) && D->op(0))
        D = D->op(0);
      bool Small = D && D->K == Kind::Const &&
                   (N->K == Kind::Div ? D->Value >= 2 && D->Value <= 64 : D->Value >= 1 && D->Value <= 6);
      if (Small)
        offset(N->op(0), Suppressed);
      return;
    }
    default:
      return; // loads, remainders, masks: the walk stops
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
      const Bound &B = In.of(N);
      IntTy To = Cast->Ty;
      bool AtLatent = false;
      if (!wraps(B, To)) {
        if (!R.Latent || !wraps(Beyond.of(N), To))
          continue;
        AtLatent = true;
      }
      Finding Fd;
      Fd.Code = R.code();
      Fd.Check = R.check();
      Fd.Range = Cast->Range;
      Fd.Message = std::to_string(From->Ty.Bits) + "-bit offset " + quote(From) +
                   " is narrowed to " + std::to_string(Cast->Ty.Bits) +
                   " bits before it is used as a memory offset and wraps past " +
                   (Cast->Ty.Signed ? "2^31" : "2^32") + where(AtLatent) + ": " +
                   describe(N, AtLatent ? Beyond.of(N) : B) +
                   "; keep the offset in a 64-bit type (int64_t)";
      // An implicit conversion into a 32-bit local (`int off = base64 + x;`,
      // often what an earlier fix-it left behind): the fix widens that local
      // and every 32-bit local between it and the address. An explicit cast
      // is the author's; no fix-it.
      if (!Cast->Explicit)
        widenLocals(Fd);
      Out.push_back(std::move(Fd));
      return true;
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
    case Kind::Param:
    case Kind::Unknown:
      // A member of a params struct whose type is a template parameter or
      // comes from a missing header (`params.h * params.d_rounded`): the
      // sizes there are int in every engine we measured (FlashAttention's
      // Flash_fwd_params, mamba's SSMParamsBase, TensorRT-LLM's params);
      // only strides and offsets are index_t.
      if (R.DependentMemberBits > 0) {
        std::string Member = memberRead(N);
        if (!Member.empty() && !R.MemberWideRe.search(Member))
          return IntTy::integer(unsigned(R.DependentMemberBits), true);
      }
      return IntTy::unknown();
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

  /// A read of a struct member as written (`params.h`, `p->n`,
  /// `params.fusion.hidden`): the member's name, or "" for anything else.
  static std::string memberRead(const Node *N) {
    static const Pattern Member = Pattern::builtin(
        R"(^[A-Za-z_][\w.>-]*(\.|->)([A-Za-z_]\w*)$)", Pattern::CaseSensitive);
    std::vector<std::string> M;
    if (N->Text.size() > 256 || !Member.search(N->Text, M) || M.size() < 3)
      return "";
    return M[2];
  }

  /// A product evaluated in at most 32 bits whose bound leaves its type:
  /// inside the envelope, or (AtLatent) only beyond it.
  bool qualifies(const Node *N, bool &AtLatent) {
    if (isRoundDown(N) || !N->op(0) || !N->op(1))
      return false;
    // A stride times a stride is no index into anything (a size in
    // elements, computed in host-like code): nothing to widen for.
    auto IsStride = [](const Bound &B) {
      return B.Dim && (B.Dim->Key == "Stride" || B.Dim->Key == "BatchStride");
    };
    if (N->K == Kind::Mul && IsStride(In.of(N->op(0))) && IsStride(In.of(N->op(1))))
      return false;
    IntTy Ty = widthOf(N);
    if (!Ty.narrow())
      return false;
    if (wraps(In.of(N), Ty)) {
      AtLatent = false;
      return true;
    }
    if (R.Latent && wraps(Beyond.of(N), Ty)) {
      AtLatent = true;
      return true;
    }
    return false;
  }

  /// The factor a widening cast goes on: the leftmost leaf of the chain that
  /// is not a literal (2 * a * b widens at a; 2 * a is then 64-bit too).
  static const Node *widenAt(const Node *N) {
    std::vector<const Node *> Leaves;
    std::function<void(const Node *)> Walk = [&](const Node *X) {
      if (X && (X->K == Kind::Mul || X->K == Kind::Shl) && X->op(0) && Leaves.size() < 16) {
        Walk(X->op(0));
        if (X->K == Kind::Mul)
          Leaves.push_back(X->op(1));
        return;
      }
      Leaves.push_back(X);
    };
    Walk(N);
    for (const Node *L : Leaves)
      if (L && L->K != Kind::Const)
        return intoSum(L);
    return leftmostFactor(N);
  }

  /// A factor that is a sum with a product in it ((bos * H + i_h) * K):
  /// widening the sum leaves bos * H in 32 bits, so widen inside the
  /// product term; the sum and the outer product are then 64-bit too.
  static const Node *intoSum(const Node *L) {
    for (unsigned I = 0; L && I < 8 && (L->K == Kind::Add || L->K == Kind::Sub); ++I) {
      const Node *Term = nullptr;
      for (const Node *O : L->Ops)
        if (O && (O->K == Kind::Mul || O->K == Kind::Shl)) {
          Term = O;
          break;
        }
      if (!Term || !Term->Range.valid() || Term->Range.InMacro)
        break;
      L = widenAt(Term);
    }
    return L;
  }

  /// Whether N's bound rests on names and defaults alone (Bound::Named
  /// leaves, through arithmetic and locals): no launch fact, guard, mask or
  /// type tightens it; constants are neutral. Leaves collects the names.
  static bool namesOnly(const Node *N, Bounds &B, std::vector<std::string> &Leaves,
                        unsigned Depth = 0) {
    if (!N || Depth > 24)
      return false;
    const Bound &Bn = B.of(N);
    if (Bn.Exact)
      return true;
    if (Bn.Named) {
      std::string T = N->Name.empty() ? N->Text : N->Name;
      std::string L = "'" + T + "'" + (Bn.Dim ? " (Envelope." + Bn.Dim->Key + ")" : "");
      if (std::find(Leaves.begin(), Leaves.end(), L) == Leaves.end() && Leaves.size() < 4)
        Leaves.push_back(L);
      return true;
    }
    switch (N->K) {
    case Kind::Var:
    case Kind::Cast:
      // a guard or mask that tightens the local is a fact
      if (N->op(0) && Bn.Hi < B.of(N->op(0)).Hi)
        return false;
      return namesOnly(N->op(0), B, Leaves, Depth + 1);
    case Kind::Call:
      return N->op(0) && namesOnly(N->op(0), B, Leaves, Depth + 1);
    case Kind::Add:
    case Kind::Sub:
    case Kind::Mul:
    case Kind::Shl:
    case Kind::Neg:
    case Kind::Max:
    case Kind::Phi:
      for (const Node *O : N->Ops)
        if (!namesOnly(O, B, Leaves, Depth + 1))
          return false;
      return !N->Ops.empty();
    case Kind::Select:
      return namesOnly(N->op(1), B, Leaves, Depth + 1) && namesOnly(N->op(2), B, Leaves, Depth + 1);
    case Kind::Div:
    case Kind::Shr:
      return B.of(N->op(1)).Exact && namesOnly(N->op(0), B, Leaves, Depth + 1);
    default:
      return false; // a remainder, a mask, a min, a load of a known table: facts
    }
  }

  void report(const Node *N, bool AtLatent) {
    IntTy Ty = widthOf(N);
    // An in-bounds offset into a tensor the launcher allocates is below its
    // element count: when that fits the type, the product wraps only past
    // the allocation, at sizes the envelope does not reach.
    bool Capped = CapBase && Cap.Hi > 0 && Cap.Hi - 1 <= typeBound(Ty).Hi;
    if (Capped && !R.Latent)
      return;
    if (Capped)
      AtLatent = true;
    Bounds &B = AtLatent ? Beyond : In;
    const Node *A = N->op(0), *C = N->op(1);
    const Bound &BA = B.of(A), &BC = B.of(C);
    Finding Fd;
    Fd.Code = R.code();
    Fd.Check = R.check();
    Fd.Range = N->Range;
    std::string Sizes = describe(A, BA) + (N->K == Kind::Shl ? " shifted by " : " times ") +
                        describe(C, BC);
    // A coupling that makes the product larger than its factors say (an
    // expert's stride is a weight matrix): say so.
    const Bound &BN = B.of(N);
    if (N->K == Kind::Mul && BN.Hi > 0 && __int128(BN.Hi) > __int128(BA.Hi) * BC.Hi)
      Sizes += "; the product reaches " + withCommas(BN.Hi) + " (" + BN.Why + ")";
    // Where one factor is known, the first value of the other that wraps.
    const Bound *Known = BC.Lo == BC.Hi ? &BC : BA.Lo == BA.Hi ? &BA : nullptr;
    const Node *Other = Known == &BC ? A : C;
    if (Known && Known->Hi > 0 && N->K == Kind::Mul && B.of(Other).Lo != B.of(Other).Hi) {
      int64_t First = typeBound(Ty).Hi / Known->Hi + 1;
      Sizes += "; it wraps once " + quote(Other) + " >= " + withCommas(First);
    }
    const Node *Leaf = widenAt(N);
    Fd.Message = std::to_string(Ty.Bits) + "-bit " + (Ty.Signed ? "signed" : "unsigned") +
                 " product " + quote(N) + " is used as a memory offset and wraps past " +
                 (Ty.Signed ? "2^31" : "2^32") + where(AtLatent) + ": " + Sizes +
                 "; widen " + quote(Leaf) + " to 64 bits before it multiplies";
    Fd.Group = rootName(Leaf);
    Fd.Latent = AtLatent;
    // The message already says, per factor, where its bound comes from
    // ("is named like it", "is bounded by no fact"); the flag counts them.
    std::vector<std::string> Names;
    Fd.NameOnly = namesOnly(A, B, Names) && namesOnly(C, B, Names) && !Names.empty();
    if (Capped)
      Fd.Notes.push_back({CapBase->Range.valid() ? CapBase->Range : F.Range,
                          quote(CapBase) + " points to a tensor of at most " +
                                       withCommas(Cap.Hi) + " elements" +
                                       (Cap.Exact ? std::string() : ", " + Cap.Why) + " (" +
                                       CapWhy +
                                       "): an offset into it stays below 2^31 unless it is out "
                                       "of bounds"});
    if (!ProfWhy.empty())
      Fd.Notes.push_back({F.Range, std::string("judged in the ") + profileName(Prof) +
                                       " profile: " + ProfWhy});
    if (N->Compound && Leaf == N->op(0)) {
      // `x *= k`: x is an lvalue; a cast of it would not compile. Widening
      // x's declared type makes the product 64-bit.
      widenLocals(Fd);
      if (Fd.Fixes.empty())
        Fd.Notes.push_back(
            {Leaf->Range, (F.Lang == Language::Triton ? "widen " + quote(Leaf) + " where it is assigned"
                                                      : "widen the declared type of " + quote(Leaf)) +
                              " to 64 bits (a compound assignment cannot cast it)"});
    } else if (!widenFix(F.Lang, Leaf, Fd.Fixes))
      Fd.Notes.push_back({Leaf->Range, "the index is spelled inside a macro; widen it there"});
    else
      widenLocals(Fd);
    Out.push_back(std::move(Fd));
  }

  /// A 32-bit local between the product and the address would cut the
  /// widened product back: the fix widens its declared type too.
  void widenLocals(Finding &Fd) {
    for (const Node *V : VarPath) {
      const SrcRange &D = V->DeclType;
      if (!D.valid() || D.InMacro || D.End.Offset <= D.Begin.Offset || !V->Ty.narrow() ||
          F.Lang == Language::Triton)
        continue;
      FixIt X;
      X.Begin = D.Begin;
      X.Length = D.End.Offset - D.Begin.Offset;
      X.Text = V->Ty.Signed ? "int64_t" : "uint64_t";
      Fd.Fixes.push_back(X);
    }
  }
};

// A pointer parameter named like a RoPE cos/sin or frequency table.
bool NarrowedIndexOverflow::rotaryTable(const Node *P) const {
  return HasRotary && P && P->K == Kind::Param && !P->Name.empty() &&
         RotaryRe.search(leafName(P->Name));
}

// A name on the way from the address to its base (the pointer, a local
// holding it, an accessor returning it) that says it is shared memory.
bool NarrowedIndexOverflow::namedOnChip(const Node *N) const {
  for (unsigned I = 0; N && I < 64; ++I, N = addressStep(N)) {
    bool Named = N->K == Kind::Param || N->K == Kind::Call || N->K == Kind::Unknown ||
                 (N->K == Kind::Var && N->Ty.Pointer);
    if (Named && !N->Name.empty() && OnChipRe.search(leafName(N->Name)))
      return true;
    // A member of an object whose name says it is shared memory: the
    // `smem.state` of a helper's `SmemT &smem` parameter.
    if (Named && !N->Object.empty() && OnChipRe.search(N->Object))
      return true;
  }
  return false;
}

/// The pointer parameter an address starts from, through locals, casts,
/// pointer arithmetic, branches (`if g is None: x += start * stride`) and the
/// merges of a loop that advances it (`x_ptrs += BLOCK_K * stride_k`: every
/// way into the merge that is not the loop's own step starts from the same
/// parameter); null when none or several.
static const Node *pointerParam(const Node *N, unsigned Depth = 0) {
  std::vector<const Node *> Path;
  for (unsigned I = 0; N && I < 64; ++I) {
    if (N->K == Kind::Param)
      return N->Ty.Pointer ? N : nullptr;
    if (N->K == Kind::Phi || N->K == Kind::Select) {
      if (Depth > 4)
        return nullptr;
      const Node *Root = nullptr;
      for (size_t K = N->K == Kind::Select ? 1 : 0; K < N->Ops.size(); ++K) {
        const Node *O = N->Ops[K];
        // the loop's step comes back to this merge
        const Node *X = O;
        for (unsigned J = 0; X && X != N && J < 64; ++J)
          X = addressStep(X);
        if (X == N)
          continue;
        // (a parameter may be lowered once per branch: the same name and hint)
        const Node *R = pointerParam(O, Depth + 1);
        if (!R || (Root && (R->Name != Root->Name || R->Hint.Extent != Root->Hint.Extent)))
          return nullptr;
        Root = R;
      }
      return Root;
    }
    N = addressStep(N);
  }
  return nullptr;
}

void NarrowedIndexOverflow::run(const Function &F, std::vector<Finding> &Out) const {
  if (HasSafe && SafeRe.search(F.Name))
    return;
  std::string Why;
  Profile P = chooseProfile(F, ProfileOpt, Why);
  const Envelope &E = P == Profile::Training ? TrainEnv : Env;
  Walk W{*this, F, Out, Bounds(F, E, false), Bounds(F, E, true), P, {}, {}, {}};
  if (F.Prof != Profile::Unknown && P == F.Prof && !Why.empty() && Why == F.ProfileWhy)
    W.ProfWhy = Why;
  // Accesses into a tensor whose allocation caps every in-bounds offset
  // below 2^31 (ValueHint::Extent) go last: a product they share with an
  // access into an uncapped tensor is reported at its level there.
  std::vector<const Access *> Order, Capped;
  std::vector<const Node *> CapOf;
  for (const Access &A : F.Accesses) {
    const Node *P = pointerParam(A.Addr);
    if (P && (!P->Hint.Extent.empty() || rotaryTable(P))) {
      Capped.push_back(&A);
      CapOf.push_back(P);
    } else {
      Order.push_back(&A);
    }
  }
  size_t FirstCapped = Order.size();
  Order.insert(Order.end(), Capped.begin(), Capped.end());
  for (size_t I = 0; I < Order.size(); ++I) {
    const Access &A = *Order[I];
    const Node *Base = addressBase(A.Addr);
    W.In.at(A);
    W.Beyond.at(A);
    W.Cap = Bound();
    W.CapBase = nullptr;
    if (I >= FirstCapped) {
      W.CapBase = CapOf[I - FirstCapped];
      W.Cap = W.In.extentOf(W.CapBase);
      W.CapWhy = W.CapBase->Hint.Source;
      if (W.CapBase->Hint.Extent.empty()) { // a RoPE table, by its name
        W.Cap = Bound();
        W.Cap.Hi = E.bound(*E.byKey("RotaryTable"), false);
        W.Cap.Exact = true;
        W.CapWhy = "named like a RoPE cos/sin table: Envelope.RotaryTable";
      }
    }
    // An offset computed here and addressed later, through an array of
    // offsets (registers, most often): the stored value is an offset too.
    // (C++ only: a Triton kernel computes its offsets in place, and a value
    // it stores has the integer type of a load of unknown element type.)
    if (F.Lang != Language::Triton && A.AK == AccessKind::Store && A.Value && HasSink && Base &&
        !Base->Name.empty() && SinkRe.search(Base->Name))
      W.offset(A.Value, false);
    if (Base && !Base->Name.empty() && TableRe.search(Base->Name))
      continue;
    if (Base && Base->OnChip) // shared memory, registers: never 2^31 elements
      continue;
    // A pointer into shared memory declared where this function cannot see
    // it: a helper's `v_smem` parameter, `smem_storage->p_smem_ptr()`.
    if (HasOnChip && namedOnChip(A.Addr))
      continue;
    W.addr(A.Addr);
  }
}

KVLINT_REGISTER_RULE(NarrowedIndexOverflow, "KV001", "kvlint-narrowed-index-overflow")

} // namespace kvlint
