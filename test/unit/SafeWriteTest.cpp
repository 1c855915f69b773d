//===- SafeWriteTest.cpp - writes a hostile tree cannot redirect ----------===//
#include "Fixes.h"
#include "SafeWrite.h"
#include "Wire.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace kvlint;

namespace {

fs::path scratch(const std::string &Name) {
  fs::path D = fs::temp_directory_path() /
               ("kvlint-safewrite-" + Name + "-" + std::to_string(::getpid()));
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

void put(const fs::path &P, const std::string &Text) {
  std::ofstream(P, std::ios::binary) << Text;
}

std::string get(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

size_t entries(const fs::path &D) {
  return size_t(std::distance(fs::directory_iterator(D), fs::directory_iterator()));
}

TEST(SafeWrite, ReplacesARegularFileAndKeepsItsMode) {
  fs::path D = scratch("mode");
  put(D / "b.txt", "old");
  ::chmod((D / "b.txt").c_str(), 0640);
  std::string Err;
  ASSERT_TRUE(writeFileAtomically((D / "b.txt").string(), "new", Err)) << Err;
  EXPECT_EQ(get(D / "b.txt"), "new");
  struct stat St;
  ASSERT_EQ(::stat((D / "b.txt").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 07777, 0640u);
  EXPECT_EQ(entries(D), 1u); // no temp file left
  fs::remove_all(D);
}

TEST(SafeWrite, RefusesSymlinksSpecialFilesAndHardLinks) {
  fs::path D = scratch("refuse");
  put(D / "victim", "precious");
  fs::create_symlink(D / "victim", D / "link");
  ::mkfifo((D / "fifo").c_str(), 0600);
  put(D / "a", "x");
  fs::create_hard_link(D / "a", D / "b");
  std::string Err;
  EXPECT_FALSE(writeFileAtomically((D / "link").string(), "evil", Err));
  EXPECT_NE(Err.find("symlink"), std::string::npos) << Err;
  EXPECT_TRUE(fs::is_symlink(D / "link"));
  EXPECT_EQ(get(D / "victim"), "precious");
  EXPECT_FALSE(writeFileAtomically((D / "fifo").string(), "x", Err));
  EXPECT_NE(Err.find("FIFO"), std::string::npos) << Err;
  EXPECT_TRUE(fs::is_fifo(D / "fifo"));
  EXPECT_FALSE(writeFileAtomically((D / "a").string(), "y", Err));
  EXPECT_NE(Err.find("hard links"), std::string::npos) << Err;
  EXPECT_FALSE(writeFileAtomically("/dev/null", "y", Err));
  EXPECT_NE(Err.find("character device"), std::string::npos) << Err;
  EXPECT_EQ(entries(D), 5u);
  fs::remove_all(D);
}

TEST(SafeWrite, ReadRegularFileNeverBlocksOnAFifo) {
  fs::path D = scratch("read");
  ::mkfifo((D / "fifo").c_str(), 0600);
  std::string Out, Err;
  EXPECT_FALSE(readRegularFile((D / "fifo").string(), Out, Err));
  EXPECT_NE(Err.find("FIFO"), std::string::npos) << Err;
  EXPECT_FALSE(readRegularFile("/dev/zero", Out, Err));
  EXPECT_FALSE(readRegularFile(D.string(), Out, Err));
  put(D / "big", std::string(2048, 'x'));
  EXPECT_FALSE(readRegularFile((D / "big").string(), Out, Err, 1024));
  EXPECT_TRUE(readRegularFile((D / "big").string(), Out, Err, 4096));
  EXPECT_EQ(Out.size(), 2048u);
  EXPECT_EQ(specialKind((D / "fifo").string()), "a FIFO");
  EXPECT_EQ(specialKind((D / "big").string()), "");
  fs::remove_all(D);
}

Finding widen(const std::string &File, unsigned Offset) {
  Finding F;
  F.Code = "KV001";
  F.Range.Begin = {File, 1, Offset + 1, Offset};
  FixIt X;
  X.Begin = F.Range.Begin;
  X.Text = "(long)";
  F.Fixes.push_back(X);
  return F;
}

// readFd reads to the end through a pipe's short reads, and says a stream
// longer than its cap is too big with EFBIG (readRegularFile's "larger than"
// when a file grows while it is read).
TEST(SafeWrite, ReadFdStopsPastItsCap) {
  int P[2];
  ASSERT_EQ(::pipe(P), 0);
  ASSERT_TRUE(writeFd(P[1], std::string("0123456789")));
  ::close(P[1]);
  std::string Out;
  errno = 0;
  EXPECT_FALSE(readFd(P[0], Out, 4));
  EXPECT_EQ(errno, EFBIG);
  ::close(P[0]);
  ASSERT_EQ(::pipe(P), 0);
  ASSERT_TRUE(writeFd(P[1], std::string("0123456789")));
  ::close(P[1]);
  EXPECT_TRUE(readFd(P[0], Out, 10));
  EXPECT_EQ(Out, "0123456789");
  ::close(P[0]);
}

TEST(Fixes, OneRealFileIsFixedOnceWhateverItsNames) {
  fs::path D = scratch("names");
  std::string Text = "x = a * b;\n";
  put(D / "k.cu", Text);
  fs::create_symlink("k.cu", D / "alias.cu");
  std::string A = (D / "k.cu").string(), B = (D / "." / "k.cu").string(),
              L = (D / "alias.cu").string();
  std::map<std::string, std::string> H = {
      {A, contentHash(Text)}, {B, contentHash(Text)}, {L, contentHash(Text)}};
  std::ostringstream Err;
  FixOutcome O =
      applyAllFixes({widen(A, 4), widen(B, 4), widen(L, 4)}, H, false, {D.string()}, Err);
  EXPECT_EQ(O.Failures, 0u) << Err.str();
  EXPECT_EQ(O.FindingsFixed, 3u);
  EXPECT_EQ(get(D / "k.cu"), "x = (long)a * b;\n"); // once, not three times
  EXPECT_TRUE(fs::is_symlink(D / "alias.cu"));       // fixed at its target
  fs::remove_all(D);
}

TEST(Fixes, WritesOnlyBelowTheScannedRoots) {
  fs::path D = scratch("roots"), Out = scratch("roots-out");
  std::string Text = "x = a * b;\n";
  put(Out / "v.cu", Text);
  fs::create_symlink(Out / "v.cu", D / "ext.cu");
  std::string L = (D / "ext.cu").string();
  std::ostringstream Err;
  // The named file stands for its directory, not for its link's target.
  for (const std::string &Root : {D.string(), L}) {
    FixOutcome O = applyAllFixes({widen(L, 4)}, {{L, contentHash(Text)}}, false, {Root}, Err);
    EXPECT_EQ(O.Failures, 1u);
    EXPECT_EQ(O.FindingsFixed, 0u);
    EXPECT_EQ(get(Out / "v.cu"), Text);
  }
  EXPECT_NE(Err.str().find("outside the scanned tree"), std::string::npos) << Err.str();
  FixOutcome O = applyAllFixes({widen(L, 4)}, {{L, contentHash(Text)}}, false,
                               {Out.string()}, Err);
  EXPECT_EQ(O.FindingsFixed, 1u) << Err.str();
  fs::remove_all(D);
  fs::remove_all(Out);
}

TEST(Fixes, RefusesAFileThatChangedSinceItWasAnalysed) {
  fs::path D = scratch("changed");
  std::string P = (D / "k.cu").string();
  put(P, "y = a * b;\n"); // not the bytes that were analysed
  std::ostringstream Err;
  FixOutcome O = applyAllFixes({widen(P, 4)}, {{P, contentHash("x = a * b;\n")}}, false,
                                {D.string()}, Err);
  EXPECT_EQ(O.Failures, 1u);
  EXPECT_EQ(O.FindingsFixed, 0u);
  EXPECT_NE(Err.str().find("changed since it was analysed"), std::string::npos) << Err.str();
  EXPECT_EQ(get(P), "y = a * b;\n");
  fs::remove_all(D);
}

TEST(Fixes, UnsafeEditsNeedUnsafeFixes) {
  fs::path D = scratch("unsafe");
  std::string P = (D / "k.cu").string(), Text = "x = a * b;\n";
  put(P, Text);
  Finding F = widen(P, 4);
  F.Fixes[0].Safe = false;
  std::ostringstream Err;
  FixOutcome O = applyAllFixes({F}, {{P, contentHash(Text)}}, false, {D.string()}, Err);
  EXPECT_EQ(O.UnsafeSkipped, 1u);
  EXPECT_EQ(O.FindingsFixed, 0u);
  EXPECT_EQ(get(P), Text);
  O = applyAllFixes({F}, {{P, contentHash(Text)}}, true, {D.string()}, Err);
  EXPECT_EQ(O.FindingsFixed, 1u);
  EXPECT_EQ(get(P), "x = (long)a * b;\n");
  fs::remove_all(D);
}

TEST(Wire, RoundTripsEveryField) {
  FileResult R;
  Finding F = widen("a.cu", 7);
  F.Check = "kvlint-narrowed-index-overflow";
  F.Range.End = {"a.cu", 2, 3, 9};
  F.Range.InMacro = true;
  F.Message = "m\n\xff";
  F.Fixes[0].Length = 3;
  F.Fixes[0].Safe = false;
  F.Notes.push_back({F.Range, "note"});
  F.Function = "k";
  F.Group = "bos";
  F.Latent = true;
  R.Findings = {F, F};
  R.Notes.push_back({"a.cu", "n", true});
  R.Loud.push_back({"b.cu", "l", false});
  R.DumpText = "dump";
  R.Hashes["a.cu"] = "abc";
  R.Functions = 5;
  R.Analysed = R.Partial = true;
  std::string Bytes = encodeResult(R);
  FileResult S;
  ASSERT_TRUE(decodeResult(Bytes, S));
  EXPECT_EQ(encodeResult(S), Bytes);
  ASSERT_EQ(S.Findings.size(), 2u);
  const Finding &G = S.Findings[1];
  EXPECT_EQ(G.Message, F.Message);
  EXPECT_EQ(G.Range.End.Offset, 9u);
  EXPECT_TRUE(G.Range.InMacro);
  EXPECT_FALSE(G.Fixes[0].Safe);
  EXPECT_EQ(G.Fixes[0].Length, 3u);
  EXPECT_EQ(G.Notes[0].Message, "note");
  EXPECT_EQ(G.Group, "bos");
  EXPECT_TRUE(G.Latent);
  EXPECT_TRUE(S.Partial);
  EXPECT_EQ(S.Hashes["a.cu"], "abc");
  // A worker that died mid-message: never a half result.
  for (size_t Cut : {size_t(0), size_t(3), Bytes.size() / 2, Bytes.size() - 1})
    EXPECT_FALSE(decodeResult(Bytes.substr(0, Cut), S)) << Cut;
}

} // namespace
