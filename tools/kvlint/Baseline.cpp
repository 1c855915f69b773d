//===- Baseline.cpp - findings known when the baseline was written --------===//
#include "Baseline.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kvlint {

static const char *Header = "# kvlint baseline v1";

bool parseBaseline(const std::string &Text, const std::string &Path, Baseline &Out,
                   std::string &Err) {
  Out = Baseline();
  std::istringstream In(Text);
  std::string Line;
  unsigned N = 0;
  bool SawHeader = false;
  while (std::getline(In, Line)) {
    ++N;
    if (!Line.empty() && Line.back() == '\r')
      Line.pop_back();
    auto Fail = [&](const std::string &Msg) {
      Err = Path + ":" + std::to_string(N) + ": " + Msg;
      return false;
    };
    if (!SawHeader) {
      if (Line != Header)
        return Fail(std::string("not a kvlint baseline (the first line must be '") + Header +
                    "')");
      SawHeader = true;
      continue;
    }
    if (Line.find_first_not_of(" \t") == std::string::npos || Line[0] == '#')
      continue;
    bool Hex = Line.size() >= 16;
    for (size_t I = 0; Hex && I < 16; ++I)
      Hex = std::isxdigit((unsigned char)Line[I]) && !std::isupper((unsigned char)Line[I]);
    if (!Hex || (Line.size() > 16 && Line[16] != ' '))
      return Fail("expected '<16 hex digits> <code> <file>:<line> <function>'");
    Out.Fingerprints.insert(Line.substr(0, 16));
  }
  if (!SawHeader) {
    Err = Path + ":1: empty file; a baseline starts with '" + std::string(Header) + "'";
    return false;
  }
  return true;
}

bool readBaseline(const std::string &Path, Baseline &Out, std::string &Err) {
  std::string Text, Why;
  if (!readRegularFile(Path, Text, Why)) { // never a FIFO, a device or /dev/zero
    Err = "cannot read baseline: " + Why;
    return false;
  }
  return parseBaseline(Text, Path, Out, Err);
}

std::string baselineFileKey(const std::string &BaselinePath, const std::string &File) {
  std::error_code EC;
  fs::path Dir = fs::weakly_canonical(fs::absolute(BaselinePath, EC).parent_path(), EC);
  fs::path F = fs::weakly_canonical(fs::absolute(File, EC), EC);
  fs::path Rel = F.lexically_relative(Dir);
  return (Rel.empty() ? F : Rel).generic_string();
}

std::string formatBaseline(const std::vector<Finding> &Fs, const std::vector<std::string> &FPs,
                           const std::function<std::string(const std::string &)> &FileKey) {
  std::ostringstream OS;
  OS << Header << "\n"
     << "# Findings known when this file was written; kvlint --baseline reports only others.\n"
     << "# Only the first column counts (see docs/cli.md#baselines).\n";
  for (size_t I = 0; I < Fs.size() && I < FPs.size(); ++I) {
    std::string Fn = Fs[I].Function;
    for (char &C : Fn)
      if (C == '\n' || C == '\r')
        C = ' ';
    const std::string &File = Fs[I].Range.Begin.File;
    OS << FPs[I] << " " << Fs[I].Code << " " << (FileKey ? FileKey(File) : File) << ":"
       << Fs[I].Range.Begin.Line << " " << Fn << "\n";
  }
  return OS.str();
}

} // namespace kvlint
