//===- ClangFactsTest.cpp - Clang frontend: launch facts and host checks --===//
//
// What the lit tests in test/facts/ do not print: where each fact was read
// (Hint.Source, CheckedProduct::Source) and the checked-helper option.
//
//===----------------------------------------------------------------------===//
#include "kvlint/ClangFrontend.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <set>

using namespace kvlint;

namespace {

LoweredFile lowerCuda(const std::string &Src, const std::string &Helpers = DefaultCheckedHelpers) {
  std::string Path = testing::TempDir() + "facts_" +
                     testing::UnitTest::GetInstance()->current_test_info()->name() + ".cu";
  std::ofstream(Path) << Src;
  ClangInput In;
  In.Path = Path;
  In.Lang = Language::Cuda;
  In.CheckedHelpers = Helpers;
  LoweredFile LF = lowerClangFile(In);
  std::remove(Path.c_str());
  return LF;
}

const Function *kernel(const LoweredFile &LF, const std::string &Name) {
  for (const auto &F : LF.Functions)
    if (F->IsKernel && F->Name == Name)
      return F.get();
  return nullptr;
}

const Node *find(const Node *N, const std::function<bool(const Node *)> &P,
                 std::set<const Node *> &Seen) {
  if (!N || !Seen.insert(N).second)
    return nullptr;
  if (P(N))
    return N;
  for (const Node *O : N->Ops)
    if (const Node *R = find(O, P, Seen))
      return R;
  return nullptr;
}

/// The first node in F's accesses with this kind and name.
const Node *node(const Function &F, Kind K, const std::string &Name) {
  std::set<const Node *> Seen;
  for (const Access &A : F.Accesses)
    if (const Node *N =
            find(A.Addr, [&](const Node *X) { return X->K == K && X->Name == Name; }, Seen))
      return N;
  return nullptr;
}

const char *Launcher = R"(
#define DIVUP(a, b) (((a) + (b) - 1) / (b))
__global__ void k(float *out, int n, int d) { out[(blockIdx.x * 4 + blockIdx.y) * d + n] = 0; }
__global__ void k2(float *out, int n, int d);
void launch(float *out, int num_tokens, int hidden) {
  if ((long)num_tokens * hidden > 2147483647)
    throw 1;
  k<<<dim3(DIVUP(num_tokens, 32), 4), 128>>>(out, 7, hidden);
  k<<<dim3(DIVUP(num_tokens, 32), 2), 128>>>(out, 9, hidden);
  k2<<<num_tokens, 128>>>(out, num_tokens, hidden);
}
)";

TEST(ClangFacts, GridAndArgumentHintsSayWhereTheyCameFrom) {
  LoweredFile LF = lowerCuda(Launcher);
  const Function *K = kernel(LF, "k");
  ASSERT_TRUE(K);
  const Node *X = node(*K, Kind::LaunchIdx, "blockIdx.x");
  ASSERT_TRUE(X);
  EXPECT_FALSE(X->Hint.HasRange);
  EXPECT_EQ(X->Hint.BoundBy, "num_tokens");
  EXPECT_EQ(X->Hint.BoundDiv, 32);
  EXPECT_EQ(X->Hint.Source, "launch at facts_GridAndArgumentHintsSayWhereTheyCameFrom.cu:8 "
                            "(+1 more)");
  const Node *Y = node(*K, Kind::LaunchIdx, "blockIdx.y");
  ASSERT_TRUE(Y);
  EXPECT_TRUE(Y->Hint.HasRange);
  EXPECT_EQ(Y->Hint.Lo, 0);
  EXPECT_EQ(Y->Hint.Hi, 3);
  EXPECT_TRUE(Y->Hint.BoundBy.empty());
  const Node *N = node(*K, Kind::Param, "n");
  ASSERT_TRUE(N);
  EXPECT_TRUE(N->Hint.HasRange);
  EXPECT_EQ(N->Hint.Lo, 7);
  EXPECT_EQ(N->Hint.Hi, 9);
  const Node *D = node(*K, Kind::Param, "d");
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Hint.BoundBy, "hidden");
  EXPECT_FALSE(D->Hint.HasRange);
}

TEST(ClangFacts, CheckedProductInKernelNames) {
  const char *Src = R"(
__global__ void k(float *out, int n, int d) { out[blockIdx.x * d + n] = 0; }
__global__ void k2(float *out, int rows, int width) { out[blockIdx.x * width + rows] = 0; }
void launch(float *out, int num_tokens, int hidden) {
  if ((long)num_tokens * hidden > 2147483647)
    throw 1;
  k<<<num_tokens, 128>>>(out, 7, hidden);
  k2<<<num_tokens, 128>>>(out, num_tokens, hidden);
}
)";
  LoweredFile LF = lowerCuda(Src);
  // num_tokens is not passed to k but is its grid: blockIdx.x is below it,
  // so the check names the launch index's axis.
  const Function *K = kernel(LF, "k");
  ASSERT_TRUE(K);
  ASSERT_EQ(K->Checked.size(), 1u);
  EXPECT_EQ(K->Checked[0].Factors, (std::vector<std::string>{"@grid_x", "d"}));
  // k2 gets both factors, in its own names.
  const Function *K2 = kernel(LF, "k2");
  ASSERT_TRUE(K2);
  ASSERT_EQ(K2->Checked.size(), 1u);
  EXPECT_EQ(K2->Checked[0].Factors, (std::vector<std::string>{"rows", "width"}));
  EXPECT_EQ(K2->Checked[0].Max, 2147483647);
  EXPECT_EQ(K2->Checked[0].Source, "check at facts_CheckedProductInKernelNames.cu:5");
}

TEST(ClangFacts, HelperRegexIsAnOption) {
  const char *Src = R"(
void my_check(long a, long b);
__global__ void k(float *out, int n, int d) { out[blockIdx.x * d + n] = 0; }
void launch(float *out, int rows, int width) {
  my_check(rows, width);
  k<<<rows, 128>>>(out, rows, width);
}
)";
  LoweredFile Default = lowerCuda(Src);
  const Function *K = kernel(Default, "k");
  ASSERT_TRUE(K);
  EXPECT_TRUE(K->Checked.empty());
  LoweredFile Custom = lowerCuda(Src, "my_check|other_check");
  K = kernel(Custom, "k");
  ASSERT_TRUE(K);
  ASSERT_EQ(K->Checked.size(), 1u);
  EXPECT_EQ(K->Checked[0].Factors, (std::vector<std::string>{"n", "d"}));
  EXPECT_EQ(K->Checked[0].Max, 2147483647);
  EXPECT_EQ(K->Checked[0].Source, "my_check at facts_HelperRegexIsAnOption.cu:5");
}

TEST(ClangFacts, NoLaunchNoFacts) {
  LoweredFile LF =
      lowerCuda("__global__ void k(float *out, int d) { out[blockIdx.x * d] = 0; }\n");
  const Function *K = kernel(LF, "k");
  ASSERT_TRUE(K);
  EXPECT_TRUE(K->Checked.empty());
  const Node *X = node(*K, Kind::LaunchIdx, "blockIdx.x");
  ASSERT_TRUE(X);
  EXPECT_FALSE(X->Hint.any());
  const Node *D = node(*K, Kind::Param, "d");
  ASSERT_TRUE(D);
  EXPECT_FALSE(D->Hint.any());
}

} // namespace
