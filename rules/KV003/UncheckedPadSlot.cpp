//===- UncheckedPadSlot.cpp - KV003 -----------------------------------------===//
//
// For every store (and atomic): walk its address back to the values it is
// computed from. A memory read from a slot-mapping-like table (slot_mapping,
// out_cache_loc, ...; or the indices of a store into a cache) is a slot
// source. The store is reported when some slot source reaches it on a path
// where no guard excludes the pad slot:
//
//   - a guard (enclosing if, early return/continue/break, loop condition,
//     &&, ?:) or a Triton mask (also through tl.where) that implies
//     `slot >= 0` or `slot != PAD` on the slot itself;
//   - an unsigned comparison of the slot (`(uint64_t)slot < num_slots`);
//   - a guard that held where a part of the address was formed (a helper
//     that returns nullptr for a negative slot, and a caller that returns
//     on nullptr).
//
// The level: a store is reported at the default level only where the table
// can hold the pad (Function::Facts): some function stores a negative value
// or PAD_SLOT_ID into it, the tree's Python fills it with -1, or a consumer
// tests it for the pad. Without such evidence the engine may pad to a real
// slot (a dummy slot 0, a spare size + 1 row), and the store is latent.
//
// The fix-it guards the store, never the thread: `if (slot >= 0) { ... }`
// around the store statement (a Triton mask term), so a barrier or warp
// collective after it still sees every thread. It changes behaviour, so it
// is unsafe (FixIt::Safe = false): --fix applies it only with --unsafe-fixes.
//
// max(slot, 0) and abs(slot) are no guard: they write the pad token into a
// live slot. A guard on the page (slot / PAGE >= 0) is no guard either:
// -1 / PAGE is 0 in C++ and in Triton.
//
//===----------------------------------------------------------------------===//
#include "UncheckedPadSlot.h"
#include "kvlint/Walk.h"

#include <algorithm>
#include <map>
#include <set>

namespace kvlint {

std::vector<OptionSpec> UncheckedPadSlot::options() const {
  return {
      {"SlotTablePattern",
       "slot_mapping|slot_map|slot_ids|slot_indices|out_cache_loc|cache_locs?|"
       "^out_locs?(_ptr)?$|^locs?(_ptr)?$|dst_locs?|dest_locs?|kv_locs?",
       "regex (case-insensitive) of slot-mapping tables: a store whose address is computed from "
       "a value read from one of these must skip the pad slot (a bare 'slots' is not in the "
       "default: add it where an engine names its slot mapping so)"},
      {"StoreIndexPattern", "indices|_locs?(_ptr)?$",
       "regex (case-insensitive) of index tables that count as slot mappings only in a store "
       "into a cache (CachePattern): the indices of a KV-store kernel"},
      {"NotSlotPattern", "token|query|req_|request|seq|expert|topk|chunk",
       "regex (case-insensitive) of index tables that are never slots even in a store into a "
       "cache (last_token_indices, expert indices): StoreIndexPattern does not apply to them"},
      {"CachePattern",
       "cache|kv_buffer|k_buffer|v_buffer|kv_pool|kv_data|k_data|v_data|conv_state|ssm_state|"
       "recurrent_state|^state",
       "regex (case-insensitive) of KV-cache pointers (the destination of a KV store), state "
       "caches included (a recurrent or conv state stored at state_indices[i])"},
      {"PadPattern", "pad|invalid|null",
       "regex (case-insensitive) of names of the pad value: 'slot != PAD_SLOT_ID' and "
       "'slot > null_block_id' are guards"},
      {"PadValue", "-1", "the pad slot, for messages"},
  };
}

void UncheckedPadSlot::configure(const Options &O) {
  SlotRe = optRegex(O, "SlotTablePattern");
  IndexRe = optRegex(O, "StoreIndexPattern");
  NotSlotRe = optRegex(O, "NotSlotPattern");
  CacheRe = optRegex(O, "CachePattern");
  PadRe = optRegex(O, "PadPattern");
  PadValue = opt(O, "PadValue");
  Latent = optLatent(O);
}

namespace {

std::string leafName(const std::string &S) {
  size_t P = S.find_last_of(".>");
  return P == std::string::npos ? S : S.substr(P + 1);
}

/// Through locals and value-preserving casts (a sign-changing cast is kept
/// for the caller to see: it is what makes `(uint64_t)slot < n` a guard).
const Node *plain(const Node *N, bool Inlined) {
  for (unsigned I = 0; N && I < 64; ++I) {
    if (N->K == Kind::Var || (N->K == Kind::Call && N->op(0) && Inlined))
      N = N->op(0);
    else if (N->K == Kind::Cast && !N->Ty.Pointer && (N->Ty.Signed || !N->Ty.known()))
      N = N->op(0);
    else
      break;
  }
  return N;
}

/// Structural equality without following merges (loop-carried Phis are
/// cyclic): two reads of slot_mapping[t] are the same slot.
bool sameExpr(const Node *A, const Node *B, unsigned Depth = 0) {
  if (A == B)
    return true;
  if (!A || !B || Depth > 24)
    return false;
  if (A->K == Kind::Var && B->K == Kind::Var && !A->Name.empty() && A->Name == B->Name &&
      A->op(0) == B->op(0))
    return true;
  A = stripVars(A);
  B = stripVars(B);
  if (A == B)
    return true;
  if (!A || !B || A->K != B->K || A->K == Kind::Phi || A->K == Kind::Unknown ||
      A->K == Kind::Call)
    return false;
  switch (A->K) {
  case Kind::Const: case Kind::Param: case Kind::Symbolic: case Kind::LaunchIdx:
  case Kind::ThreadIdx: case Kind::LaunchDim:
    return sameValue(A, B);
  default:
    break;
  }
  if (A->Ops.size() != B->Ops.size() || A->Ops.empty())
    return false;
  for (size_t I = 0; I < A->Ops.size(); ++I)
    if (!sameExpr(A->Ops[I], B->Ops[I], Depth + 1))
      return false;
  return true;
}

bool isConst(const Node *N, bool Inlined, int64_t &V) {
  N = plain(N, Inlined);
  if (N && N->K == Kind::Neg && N->op(0)) {
    int64_t X;
    if (isConst(N->op(0), Inlined, X)) {
      V = -X;
      return true;
    }
  }
  if (!N || N->K != Kind::Const)
    return false;
  V = N->Value;
  return true;
}

} // namespace

struct UncheckedPadSlot::Check {
  const UncheckedPadSlot &R;
  const Function &F;
  std::vector<Finding> &Out;
  bool Inlined = true; // Clang: a Call with an operand is an inlined helper's value

  /// Guards under which each formed address (AccessKind::Address) was built.
  std::map<const Node *, const std::vector<Guard> *> Formed;
  /// Accesses of loads, by the range they read at.
  std::map<unsigned, const Access *> LoadAt;

  struct Source {
    const Node *Load = nullptr;      ///< the slot read
    const Node *Holder = nullptr;    ///< the local that holds it, if any
    std::vector<Guard> PathGuards;   ///< guards where parts of the address were formed
    bool Clamped = false;            ///< passed through max(.., 0) / abs on the way
  };

  bool slotTable(const Node *Ld, bool CacheStore) const {
    std::string B = leafName(nameOf(addressBase(Ld->op(0))));
    if (B.empty())
      B = leafName(Ld->Name);
    if (B.empty())
      return false;
    if (R.SlotRe.search(B))
      return true;
    return CacheStore && R.IndexRe.search(B) && !R.NotSlotRe.search(B);
  }

  void sources(const Node *Root, bool CacheStore, const Access &A, std::vector<Source> &Out) {
    struct Item {
      const Node *N;
      const Node *Holder;
      std::vector<Guard> G;
      bool Clamped;
    };
    std::vector<Item> Stack = {{Root, nullptr, {}, false}};
    std::set<const Node *> Seen;
    while (!Stack.empty() && Seen.size() < 4096) {
      Item It = std::move(Stack.back());
      Stack.pop_back();
      const Node *N = It.N;
      if (!N || !Seen.insert(N).second)
        continue;
      auto FI = Formed.find(N);
      if (FI != Formed.end())
        It.G.insert(It.G.end(), FI->second->begin(), FI->second->end());
      if (N->K == Kind::Load) {
        if (slotTable(N, CacheStore))
          Out.push_back({N, It.Holder, It.G, It.Clamped});
        continue; // other reads: their addresses are not this address
      }
      const Node *Holder = It.Holder;
      if (N->K == Kind::Var) {
        const Node *P = plain(N, Inlined);
        if (P && P->K == Kind::Load)
          Holder = N; // the local that holds the slot itself (not a clamp of it)
      }
      bool Clamped = It.Clamped;
      if (N->K == Kind::Max) {
        int64_t V;
        for (const Node *O : N->Ops)
          if (isConst(O, Inlined, V) && V >= 0)
            Clamped = true;
      }
      if (N->K == Kind::Call && (N->Name == "abs" || N->Name == "llabs" || N->Name == "labs" ||
                                 N->Name.find("abs") != std::string::npos))
        Clamped = true;
      if (N->K == Kind::Select) { // the arms, not the condition
        Stack.push_back({N->op(1), Holder, It.G, Clamped});
        Stack.push_back({N->op(2), Holder, It.G, Clamped});
        continue;
      }
      if (isComparison(N->K) || N->K == Kind::LAnd || N->K == Kind::LOr || N->K == Kind::LNot)
        continue;
      if (N->K == Kind::Phi && loopCarried(N))
        continue; // an induction variable (for i in range(start, end)): not a slot
      if (N->K == Kind::Phi && sentinelExcluded(N, A))
        continue; // a helper's sentinel (-1, nullptr) for a bad slot, tested by the caller
      if (N->K == Kind::Sub) { // base - x: an offset relative to x, not at it
        Stack.push_back({N->op(0), Holder, It.G, Clamped});
        continue;
      }
      for (const Node *O : N->Ops)
        Stack.push_back({O, Holder, It.G, Clamped});
    }
  }

  /// A merge of a helper's results, one of them a constant sentinel (-1,
  /// nullptr) for slots it refuses, whose caller leaves on the sentinel
  /// (`dst = slot_destination(p, slot); if (dst < 0) return;`): kvref's
  /// protocol. The guard is on the merged value, so the computed arm is
  /// reached only when the helper did not refuse the slot.
  bool sentinelExcluded(const Node *Phi, const Access &A) const {
    bool Neg = false, Null = false;
    for (const Node *O : Phi->Ops) {
      int64_t V;
      if (isConst(O, Inlined, V)) {
        Neg |= V < 0;
        Null |= V == 0 && O && O->Ty.Pointer;
      }
      const Node *P = plain(O, Inlined);
      if (P && (P->Text == "nullptr" || P->Text == "NULL") && P->Ty.Pointer)
        Null = true;
    }
    if (!Neg && !Null)
      return false;
    Source Fake;
    Fake.Load = Phi;
    std::vector<std::pair<const Node *, bool>> As;
    for (const Guard &G : A.Guards)
      atoms(G.Cond, !G.Negated, As);
    for (auto &[Cmp, Pos] : As) {
      if (Neg && excludes(Cmp, Pos, Fake))
        return true; // dst >= 0, dst != -1
      if (!Null)
        continue;
      Kind K = Cmp->K;
      if (!Pos)
        K = K == Kind::Eq ? Kind::Ne : K == Kind::Ne ? Kind::Eq : Kind::Unknown;
      if (K != Kind::Ne)
        continue;
      for (int I = 0; I < 2; ++I) {
        const Node *X = Cmp->op(I), *Y = Cmp->op(1 - I);
        int64_t V;
        const Node *PY = plain(Y, Inlined);
        bool YNull = (isConst(Y, Inlined, V) && V == 0) ||
                     (PY && (PY->Text == "nullptr" || PY->Text == "NULL"));
        if (YNull && plain(X, Inlined) == Phi)
          return true; // dst != nullptr
      }
    }
    return false;
  }

  /// A merge that reaches itself through its operands: a loop's variable.
  static bool loopCarried(const Node *Phi) {
    std::vector<const Node *> Roots(Phi->Ops.begin(), Phi->Ops.end());
    return walkOperands(std::move(Roots), 1024, [&](const Node *N) {
      if (N == Phi)
        return Walk::Stop;
      return N->K == Kind::Load ? Walk::Over : Walk::Into;
    });
  }

  /// Atomic facts of a guard or mask: (comparison, holds-as-written).
  void atoms(const Node *C, bool Positive, std::vector<std::pair<const Node *, bool>> &Out,
             unsigned Depth = 0) const {
    for (unsigned I = 0; C && I < 64 && (C->K == Kind::Var || (C->K == Kind::Cast && !C->Ty.Pointer));
         ++I)
      C = C->op(0);
    if (!C || Depth > 16)
      return;
    if (C->K == Kind::LNot) {
      atoms(C->op(0), !Positive, Out, Depth + 1);
      return;
    }
    if ((C->K == Kind::LAnd && Positive) || (C->K == Kind::LOr && !Positive) ||
        (C->K == Kind::And && Positive && (C->Ty.Bool || !C->Ty.known()))) {
      atoms(C->op(0), Positive, Out, Depth + 1);
      atoms(C->op(1), Positive, Out, Depth + 1);
      return;
    }
    if (C->K == Kind::Select && Positive) { // tl.where(c, m, False): c and m
      int64_t V;
      if (isConst(C->op(2), Inlined, V) && V == 0) {
        atoms(C->op(0), true, Out, Depth + 1);
        atoms(C->op(1), true, Out, Depth + 1);
      }
      return;
    }
    if (isComparison(C->K))
      Out.push_back({C, Positive});
  }

  /// Is X the slot itself (through locals and value-preserving casts)?
  bool isSlot(const Node *X, const Source &S) const {
    const Node *P = plain(X, Inlined);
    if (P == S.Load)
      return true;
    if (P && P->K == Kind::Load && sameExpr(P->op(0), S.Load->op(0)))
      return true; // the same table entry read again
    // A merge one of whose arms is the slot (slot = table ? table[t] : t):
    // a test on the merged value holds for the slot arm too.
    if (P && (P->K == Kind::Select || P->K == Kind::Phi))
      for (size_t I = P->K == Kind::Select ? 1 : 0; I < P->Ops.size(); ++I) {
        const Node *Arm = plain(P->Ops[I], Inlined);
        if (Arm == S.Load ||
            (Arm && Arm->K == Kind::Load && sameExpr(Arm->op(0), S.Load->op(0))))
          return true;
      }
    // The same local read again (a re-lowered use).
    if (X && X->K == Kind::Var && S.Holder && X->Name == S.Holder->Name && !X->Name.empty())
      return plain(S.Holder, Inlined) == P;
    return false;
  }

  bool padLike(const Node *N) const {
    int64_t V;
    if (isConst(N, Inlined, V))
      return V < 0;
    const Node *P = plain(N, Inlined);
    std::string Nm = P ? nameOf(P) : "";
    if (N && N->K == Kind::Var && R.PadRe.search(N->Name))
      return true;
    return !Nm.empty() && R.PadRe.search(Nm);
  }

  /// Does the fact (Cmp holds == Positive) exclude the pad value for S?
  bool excludes(const Node *Cmp, bool Positive, const Source &S) const {
    Kind K = Cmp->K;
    if (!Positive) {
      switch (K) {
      case Kind::Lt: K = Kind::Ge; break;
      case Kind::Le: K = Kind::Gt; break;
      case Kind::Gt: K = Kind::Le; break;
      case Kind::Ge: K = Kind::Lt; break;
      case Kind::Eq: K = Kind::Ne; break;
      case Kind::Ne: K = Kind::Eq; break;
      default: return false;
      }
    }
    const Node *A = Cmp->op(0), *B = Cmp->op(1);
    // Put the slot on the left.
    if (!isSlot(A, S) && isSlot(B, S)) {
      std::swap(A, B);
      switch (K) {
      case Kind::Lt: K = Kind::Gt; break;
      case Kind::Le: K = Kind::Ge; break;
      case Kind::Gt: K = Kind::Lt; break;
      case Kind::Ge: K = Kind::Le; break;
      default: break;
      }
    }
    if (isSlot(A, S)) {
      int64_t V;
      bool C = isConst(B, Inlined, V);
      if (K == Kind::Ge && C && V >= 0)
        return true; // slot >= 0
      if (K == Kind::Gt && C && V >= -1)
        return true; // slot > -1
      if (K == Kind::Ne && padLike(B))
        return true; // slot != PAD_SLOT_ID
      if ((K == Kind::Gt || K == Kind::Ge) && !C && padLike(B))
        return K == Kind::Gt; // slot > null_block_id (the pad is the smallest id)
      return false;
    }
    // (uint64_t)slot < num_slots: the pad wraps to the largest value.
    const Node *X = nullptr;
    if (K == Kind::Lt || K == Kind::Le)
      X = Cmp->op(0) == A ? A : Cmp->op(0);
    else if (K == Kind::Gt || K == Kind::Ge)
      X = Cmp->op(1) == B ? B : Cmp->op(1);
    for (unsigned I = 0; X && I < 8 && X->K == Kind::Var; ++I)
      X = X->op(0);
    if (X && X->K == Kind::Cast && X->Ty.known() && !X->Ty.Signed && !X->Ty.Pointer &&
        isSlot(X->op(0), S))
      return true;
    return false;
  }

  bool guarded(const Access &A, const Source &S) const {
    std::vector<std::pair<const Node *, bool>> As;
    for (const Guard &G : A.Guards)
      atoms(G.Cond, !G.Negated, As);
    for (const Guard &G : S.PathGuards)
      atoms(G.Cond, !G.Negated, As);
    if (A.Mask)
      atoms(A.Mask, true, As);
    for (auto &[Cmp, Pos] : As)
      if (excludes(Cmp, Pos, S))
        return true;
    return false;
  }

  static bool editable(const SrcRange &Rg) {
    return Rg.valid() && !Rg.InMacro && Rg.End.Offset >= Rg.Begin.Offset;
  }

  void run() {
    Inlined = F.Lang != Language::Triton;
    for (const Access &A : F.Accesses) {
      if (A.AK == AccessKind::Address && A.Addr)
        Formed.emplace(A.Addr, &A.Guards);
      if (A.AK == AccessKind::Load && A.Range.valid())
        LoadAt.emplace(A.Range.Begin.Offset, &A);
    }
    std::set<std::pair<unsigned, unsigned>> Reported;
    for (const Access &A : F.Accesses) {
      if (A.AK != AccessKind::Store || !A.Addr)
        continue;
      std::string Base = leafName(nameOf(addressBase(A.Addr)));
      bool CacheStore = !Base.empty() && R.CacheRe.search(Base);
      std::vector<Source> Srcs;
      sources(A.Addr, CacheStore, A, Srcs);
      for (const Source &S : Srcs) {
        if (guarded(A, S))
          continue;
        const NamedFact *Ev = evidence(S);
        if (!Ev && !R.Latent)
          break;
        if (!Reported.insert({A.Range.Begin.Line, A.Range.Begin.Col}).second)
          break;
        report(A, S, Ev);
        break;
      }
    }
  }

  std::string tableName(const Source &S) const {
    std::string T = leafName(nameOf(addressBase(S.Load->op(0))));
    return T.empty() ? S.Load->Name : T;
  }

  /// What says the slot's table can hold the pad, or null.
  const NamedFact *evidence(const Source &S) const {
    std::string T = tableName(S);
    if (const NamedFact *E = ProjectFacts::find(F.Facts.PadWritten, T))
      return E;
    return ProjectFacts::find(F.Facts.PadChecked, T);
  }

  /// The first barrier or collective after Off in the function, or null.
  const SyncPoint *syncAfter(unsigned Off) const {
    const SyncPoint *Best = nullptr;
    for (const SyncPoint &P : F.Syncs)
      if (P.Loc.Offset > Off && (!Best || P.Loc.Offset < Best->Loc.Offset))
        Best = &P;
    return Best;
  }

  void report(const Access &A, const Source &S, const NamedFact *Ev) {
    Finding Fd;
    Fd.Code = R.code();
    Fd.Check = R.check();
    Fd.Range = A.Range.valid() ? A.Range : A.Addr->Range;
    std::string Table = tableName(S);
    std::string Slot;
    if (S.Holder && !S.Holder->Name.empty())
      Slot = S.Holder->Name;
    else
      Slot = S.Load->Text.empty() ? Table + "[...]" : S.Load->Text;
    bool Triton = F.Lang == Language::Triton;
    Fd.Message = "store address is computed from slot '" + Slot + "' read from '" + Table +
                 "' with no guard that skips the pad slot (" + R.PadValue +
                 "); a padded token (CUDA-graph padding, a position past a narrow group's row) "
                 "writes before the cache or into a live page";
    if (Ev)
      Fd.Message += "; '" + Table + "' can hold the pad: " + Ev->Why;
    else
      Fd.Message += "; latent: nothing in this file or the tree's Python writes a negative "
                    "value or PAD_SLOT_ID into '" + Table + "' and no consumer tests it for the "
                    "pad (an engine that pads to a real slot never stores at -1)";
    Fd.Latent = !Ev;
    if (S.Clamped)
      Fd.Message += "; clamping the slot (max(slot, 0), abs) is no guard: the pad token "
                    "overwrites a live slot";
    if (S.Clamped)
      Fd.Message += "; skip the pad slot instead of clamping it";
    else if (Triton)
      Fd.Message += "; add '" + Slot + " >= 0' to the store's mask";
    else
      Fd.Message += "; store only when '" + Slot + " >= 0'";

    bool Fixed = false;
    // A clamped slot has no name to test: the clamp must go first (a note).
    bool Simple = !S.Clamped && Slot.find("...") == std::string::npos &&
                  Slot.find('\n') == std::string::npos;
    if (Simple && editable(Fd.Range)) {
      if (Triton) {
        std::string Term = "(" + Slot + " >= 0)";
        if (A.Mask && editable(A.Mask->Range) &&
            A.Mask->Range.End.Offset > A.Mask->Range.Begin.Offset &&
            A.Mask->Range.Begin.File == Fd.Range.Begin.File) {
          FixIt Open, Close;
          Open.Begin = A.Mask->Range.Begin;
          Open.Text = "(";
          Close.Begin = A.Mask->Range.End;
          Close.Text = ") & " + Term;
          Fd.Fixes = {Open, Close};
          Fixed = true;
        } else if (!A.Mask && Fd.Range.End.Offset > Fd.Range.Begin.Offset + 1) {
          FixIt Ins;
          Ins.Begin = Fd.Range.End;
          Ins.Begin.Offset -= 1; // before the call's closing parenthesis
          Ins.Begin.Col = Ins.Begin.Col > 1 ? Ins.Begin.Col - 1 : Ins.Begin.Col;
          Ins.Text = ", mask=" + Slot + " >= 0";
          Fd.Fixes = {Ins};
          Fixed = true;
        }
      } else if (A.Stmt.valid() && !A.Stmt.InMacro &&
                 A.Stmt.Begin.File == Fd.Range.Begin.File &&
                 A.Stmt.End.Offset > A.Stmt.Begin.Offset) {
        // Guard the store statement, not the thread: an early return before
        // a __syncthreads() (or a warp collective) that follows would hang
        // the block or read an undefined lane. One statement per line, in
        // the file's indentation.
        bool StartsLine = A.Stmt.Begin.Col == A.Indent.size() + 1;
        FixIt Open, Close;
        Open.Begin = A.Stmt.Begin;
        Close.Begin = A.Stmt.End;
        if (StartsLine) {
          Open.Text = "if (" + Slot + " >= 0) {\n" + A.Indent + "  ";
          Close.Text = "\n" + A.Indent + "}";
        } else {
          Open.Text = "if (" + Slot + " >= 0) { ";
          Close.Text = " }";
        }
        Fd.Fixes = {Open, Close};
        Fixed = true;
      }
    }
    for (FixIt &X : Fd.Fixes)
      X.Safe = false; // it skips work: a reviewer decides
    if (!Fixed) {
      std::string Why = "skip the pad slot at the store: guard it with 'if (slot >= 0)', or "
                        "mask it out";
      if (const SyncPoint *P = syncAfter(S.Load->Range.Begin.Offset))
        Why += "; not an early return: '" + P->Name + "' at line " +
               std::to_string(P->Loc.Line) + " must still be reached by every thread";
      Fd.Notes.push_back({Fd.Range, std::string(S.Clamped ? "remove the clamp, then " : "") + Why});
    }
    Out.push_back(std::move(Fd));
  }
};

void UncheckedPadSlot::run(const Function &F, std::vector<Finding> &Out) const {
  Check C{*this, F, Out};
  C.run();
}

KVLINT_REGISTER_RULE(UncheckedPadSlot, "KV003", "kvlint-unchecked-pad-slot")

} // namespace kvlint
