//===- ConfigTest.cpp - configuration files, discovery, baseline, diff ----===//
#include "Baseline.h"
#include "Config.h"
#include "Diff.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <algorithm>

using namespace kvlint;
namespace fs = std::filesystem;

namespace {

ConfigFile cfg(const std::string &T, ConfigKind K = ConfigKind::ClangTidy) {
  ConfigFile F;
  std::string Err;
  EXPECT_TRUE(parseConfig(T, "/p/.clang-tidy", K, F, Err)) << Err;
  return F;
}

std::string cfgErr(const std::string &T, ConfigKind K = ConfigKind::ClangTidy) {
  ConfigFile F;
  std::string Err;
  EXPECT_FALSE(parseConfig(T, "/p/.clang-tidy", K, F, Err));
  return Err;
}

TEST(Config, ClangTidyKeysBothOptionForms) {
  ConfigFile A = cfg("Checks: '-*,kvlint-*'\nCheckOptions:\n  - key: k.A\n    value: 1\n"
                     "HeaderFilterRegex: '.*'\nInheritParentConfig: true\n");
  ASSERT_TRUE(A.Checks);
  EXPECT_EQ(*A.Checks, (std::vector<std::string>{"-*", "kvlint-*"}));
  EXPECT_EQ(A.Options, (std::vector<std::pair<std::string, std::string>>{{"k.A", "1"}}));
  EXPECT_TRUE(A.InheritParent);
  ConfigFile B = cfg("CheckOptions:\n  k.A: 2\n  Level: latent\n");
  EXPECT_EQ(B.Options.size(), 2u);
  EXPECT_EQ(B.Options[1].second, "latent");
}

TEST(Config, ChecksWithoutKvlintLeaveTheDefault) {
  EXPECT_FALSE(cfg("Checks: '-*,bugprone-*'\n").Checks);
  EXPECT_FALSE(cfg("Checks: '*'\n").Checks);
  EXPECT_TRUE(cfg("Checks: '*,-kvlint-unguarded-table-load'\n").Checks);
  EXPECT_TRUE(cfg("Checks: 'KV001'\n").Checks);
  EXPECT_TRUE(cfg("Checks: 'kv*'\n").Checks);
}

TEST(Config, KvlintKeysAndFlattening) {
  ConfigFile F = cfg("Exclude: [third_party, gen/]\nBaseline: b.txt\nEnvelope: {KvSlots: 1048576}\n"
                     "Envelope.Tokens: 65536\nkvlint-unguarded-table-load: {PadValue: 3}\nchecks: KV001\n",
                     ConfigKind::Kvlint);
  EXPECT_EQ(F.Exclude, (std::vector<std::string>{"third_party", "gen/"}));
  EXPECT_EQ(F.Baseline, "/p/b.txt");
  ASSERT_EQ(F.Options.size(), 3u);
  EXPECT_EQ(F.Options[0], (std::pair<std::string, std::string>{"Envelope.KvSlots", "1048576"}));
  EXPECT_EQ(F.Options[1].first, "Envelope.Tokens");
  EXPECT_EQ(F.Options[2].first, "kvlint-unguarded-table-load.PadValue");
  EXPECT_EQ(*F.Checks, (std::vector<std::string>{"KV001"}));
  // The same keys mean nothing to clang-tidy's file.
  EXPECT_TRUE(cfg("Exclude: [a]\nFoo: 1\n").Options.empty());
}

TEST(Config, EnvelopeFilesAndUnknownDimensions) {
  fs::path D = fs::temp_directory_path() / ("kvlint-env-" + std::to_string(::getpid()));
  fs::create_directories(D);
  std::ofstream(D / "env.yaml") << "Tokens: 262144\nKvSlots.Names: 'slot|loc'\nLatentScale: 8\n";
  ConfigFile F;
  std::string Err;
  ASSERT_TRUE(readEnvelopeFile((D / "env.yaml").string(), F, Err)) << Err;
  EXPECT_EQ(F.Options, (std::vector<std::pair<std::string, std::string>>{
                           {"Envelope.Tokens", "262144"},
                           {"Envelope.KvSlots.Names", "slot|loc"},
                           {"Envelope.LatentScale", "8"}}));
  // .kvlint.yaml's Envelope: FILE reads the file beside it.
  std::ofstream(D / ".kvlint.yaml") << "Envelope: env.yaml\n";
  ConfigFile K;
  ASSERT_TRUE(readConfigFile((D / ".kvlint.yaml").string(), ConfigKind::Kvlint, K, Err)) << Err;
  EXPECT_EQ(K.Options.size(), 3u);
  std::ofstream(D / "bad.yaml") << "Tokens: 1\nTokenz: 2\n";
  ConfigFile B;
  EXPECT_FALSE(readEnvelopeFile((D / "bad.yaml").string(), B, Err));
  EXPECT_NE(Err.find("bad.yaml:2: unknown envelope dimension 'Tokenz'"), std::string::npos) << Err;
  EXPECT_FALSE(readEnvelopeFile((D / "missing.yaml").string(), B, Err));
  fs::remove_all(D);
}

TEST(Config, BadInputIsAnErrorWithTheLine) {
  EXPECT_EQ(cfgErr("CheckOptions:\n  - key: a\n    val: 1\n"),
            "/p/.clang-tidy:2: CheckOptions entries are '- key: NAME' and 'value: VALUE'");
  EXPECT_EQ(cfgErr("InheritParentConfig: maybe\n"),
            "/p/.clang-tidy:1: InheritParentConfig wants true or false, got 'maybe'");
  EXPECT_EQ(cfgErr("- a\n"), "/p/.clang-tidy:1: expected 'key: value' lines (a mapping) at the top");
  EXPECT_EQ(cfgErr("CheckOptions: 3\n"),
            "/p/.clang-tidy:1: CheckOptions wants a mapping or a list of key/value pairs");
}

TEST(Config, InheritanceAndOverrides) {
  EffectiveConfig E;
  E.apply(cfg("Checks: '-*,kvlint-*'\nCheckOptions: {a.X: 1, a.Y: 1}\n"));
  ConfigFile Child = cfg("InheritParentConfig: true\nChecks: '-kvlint-unguarded-table-load'\nCheckOptions: {a.Y: 2}\n");
  E.apply(Child);
  EXPECT_EQ(E.Checks, (std::vector<std::string>{"-*", "kvlint-*", "-kvlint-unguarded-table-load"}));
  EXPECT_EQ(E.Opts.get("a.X", ""), "1");
  EXPECT_EQ(E.Opts.get("a.Y", ""), "2");
  ConfigFile Replace = cfg("Checks: 'KV002'\n");
  E.apply(Replace);
  EXPECT_EQ(E.Checks, (std::vector<std::string>{"KV002"}));
}

TEST(Config, DiscoveryPerDirectory) {
  fs::path D = fs::temp_directory_path() / "kvlint-unit-discovery";
  fs::remove_all(D);
  fs::create_directories(D / "a" / "b");
  fs::create_directories(D / "c");
  std::ofstream(D / ".kvlint.yaml") << "Exclude: [gen]\nLevel: latent\n";
  std::ofstream(D / "a" / ".clang-tidy") << "CheckOptions: {k.A: on}\n";
  std::ofstream(D / "a" / "b" / ".clang-tidy") << "CheckOptions: {k.B: on}\n";
  std::ofstream(D / "c" / ".clang-tidy") << "CheckOptions: [\n";
  ConfigFile Cli;
  Cli.Options.push_back({"k.Z", "cli"});
  ConfigResolver R({Cli});
  std::string Err;
  auto A = R.forFile((D / "a" / "x.cu").string(), Err);
  auto B = R.forFile((D / "a" / "b" / "x.cu").string(), Err);
  ASSERT_TRUE(A && B) << Err;
  EXPECT_EQ(A->Opts.get("k.A", ""), "on");
  EXPECT_FALSE(B->Opts.has("k.A")); // no InheritParentConfig: the nearest file only
  EXPECT_EQ(B->Opts.get("k.B", ""), "on");
  EXPECT_EQ(B->Opts.get("Level", ""), "latent"); // .kvlint.yaml always layers
  EXPECT_EQ(B->Opts.get("k.Z", ""), "cli");
  EXPECT_EQ(B->Exclude, (std::vector<std::string>{"gen"}));
  EXPECT_FALSE(R.forFile((D / "c" / "x.cu").string(), Err));
  EXPECT_NE(Err.find("c/.clang-tidy:1: unterminated flow collection"), std::string::npos) << Err;
  fs::remove_all(D);
}

TEST(Baseline, StrictFormat) {
  Baseline B;
  std::string Err;
  EXPECT_TRUE(parseBaseline("# kvlint baseline v2\n# note\n\n"
                            "0123456789abcdef 0011223344556677 KV001 a.cu:3 f\n",
                            "b", B, Err))
      << Err;
  ASSERT_EQ(B.Entries.size(), 1u);
  EXPECT_EQ(B.Entries[0].Site, "0011223344556677");
  EXPECT_EQ(B.Entries[0].File, "a.cu");
  EXPECT_EQ(B.Entries[0].Line, 3u);
  EXPECT_FALSE(parseBaseline("0123456789abcdef KV001\n", "b", B, Err));
  EXPECT_EQ(Err, "b:1: not a kvlint baseline (the first line must be '# kvlint baseline v2')");
  EXPECT_FALSE(parseBaseline("# kvlint baseline v2\nxyz\n", "b", B, Err));
  EXPECT_EQ(Err, "b:2: expected '<16 hex digits> <16 hex digits> <code> <file>:<line> <function>'");
  EXPECT_FALSE(parseBaseline("# kvlint baseline v2\n0123456789abcdef KV001 a.cu:3 f\n", "b", B, Err));
  EXPECT_FALSE(parseBaseline("", "b", B, Err));
  EXPECT_FALSE(parseBaseline("# kvlint baseline v1\n0123456789ABCDEF x\n", "b", B, Err));
  EXPECT_FALSE(parseBaseline("# kvlint baseline v9\n", "b", B, Err));
  EXPECT_NE(Err.find("newer than this kvlint reads"), std::string::npos) << Err;
  // v1 still reads (matched with the legacy fingerprints).
  EXPECT_TRUE(parseBaseline("# kvlint baseline v1\n0123456789abcdef KV001 a.cu:3 f\n", "b", B, Err));
  EXPECT_EQ(B.Version, 1u);
}

TEST(Baseline, CountsPerFingerprint) {
  Baseline B;
  std::string Err;
  // Two sites of one fingerprint known, lines 4 and 5.
  ASSERT_TRUE(parseBaseline("# kvlint baseline v2\n"
                            "00000000000000aa 1111111122222222 KV001 k.cu:4 f\n"
                            "00000000000000aa 3333333344444444 KV001 k.cu:5 f\n",
                            "b", B, Err));
  // Three now: a new one (its own line text) above the two old ones, whose
  // neighbours changed.
  std::vector<BaselineSite> S = {{"00000000000000aa", "99999999aaaaaaaa", 4, false},
                                 {"00000000000000aa", "11111111bbbbbbbb", 5, false},
                                 {"00000000000000aa", "3333333344444444", 6, false}};
  BaselineMatch M = matchBaseline(B, S);
  EXPECT_EQ(M.Known, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(M.Matched, 2u);
  EXPECT_EQ(M.New, 1u);
  // Same line text everywhere: --diff's changed line is the new one.
  S = {{"00000000000000aa", "1111111122222222", 4, false},
       {"00000000000000aa", "1111111122222222", 5, true},
       {"00000000000000aa", "1111111122222222", 6, false}};
  M = matchBaseline(B, S);
  EXPECT_EQ(M.Known, (std::vector<bool>{true, false, true}));
  // Fewer than the baseline counts: all known, one entry unused (gone).
  S = {{"00000000000000aa", "", 9, false}};
  M = matchBaseline(B, S);
  EXPECT_EQ(M.Known, (std::vector<bool>{true}));
  EXPECT_EQ(std::count(M.EntryUsed.begin(), M.EntryUsed.end(), false), 1);
}

TEST(Baseline, FingerprintsSurviveMovesNotChanges) {
  auto Make = [](const std::string &File, unsigned Line, unsigned Off, unsigned End) {
    Finding F;
    F.Code = "KV001";
    F.Function = "k";
    F.Range.Begin = {File, Line, 1, Off};
    F.Range.End = {File, Line, 1, End};
    return F;
  };
  SourceCache S;
  S.put("a.cu", "x[page * stride] = 0;\n");
  S.put("b.cu", "// new line\n\n  x[page  *  stride] = 0;\n");
  S.put("c.cu", "x[page * stride2] = 0;\n");
  auto A = fingerprints({Make("a.cu", 1, 2, 15)}, S, [](const std::string &) { return "k"; });
  auto B = fingerprints({Make("b.cu", 3, 17, 32)}, S, [](const std::string &) { return "k"; });
  auto C = fingerprints({Make("c.cu", 1, 2, 16)}, S, [](const std::string &) { return "k"; });
  EXPECT_EQ(A, B);
  EXPECT_NE(A, C);
  Finding Other = Make("a.cu", 1, 2, 15);
  Other.Code = "KV002";
  EXPECT_NE(fingerprints({Other}, S), fingerprints({Make("a.cu", 1, 2, 15)}, S));
  // Two equal expressions in one function share it (a baseline counts
  // them); the legacy (v1) fingerprints told them apart by occurrence.
  auto Two = fingerprints({Make("a.cu", 1, 2, 15), Make("a.cu", 1, 2, 15)}, S);
  EXPECT_EQ(Two[0], Two[1]);
  auto Old = legacyFingerprints({Make("a.cu", 1, 2, 15), Make("a.cu", 1, 2, 15)}, S);
  EXPECT_NE(Old[0], Old[1]);
}

TEST(Group, OneFindingPerValueToWiden) {
  auto Make = [](const std::string &Fn, unsigned Line, const std::string &Group,
                 unsigned FixAt) {
    Finding F;
    F.Code = "KV001";
    F.Function = Fn;
    F.Group = Group;
    F.Message = "product at line " + std::to_string(Line);
    F.Range.Begin = {"a.cu", Line, 3, Line * 100};
    F.Fixes.push_back({{"a.cu", Line, 3, FixAt}, 0, "static_cast<int64_t>("});
    return F;
  };
  std::vector<Finding> Fs = {Make("k", 4, "bos", 400), Make("k", 5, "i_t", 500),
                             Make("k", 6, "bos", 600), Make("k", 7, "", 700),
                             Make("k", 8, "", 800),    Make("other", 9, "bos", 900),
                             Make("k", 10, "bos", 400)};
  Fs[3].Code = "KV002";
  std::vector<std::string> Keys = {"a", "b", "c", "d", "e", "f", "g"};
  EXPECT_EQ(groupSites(Fs, &Keys), 2u);
  ASSERT_EQ(Fs.size(), 5u);
  // The first site leads, says how many more there are and carries their
  // messages as notes and their fix-its (an identical edit once).
  EXPECT_EQ(Fs[0].Range.Begin.Line, 4u);
  EXPECT_EQ(Fs[0].Message, "product at line 4; 2 more offsets in this function multiply 'bos' "
                           "the same way (notes)");
  ASSERT_EQ(Fs[0].Notes.size(), 2u);
  EXPECT_EQ(Fs[0].Notes[0].Range.Begin.Line, 6u);
  EXPECT_EQ(Fs[0].Notes[0].Message, "and here: product at line 6");
  EXPECT_EQ(Fs[0].Fixes.size(), 2u);
  // Another value, no group, another rule, another function: apart.
  EXPECT_EQ(Fs[1].Group, "i_t");
  EXPECT_EQ(Fs[1].Message, "product at line 5");
  EXPECT_EQ(Fs[2].Range.Begin.Line, 7u);
  EXPECT_EQ(Fs[3].Range.Begin.Line, 8u);
  EXPECT_EQ(Fs[4].Function, "other");
  EXPECT_EQ(Keys, (std::vector<std::string>{"a", "b", "d", "e", "f"}));
  // A site that wraps only beyond the envelope is not folded into one that
  // wraps inside it.
  std::vector<Finding> L = {Make("k", 4, "bos", 400), Make("k", 6, "bos", 600)};
  L[1].Latent = true;
  EXPECT_EQ(groupSites(L), 0u);
  EXPECT_EQ(L.size(), 2u);
}

TEST(Diff, UnifiedDiffLines) {
  ChangedLines L;
  std::string Err;
  std::string D = "diff --git a/x.cu b/x.cu\n--- a/x.cu\n+++ b/x.cu\n@@ -3,0 +4,2 @@\n+a\n+++b\n"
                  "@@ -10 +12 @@\n-old\n+new\n@@ -20,2 +21,0 @@\n-x\n-y\n"
                  "--- a/gone.cu\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n";
  ASSERT_TRUE(parseUnifiedDiff(D, "/r", L, Err)) << Err;
  EXPECT_TRUE(L.touches("/r/x.cu", 4, 4));
  EXPECT_TRUE(L.touches("/r/x.cu", 5, 5));
  EXPECT_FALSE(L.touches("/r/x.cu", 6, 6));
  EXPECT_TRUE(L.touches("/r/x.cu", 12, 12));
  EXPECT_FALSE(L.touches("/r/x.cu", 21, 21));
  EXPECT_TRUE(L.touches("/r/x.cu", 11, 13));
  EXPECT_TRUE(L.hasFile("/r/x.cu"));
  EXPECT_FALSE(L.hasFile("/r/gone.cu"));
  EXPECT_FALSE(parseUnifiedDiff("@@ -1 +1 @@\n-a\n+b\n", "/r", L, Err));
  EXPECT_EQ(Err, "diff:1: hunk before any '+++ ' file header");
  EXPECT_FALSE(parseUnifiedDiff("+++ b/x\n@@ -1 +1,2 @@\n+b\n", "/r", L, Err));
  EXPECT_EQ(Err, "diff:3: diff ends inside a hunk");
  EXPECT_FALSE(parseUnifiedDiff("+++ b/x\n@@ -1 +x @@\n", "/r", L, Err));
  EXPECT_EQ(Err, "diff:2: malformed hunk header '@@ -1 +x @@'");
}

TEST(Diff, RefsThatLookLikeFlagsAreRefused) {
  ChangedLines L;
  std::string Err;
  EXPECT_FALSE(gitDiff(".", "--output=/tmp/x", L, Err));
  EXPECT_EQ(Err, "--diff: '--output=/tmp/x' is not a git revision");
}

} // namespace
