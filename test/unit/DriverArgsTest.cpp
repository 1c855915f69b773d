//===- DriverArgsTest.cpp - the CLI's flag table, file walk, compile db ---===//
#include "Args.h"
#include "CompileDb.h"
#include "FileWalk.h"
#include "Fixes.h"
#include "SafeWrite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace kvlint;
namespace fs = std::filesystem;

namespace {

int parse(std::vector<std::string> A, CliOptions &C, std::string *ErrText = nullptr) {
  std::ostringstream Out, Err;
  int R = parseArgs(A, C, Out, Err);
  if (ErrText)
    *ErrText = Err.str();
  return R;
}

/// A fresh empty directory under the system temp dir.
fs::path scratch(const std::string &Name) {
  fs::path P = fs::temp_directory_path() / ("kvlint-unit-" + Name + "-" +
                                            std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(P);
  fs::create_directories(P);
  return P;
}

void write(const fs::path &P, const std::string &Text) {
  fs::create_directories(P.parent_path());
  std::ofstream(P, std::ios::binary) << Text;
}

std::string read(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

TEST(Args, ValuesInEverySpelling) {
  CliOptions C;
  EXPECT_EQ(parse({"--format=json", "-p", "bdir", "-j1", "--shard", "1/3", "--exclude=third",
                   "--exclude", "gen", "a.cu", "dir", "--", "-DX=1"},
                  C),
            -1);
  EXPECT_EQ(C.Format, "json");
  EXPECT_EQ(C.DbDir, "bdir");
  EXPECT_EQ(C.Jobs, 1u); // -j is capped at the hardware threads: 1 fits every machine
  EXPECT_EQ(C.ShardI, 1u);
  EXPECT_EQ(C.ShardN, 3u);
  EXPECT_EQ(C.Excludes, (std::vector<std::string>{"third", "gen"}));
  EXPECT_EQ(C.Inputs, (std::vector<std::string>{"a.cu", "dir"}));
  EXPECT_EQ(C.Extra, (std::vector<std::string>{"-DX=1"}));
}

TEST(Args, SwitchesAndOptions) {
  CliOptions C;
  EXPECT_EQ(parse({"--fix", "-v", "--dump-ir", "--checks=KV001,-KV002",
                   "--option=kvlint-narrowed-index-overflow.SafeHelpers=a=b"},
                  C),
            -1);
  EXPECT_TRUE(C.Fix);
  EXPECT_TRUE(C.Verbose);
  EXPECT_TRUE(C.DumpIR);
  ASSERT_EQ(C.Overrides.size(), 2u);
  EXPECT_EQ(*C.Overrides[0].Checks, (std::vector<std::string>{"KV001", "-KV002"}));
  EXPECT_EQ(C.Overrides[1].Options[0],
            (std::pair<std::string, std::string>{"kvlint-narrowed-index-overflow.SafeHelpers",
                                                 "a=b"}));
}

TEST(Args, UsageErrorsExitTwo) {
  std::string Err;
  for (std::vector<std::string> Bad :
       {std::vector<std::string>{"--format=xml"}, {"--shard=3/3"}, {"--shard=x"}, {"-j", "many"},
        {"--option=novalue"}, {"--bogus"}, {"--format"}, {"--diff="},
        {"--config=/nonexistent/kvlint.yaml"}}) {
    CliOptions C;
    EXPECT_EQ(parse(Bad, C, &Err), 2) << Bad[0];
    EXPECT_NE(Err.find("kvlint: error: "), std::string::npos) << Bad[0];
  }
}

TEST(Args, HelpListsEveryFlag) {
  std::string U = usageText();
  for (const char *F : {"--format=text|json|sarif", "--checks=LIST", "--config=FILE", "-p DIR",
                        "-j N", "--shard=I/N", "--exclude=SUBSTR", "--fix", "-v, --verbose"})
    EXPECT_NE(U.find(F), std::string::npos) << F;
  CliOptions C;
  EXPECT_EQ(parse({"--help"}, C), 0);
}

TEST(FileWalk, SortedSourcesSkippingHiddenAndExcluded) {
  fs::path D = scratch("walk");
  write(D / "b.cu", "");
  write(D / "a.py", "");
  write(D / "notes.txt", "");
  write(D / ".git" / "x.cu", "");
  write(D / "__pycache__" / "y.py", "");
  write(D / "third_party" / "z.cu", "");
  write(D / "sub" / "c.hip", "");
  write(D / "sub" / "tests" / "t.cu", "");
  write(D / "sub" / "tests" / "deep" / "t.py", "");
  write(D / "benchmarks" / "b.py", "");
  std::vector<std::string> Files;
  std::vector<FileNote> Notes;
  WalkSkips Skips;
  collect(D.string(), {"third_party"}, Files, Notes, Skips);
  EXPECT_EQ(Skips.TestFiles, 3u);
  ASSERT_EQ(Files.size(), 3u);
  EXPECT_EQ(fs::path(Files[0]).filename(), "a.py");
  EXPECT_EQ(fs::path(Files[1]).filename(), "b.cu");
  EXPECT_EQ(fs::path(Files[2]).filename(), "c.hip");
  EXPECT_TRUE(Notes.empty());
  collect((D / "missing").string(), {}, Files, Notes, Skips);
  ASSERT_EQ(Notes.size(), 1u);
  EXPECT_TRUE(Notes[0].Error);
  fs::remove_all(D);
}

TEST(FileWalk, ShardsCoverOnce) {
  std::vector<std::string> All = {"a", "b", "c", "d", "e"};
  std::vector<std::string> S0 = All, S1 = All;
  keepShard(S0, 0, 2);
  keepShard(S1, 1, 2);
  EXPECT_EQ(S0, (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_EQ(S1, (std::vector<std::string>{"b", "d"}));
}

TEST(CompileDb, KeepsPreprocessorFlagsOnly) {
  auto F = usefulFlags({"nvcc", "-Iinc", "-isystem", "/usr/local/cuda/include", "-DA=1", "-O3",
                        "--use_fast_math", "-std=c++17", "-std=c99", "-include", "pre.h",
                        "-gencode", "arch=compute_90,code=sm_90"},
                       "/proj");
  EXPECT_EQ(F, (std::vector<std::string>{"-I/proj/inc", "-DA=1", "-std=c++17", "-include",
                                         "/proj/pre.h"}));
}

TEST(Fixes, AppliesAtomicallyAndReports) {
  fs::path D = scratch("fix");
  fs::path P = D / "k.cu";
  write(P, "x = a * b;\n");
  Finding F;
  F.Range.Begin = {P.string(), 1, 5, 4};
  FixIt X;
  X.Begin = F.Range.Begin;
  X.Length = 0;
  X.Text = "(long)";
  F.Fixes.push_back(X);
  std::ostringstream Err;
  FixOutcome O = applyAllFixes({F}, {{P.string(), contentHash("x = a * b;\n")}}, false,
                                 {P.parent_path().string()}, Err);
  EXPECT_EQ(O.Failures, 0u);
  EXPECT_EQ(O.FindingsFixed, 1u);
  EXPECT_EQ(read(P), "x = (long)a * b;\n");
  EXPECT_NE(Err.str().find("applied 1 edit(s)"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(D), fs::directory_iterator()), 1);
  fs::remove_all(D);
}

} // namespace
