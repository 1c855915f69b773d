// Unit tests of the deployment envelope and the bounds analysis, on
// hand-built IR: facts first, names where no fact speaks, defaults last.
#include "kvlint/Bounds.h"
#include "kvlint/Envelope.h"

#include <gtest/gtest.h>

#include <map>

using namespace kvlint;

namespace {
const IntTy I32 = IntTy::integer(32, true);
const IntTy U32 = IntTy::integer(32, false);

Node *cst(Function &F, int64_t V, IntTy T = I32) {
  Node *N = F.make(Kind::Const, T);
  N->Value = V;
  return N;
}
Node *named(Function &F, Kind K, const char *Name, IntTy T = I32) {
  Node *N = F.make(K, T);
  N->Name = Name;
  N->Text = Name;
  return N;
}
Node *bin(Function &F, Kind K, const Node *A, const Node *B, IntTy T = I32) {
  Node *N = F.make(K, T, A, B);
  N->Text = A->Text + " op " + B->Text;
  return N;
}
Node *load(Function &F, const char *Table, IntTy Elem = I32) {
  Node *P = named(F, Kind::Param, Table, IntTy::pointer());
  Node *L = F.make(Kind::Load, Elem, P);
  L->ElemTy = Elem;
  L->Name = Table;
  return L;
}
Envelope env(std::map<std::string, std::string> Opts = {}) {
  Envelope E;
  E.configure([&](const std::string &K) { return Opts.count(K) ? Opts[K] : std::string(); });
  return E;
}
} // namespace

TEST(Envelope, NamesMapToDimensionsFirstMatchWins) {
  Envelope E = env();
  EXPECT_EQ(E.byName("block_stride")->Key, "Stride"); // a stride, not a page
  EXPECT_EQ(E.byName("page_size")->Key, "BlockSize");
  EXPECT_EQ(E.byName("head_dim")->Key, "HeadDim"); // before Heads
  EXPECT_EQ(E.byName("num_heads")->Key, "Heads");
  EXPECT_EQ(E.byName("cu_seqlens")->Key, "Tokens"); // before Context
  EXPECT_EQ(E.byName("seq_lens")->Key, "Context");
  // A request's first token in the step (LightLLM/vLLM prefill's B_Start_Loc,
  // a MoE expert's first row) is a token, not a KV-cache location.
  EXPECT_EQ(E.byName("B_Start_Loc")->Key, "Tokens");
  // A flat index over tokens x heads is bounded by the tokens, not the heads.
  EXPECT_EQ(E.byName("token_head_idx")->Key, "Tokens");
  EXPECT_EQ(E.byName("num_lookahead_tokens")->Key, "Tokens");
  EXPECT_EQ(E.byName("kv_head_idx")->Key, "Heads");
  // A token's position inside one page is below the page size, not a page.
  EXPECT_EQ(E.byName("page.page_token_begin")->Key, "BlockSize");
  EXPECT_EQ(E.byName("token_in_page")->Key, "BlockSize");
  EXPECT_EQ(E.byName("page_idx")->Key, "KvPages");
  EXPECT_EQ(E.byName("expert_start_loc")->Key, "Tokens");
  EXPECT_EQ(E.byName("out_cache_loc")->Key, "KvSlots");
  EXPECT_EQ(E.byName("kv_loc")->Key, "KvSlots");
  EXPECT_EQ(E.byName("params.seqlen_q")->Key, "Tokens"); // the member's leaf
  EXPECT_EQ(E.byName("kPageSize")->Key, "BlockSize");    // a k-constant
  EXPECT_EQ(E.byName("expert_ids")->Key, "Experts");
  EXPECT_NE(E.byName("expert_start_loc")->Key, "Experts");
  EXPECT_EQ(E.byName("q_indptr")->Key, "Tokens");   // a request's first token
  EXPECT_EQ(E.byName("qo_indptr")->Key, "Tokens");
  EXPECT_EQ(E.byName("kv_indptr")->Key, "KvPages");  // a request's first page
  EXPECT_EQ(E.byName("src_blocks")->Key, "KvPages"); // copy/swap block lists
  EXPECT_EQ(E.byName("x_blocks"), nullptr);          // CTAs, not KV blocks
  EXPECT_EQ(E.byName("block_idx")->Key, "KvPages");
  EXPECT_EQ(E.byName("kv_block_idx")->Key, "KvPages");
  EXPECT_EQ(E.byName("m_block_idx"), nullptr);       // a GEMM's M tile, not a KV block
  EXPECT_EQ(E.byName("n_block_id"), nullptr);
  EXPECT_EQ(E.byName("kBlockIdx")->Key, "KvPages");  // a k-constant's name is the rest
  EXPECT_EQ(E.byName("indptr"), nullptr);            // rows of anything
  EXPECT_EQ(E.byName("T")->Key, "SeqLen");
  EXPECT_EQ(E.byName("size_m")->Key, "Tokens");
  EXPECT_EQ(E.byName("x"), nullptr);
}

TEST(Envelope, OptionsOverrideBoundsAndNames) {
  Envelope E = env({{"Envelope.Tokens", "262,144"}, {"Envelope.Heads.Names", "^nh$"},
                    {"Envelope.LatentScale", "4"}, {"Envelope.Vocab", "oops"}});
  EXPECT_EQ(E.byKey("Tokens")->Max, 262144);
  EXPECT_EQ(E.byKey("Vocab")->Max, 262144); // malformed: the default stays
  EXPECT_EQ(E.byName("nh")->Key, "Heads");
  EXPECT_EQ(E.byName("num_heads"), nullptr);
  EXPECT_EQ(E.bound(*E.byKey("Tokens"), /*Beyond=*/true), 4 * 262144);
}

TEST(Bounds, FactsBeforeNames) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  const Node *Tid = named(F, Kind::ThreadIdx, "threadIdx.x", U32);
  EXPECT_EQ(B.of(Tid).Hi, 1023);
  EXPECT_TRUE(B.of(Tid).Exact);
  // x % 64 is below 64 whatever x is.
  const Node *Rem = bin(F, Kind::Rem, load(F, "slot_mapping"), cst(F, 64));
  EXPECT_EQ(B.of(Rem).Hi, 63);
  // A launcher constant beats the parameter's name.
  Node *Vocab = named(F, Kind::Param, "vocab_size");
  Vocab->Hint.HasRange = true;
  Vocab->Hint.Lo = Vocab->Hint.Hi = 128;
  EXPECT_EQ(B.of(Vocab).Hi, 128);
  EXPECT_EQ(B.of(named(F, Kind::Param, "vocab_size")).Hi, 262144);
}

TEST(Bounds, TableEntriesTakeTheTablesDimension) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  EXPECT_EQ(B.of(load(F, "block_table")).Hi, 8388607);
  // cu_seqlens holds offsets up to the total, itself included (a count).
  EXPECT_EQ(B.of(load(F, "cu_seqlens")).Hi, 262144); // Envelope.Tokens, inference
  EXPECT_EQ(B.of(load(F, "tbl")).Hi, E.byKey("Loaded")->Max - 1);
  EXPECT_EQ(B.of(load(F, "tbl", IntTy::integer(16, true))).Hi, 32767); // narrow type
}

TEST(Bounds, CouplingsCapShapes) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  // page * page_size is a slot: at most KvSlots, not KvPages x BlockSize.
  const Node *Slot = bin(F, Kind::Mul, load(F, "block_table"), named(F, Kind::Param, "page_size"));
  EXPECT_LE(B.of(Slot).Hi, 8388608);
  // heads x head dim is at most the hidden size.
  const Node *Row = bin(F, Kind::Mul, named(F, Kind::Param, "num_heads"),
                        named(F, Kind::Param, "head_dim"));
  EXPECT_LE(B.of(Row).Hi, 16384);
  // Without a coupling the bounds multiply: page x stride.
  const Node *Off = bin(F, Kind::Mul, load(F, "block_table"), named(F, Kind::Param, "page_stride"));
  EXPECT_EQ(B.of(Off).Hi, int64_t(8388607) * 16384);
}

TEST(Bounds, GuardsBoundTheValueTheyCompare) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  Node *I = load(F, "tbl");
  const Node *N = named(F, Kind::Param, "n_valid");
  Node *Lt = F.make(Kind::Lt, IntTy::boolean(), I, cst(F, 100));
  (void)N;
  Access A;
  A.Guards.push_back({Lt, false, Guard::If});
  B.at(A);
  EXPECT_EQ(B.of(I).Hi, 99);
  // The else branch: !(i < 100) is i >= 100, a lower bound only.
  Access Else;
  Else.Guards.push_back({Lt, true, Guard::If});
  B.at(Else);
  EXPECT_EQ(B.of(I).Lo, 100);
  EXPECT_GT(B.of(I).Hi, 99);
}

TEST(Bounds, RoundDownAndUnsigned) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  const Node *X = named(F, Kind::Param, "offset", U32);
  const Node *Y = named(F, Kind::Param, "width", U32);
  const Node *Q = bin(F, Kind::Div, X, Y, U32);
  const Node *RD = bin(F, Kind::Mul, Q, Y, U32);
  EXPECT_EQ(B.of(RD).Hi, B.of(X).Hi); // (x / y) * y <= x
  EXPECT_GE(B.of(bin(F, Kind::Sub, X, Y, U32)).Lo, 0); // unsigned is never negative
}

TEST(Bounds, LatentLooksBeyondTheEnvelope) {
  Function F;
  Envelope E = env();
  Bounds In(F, E, false), Beyond(F, E, true);
  const Node *Heads = named(F, Kind::Param, "num_heads");
  EXPECT_EQ(In.of(Heads).Hi, 128);
  EXPECT_EQ(Beyond.of(Heads).Hi, 128 * 16);
}

TEST(Bounds, HostCheckedProducts) {
  Function F;
  Envelope E = env();
  F.Checked.push_back({{"n", "h", "d"}, 2147483647, "check at f.cu:3"});
  Bounds B(F, E, false);
  const Node *N = named(F, Kind::Param, "n"), *H = named(F, Kind::Param, "h"),
             *D = named(F, Kind::Param, "d");
  const Node *P = bin(F, Kind::Mul, bin(F, Kind::Mul, N, H), D);
  EXPECT_EQ(B.of(P).Hi, 2147483647);
  const Node *P4 = bin(F, Kind::Mul, P, cst(F, 4));
  EXPECT_EQ(B.of(P4).Hi, int64_t(2147483647) * 4); // the check says nothing of 4x
}

TEST(Bounds, SelectArmsHoldUnderTheirCondition) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  // ok = raw < 1000; pos = ok ? raw : 0 -> pos <= 999; the else arm of
  // `raw >= 1000 ? 0 : raw` likewise.
  Node *Raw = load(F, "cu_seqlens");
  Node *Ok = F.make(Kind::Lt, IntTy::boolean(), Raw, cst(F, 1000));
  Node *Pos = F.make(Kind::Select, I32, Ok, Raw, cst(F, 0));
  EXPECT_EQ(B.of(Pos).Hi, 999);
  Node *Ge = F.make(Kind::Ge, IntTy::boolean(), Raw, cst(F, 1000));
  Node *Flip = F.make(Kind::Select, I32, Ge, cst(F, 0), Raw);
  EXPECT_EQ(B.of(Flip).Hi, 999);
  // The arm's own bound is untouched outside the select.
  EXPECT_GT(B.of(Raw).Hi, 999);
}

TEST(Bounds, OnChipArraysHoldWhatWasStoredThere) {
  Function F;
  Envelope E = env();
  Node *Smem = named(F, Kind::Unknown, "s_token", IntTy::pointer());
  Smem->OnChip = true;
  Node *Tid = named(F, Kind::ThreadIdx, "threadIdx.x", U32);
  // s_token[tid] = tid % 7; ... s_token[0]
  Access St;
  St.AK = AccessKind::Store;
  St.Addr = F.make(Kind::PtrAdd, IntTy::pointer(), Smem, Tid);
  St.Value = bin(F, Kind::Rem, Tid, cst(F, 7, U32), U32);
  F.Accesses.push_back(St);
  Node *Back = F.make(Kind::Load, I32, F.make(Kind::PtrAdd, IntTy::pointer(), Smem, cst(F, 0)));
  Back->ElemTy = I32;
  Back->Name = "s_token";
  Bounds B(F, E, false);
  EXPECT_EQ(B.of(Back).Hi, 6);
  // A store whose value is not seen (asm, a callee) leaves the default.
  Function G;
  Node *Smem2 = named(G, Kind::Unknown, "s_token", IntTy::pointer());
  Smem2->OnChip = true;
  Access Opaque;
  Opaque.AK = AccessKind::Store;
  Opaque.Addr = G.make(Kind::PtrAdd, IntTy::pointer(), Smem2, cst(G, 0));
  G.Accesses.push_back(Opaque);
  Node *Back2 = G.make(Kind::Load, I32, G.make(Kind::PtrAdd, IntTy::pointer(), Smem2, cst(G, 1)));
  Back2->ElemTy = I32;
  Back2->Name = "s_token";
  Bounds B2(G, E, false);
  EXPECT_EQ(B2.of(Back2).Hi, E.byKey("Tokens")->Max - 1); // by its name
}

TEST(Bounds, GridsOverProductsOfNames) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  // grid (NT, B * H): i_bh < B * H, i_bh // H < B.
  Node *Bh = named(F, Kind::LaunchIdx, "program_id(1)");
  Bh->Hint.BoundBy = "B*H";
  EXPECT_EQ(B.of(Bh).Hi, 4096 * 128 - 1);
  const Node *IB = bin(F, Kind::Div, Bh, named(F, Kind::Symbolic, "H"));
  EXPECT_EQ(B.of(IB).Hi, 4095 - 1);
  // bos = i_b * T is a token of the batch (Requests x SeqLen -> Tokens), so
  // bos * H stays below 2^31.
  const Node *Bos = bin(F, Kind::Mul, IB, named(F, Kind::Param, "T"));
  EXPECT_LE(B.of(Bos).Hi, 1048576);
  EXPECT_LT(B.of(bin(F, Kind::Mul, Bos, named(F, Kind::Symbolic, "H"))).Hi, int64_t(1) << 31);
  // A quotient keeps the dividend's shape: NT = T / BT, i_b * NT is a token.
  const Node *NT = bin(F, Kind::Div, named(F, Kind::Param, "T"), named(F, Kind::Symbolic, "BT"));
  EXPECT_LE(B.of(bin(F, Kind::Mul, IB, NT)).Hi, 1048576);
}

TEST(Bounds, GuardsMatchTheOffsetTheyRepeat) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  // The mask writes i * 64 + j < n again; the address's i * 64 + j is a
  // different node with the same arithmetic.
  Node *I = named(F, Kind::LaunchIdx, "program_id(0)");
  Node *J = F.make(Kind::Range, I32);
  J->Value = 64;
  Node *A1 = bin(F, Kind::Add, bin(F, Kind::Mul, I, cst(F, 64)), J);
  Node *A2 = bin(F, Kind::Add, bin(F, Kind::Mul, I, cst(F, 64)), J);
  Access Acc;
  Acc.Mask = F.make(Kind::Lt, IntTy::boolean(), A1, cst(F, 5000));
  B.at(Acc);
  EXPECT_EQ(B.of(A2).Hi, 4999);
  // Different arithmetic is not the same value.
  Node *A3 = bin(F, Kind::Add, bin(F, Kind::Mul, I, cst(F, 32)), J);
  EXPECT_GT(B.of(A3).Hi, 4999);
}

// The extent of an allocated tensor (ValueHint::Extent): sizes named like a
// dimension take its bound, a name divided by a constant its quotient, a
// size whose name says nothing Envelope.Dimension -- but only in a tensor of
// two sizes or more; anything else has no extent (Inf).
TEST(Bounds, ExtentOfAnAllocation) {
  Function F;
  Envelope E = env();
  Bounds B(F, E, false);
  auto Ptr = [&](const char *Extent) {
    Node *P = named(F, Kind::Param, "x_ptr", IntTy::pointer());
    P->Hint.Extent = Extent;
    return P;
  };
  EXPECT_EQ(B.extentOf(Ptr("token_num*total_expert_num")).Hi, 262144LL * 512);
  EXPECT_EQ(B.extentOf(Ptr("M*N/128")).Hi, 262144LL * 2048); // one-letter names: Dimension
  EXPECT_EQ(B.extentOf(Ptr("num_tokens*hidden_size/128*4")).Hi, 262144LL * 128 * 4);
  EXPECT_EQ(B.extentOf(Ptr("n")).Hi, Bounds::Inf);          // a flat buffer of any size
  EXPECT_EQ(B.extentOf(Ptr("num_tokens")).Hi, 262144);      // one size its name bounds
  EXPECT_EQ(B.extentOf(Ptr("n/0*m")).Hi, Bounds::Inf);      // not a division
  EXPECT_EQ(B.extentOf(named(F, Kind::Param, "y_ptr", IntTy::pointer())).Hi, Bounds::Inf);
  Bounds Beyond(F, E, true); // the latent level scales every dimension
  EXPECT_GT(Beyond.extentOf(Ptr("M*N/128")).Hi, B.extentOf(Ptr("M*N/128")).Hi);
}
