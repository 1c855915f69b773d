//===- Baseline.cpp - findings known when the baseline was written --------===//
#include "Baseline.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kvlint {

static const char *HeaderV1 = "# kvlint baseline v1";
static const char *HeaderV2 = "# kvlint baseline v2";

static bool isHex16(const std::string &S, size_t At) {
  if (S.size() < At + 16)
    return false;
  for (size_t I = At; I < At + 16; ++I)
    if (!std::isxdigit((unsigned char)S[I]) || std::isupper((unsigned char)S[I]))
      return false;
  return S.size() == At + 16 || S[At + 16] == ' ';
}

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
      if (Line == HeaderV1)
        Out.Version = 1;
      else if (Line == HeaderV2)
        Out.Version = 2;
      else if (Line.rfind("# kvlint baseline v", 0) == 0)
        return Fail("a baseline of format '" + Line.substr(18) +
                    "', newer than this kvlint reads (v1, v2); upgrade kvlint");
      else
        return Fail(std::string("not a kvlint baseline (the first line must be '") + HeaderV2 +
                    "')");
      SawHeader = true;
      continue;
    }
    if (Line.find_first_not_of(" \t") == std::string::npos || Line[0] == '#')
      continue;
    BaselineEntry E;
    size_t Rest = 17;
    if (Out.Version == 1) {
      if (!isHex16(Line, 0))
        return Fail("expected '<16 hex digits> <code> <file>:<line> <function>'");
    } else {
      if (!isHex16(Line, 0) || !isHex16(Line, 17))
        return Fail("expected '<16 hex digits> <16 hex digits> <code> <file>:<line> <function>'");
      E.Site = Line.substr(17, 16);
      Rest = 34;
    }
    E.Fingerprint = Line.substr(0, 16);
    E.Raw = Line;
    // "<code> <file>:<line> <function>", for people; read leniently.
    if (Rest < Line.size()) {
      std::istringstream Cols(Line.substr(Rest));
      std::string Code, Where;
      Cols >> Code >> Where;
      size_t Colon = Where.rfind(':');
      if (Colon != std::string::npos) {
        E.File = Where.substr(0, Colon);
        std::string Num = Where.substr(Colon + 1);
        if (!Num.empty() && Num.size() < 10 &&
            std::all_of(Num.begin(), Num.end(), [](char C) { return std::isdigit((unsigned char)C); }))
          E.Line = unsigned(std::stoul(Num));
      }
    }
    Out.Entries.push_back(std::move(E));
  }
  if (!SawHeader) {
    Err = Path + ":1: empty file; a baseline starts with '" + std::string(HeaderV2) + "'";
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

std::string gitTopLevel(const std::string &Path) {
  std::error_code EC;
  fs::path P = fs::weakly_canonical(fs::absolute(Path, EC), EC);
  if (!fs::is_directory(P, EC))
    P = P.parent_path();
  for (; !P.empty(); P = P.parent_path()) {
    if (fs::exists(P / ".git", EC))
      return P.string();
    if (P == P.root_path())
      break;
  }
  return "";
}

std::string baselineRoot(const std::string &BaselinePath) {
  std::error_code EC;
  fs::path Dir = fs::weakly_canonical(fs::absolute(BaselinePath, EC).parent_path(), EC);
  std::string Top = gitTopLevel(Dir.string());
  return Top.empty() ? Dir.string() : Top;
}

std::string baselineFileKey(const std::string &BaselinePath, const std::string &File) {
  return rootRelative(baselineRoot(BaselinePath), File);
}

BaselineMatch matchBaseline(const Baseline &B, const std::vector<BaselineSite> &Sites) {
  BaselineMatch M;
  M.Known.assign(Sites.size(), false);
  M.EntryUsed.assign(B.Entries.size(), false);
  std::map<std::string, std::vector<size_t>> SitesOf, EntriesOf;
  for (size_t I = 0; I < Sites.size(); ++I)
    SitesOf[Sites[I].Fingerprint].push_back(I);
  for (size_t I = 0; I < B.Entries.size(); ++I)
    EntriesOf[B.Entries[I].Fingerprint].push_back(I);
  for (auto &[FP, Ss] : SitesOf) {
    auto It = EntriesOf.find(FP);
    if (It == EntriesOf.end())
      continue;
    const std::vector<size_t> &Es = It->second;
    // Every (site, entry) pair, best first: a site on an unchanged line,
    // then the site hash (both halves, the line's half), then the nearest
    // recorded line, then order.
    using Pair = std::tuple<int, int, unsigned, size_t, size_t>;
    std::vector<Pair> Pairs;
    for (size_t S : Ss)
      for (size_t E : Es) {
        const BaselineSite &St = Sites[S];
        const BaselineEntry &En = B.Entries[E];
        int Q = 0;
        if (!En.Site.empty() && St.Site.size() == 16) {
          if (En.Site == St.Site)
            Q = 2;
          else if (En.Site.compare(0, 8, St.Site, 0, 8) == 0)
            Q = 1;
        }
        unsigned Dist = En.Line > St.Line ? En.Line - St.Line : St.Line - En.Line;
        Pairs.emplace_back(St.Changed ? 1 : 0, -Q, Dist, S, E);
      }
    std::sort(Pairs.begin(), Pairs.end());
    for (const Pair &P : Pairs) {
      size_t S = std::get<3>(P), E = std::get<4>(P);
      if (M.Known[S] || M.EntryUsed[E])
        continue;
      M.Known[S] = true;
      M.EntryUsed[E] = true;
    }
  }
  for (bool K : M.Known)
    (K ? M.Matched : M.New)++;
  return M;
}

std::string formatBaseline(const std::vector<Finding> &Fs, const std::vector<std::string> &FPs,
                           const std::vector<std::string> &Sites,
                           const std::function<std::string(const std::string &)> &FileKey) {
  std::ostringstream OS;
  OS << HeaderV2 << "\n"
     << "# Findings known when this file was written; kvlint --baseline reports only others.\n"
     << "# Columns: fingerprint (v3), site, then code, file:line and function for people\n"
     << "# (see docs/cli.md#baselines). One line per site: equal lines count.\n";
  for (size_t I = 0; I < Fs.size() && I < FPs.size() && I < Sites.size(); ++I) {
    std::string Fn = Fs[I].Function;
    for (char &C : Fn)
      if (C == '\n' || C == '\r')
        C = ' ';
    const std::string &File = Fs[I].Range.Begin.File;
    OS << FPs[I] << " " << Sites[I] << " " << Fs[I].Code << " "
       << (FileKey ? FileKey(File) : File) << ":" << Fs[I].Range.Begin.Line << " " << Fn << "\n";
  }
  return OS.str();
}

} // namespace kvlint
