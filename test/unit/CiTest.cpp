//===- CiTest.cpp - shard plans, GitHub escapes, fix diffs, suppressions ----===//
#include "IncludeScan.h"
#include "kvlint/Report.h"
#include "kvlint/Suppress.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kvlint;

TEST(Shard, EveryFileReportedByExactlyOneShard) {
  // 0 and 3 are headers; 1 includes 0, 2 includes 3, 4 includes 0 and 3.
  IncludeGraph G;
  G.Includers = {{1, 4}, {}, {}, {2, 4}, {}};
  for (unsigned N = 1; N <= 5; ++N) {
    std::vector<int> Owners(5, 0);
    for (unsigned I = 0; I < N; ++I) {
      ShardPlan P = planShard(G, 5, I, N);
      for (size_t F = 0; F < 5; ++F)
        if (P.Reports[F]) {
          ++Owners[F];
          // The owner analyses the file and every includer of it.
          EXPECT_NE(std::find(P.Analyse.begin(), P.Analyse.end(), F), P.Analyse.end());
          for (size_t X : G.Includers[F])
            EXPECT_NE(std::find(P.Analyse.begin(), P.Analyse.end(), X), P.Analyse.end());
        }
    }
    EXPECT_EQ(Owners, std::vector<int>(5, 1)) << "N=" << N;
  }
  // Header 0 goes with its first includer, 1.
  EXPECT_TRUE(planShard(G, 5, 1, 2).Reports[0]);
}

TEST(Github, Escapes) {
  EXPECT_EQ(githubEscape("a%b\r\nc: d, e", false), "a%25b%0D%0Ac: d, e");
  EXPECT_EQ(githubEscape("a,b:c%", true), "a%2Cb%3Ac%25");
}

TEST(Suppress, FormsAndProblems) {
  Finding F;
  F.Code = "KV001";
  F.Check = "kvlint-narrowed-index-overflow";
  auto At = [&](unsigned L) {
    Finding G = F;
    G.Range.Begin.Line = L;
    return G;
  };
  SuppressionMap M("x; // NOLINT(KV001)\n"
                   "// NOLINTNEXTLINE(kvlint-*)\n"
                   "y;\n"
                   "// NOLINTBEGIN(KV002)\n"
                   "z;\n"
                   "// NOLINTEND(KV002)\n"
                   "w;  # noqa: E501, KV001\n"
                   "v;  // kvlint: ignore[KV999]\n"
                   "u;  // NOLINTEND(KV003)\n");
  EXPECT_TRUE(M.suppresses(At(1)));
  EXPECT_TRUE(M.suppresses(At(3)));
  EXPECT_FALSE(M.suppresses(At(5))); // KV002's range
  EXPECT_TRUE(M.suppresses(At(7)));
  EXPECT_FALSE(M.suppresses(At(8)));
  ASSERT_EQ(M.Problems.size(), 2u);
  EXPECT_EQ(M.Problems[0].Line, 8u);
  EXPECT_NE(M.Problems[0].Message.find("unknown kvlint rule 'KV999'"), std::string::npos);
  EXPECT_EQ(M.Problems[1].Message, "NOLINTEND without a matching NOLINTBEGIN");
  // Unused: the NOLINTBEGIN(KV002) and the kvlint: ignore[KV999].
  unsigned Unused = 0;
  for (const Suppression &S : M.All)
    Unused += S.NamesKvlint && !S.Used;
  EXPECT_EQ(Unused, 2u);
}
