//===- Outputs.cpp - after the scan: baseline, --diff, reports -------------===//
#include "Outputs.h"

#include <algorithm>
#include "FixDiff.h"
#include "Fixes.h"
#include "RuleDocs.h"
#include "Selection.h"
#if __has_include("SafeWrite.h")
#include "SafeWrite.h" // writeFileAtomically, once it moves out of Baseline.h
#endif

#include "kvlint/Report.h"
#include "kvlint/Rule.h"
#include "kvlint/Suppress.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace kvlint {

bool loadBaselineFor(const CliOptions &C, ConfigResolver &Resolver, BaselineState &B) {
  B = BaselineState();
  if (!C.WriteBaseline.empty()) {
    if (C.PruneBaseline) {
      std::cerr << "kvlint: error: --prune-baseline rewrites the baseline in use; "
                   "--write-baseline records a new one: give one of them\n";
      return false;
    }
    return true;
  }
  B.Path = C.Baseline;
  if (B.Path.empty() && !C.Inputs.empty()) {
    std::string Err;
    fs::path First = fs::absolute(C.Inputs.front());
    auto Cfg = Resolver.forDir(
        fs::is_directory(First) ? First.string() : First.parent_path().string(), Err);
    if (Cfg)
      B.Path = Cfg->Baseline;
  }
  if (B.Path.empty()) {
    if (C.PruneBaseline) {
      std::cerr << "kvlint: error: --prune-baseline needs a baseline (--baseline FILE or "
                   "'Baseline:' in .kvlint.yaml)\n";
      return false;
    }
    return true;
  }
  std::string Err;
  if (!readBaseline(B.Path, B.Known, Err)) {
    std::cerr << "kvlint: error: " << Err << "\n";
    return false;
  }
  B.Active = true;
  if (B.Known.Version == 1)
    std::cerr << "kvlint: note: " << B.Path
              << " is a v1 baseline (fingerprints with an occurrence index, which a new site "
                 "above old ones shifts); matched as v1. --prune-baseline rewrites it as v2\n";
  return true;
}

/// A report or baseline never replaces a file the scan analysed
/// (`--output json=k.cu k.cu`): says so and answers true.
bool scannedSource(const ScanOutcome &S, const std::string &Out, const std::string &What) {
  if (!S.Scanned.count(canonicalPath(Out)))
    return false;
  std::cerr << "kvlint: error: refusing to write " << What << " over '" << Out
            << "', a file this scan analyses\n";
  return true;
}

std::string sourceRoot(const CliOptions &C, const BaselineState &B) {
  if (!C.Inputs.empty()) {
    std::string Top = gitTopLevel(C.Inputs.front());
    if (!Top.empty())
      return Top;
  }
  if (!B.Path.empty())
    return baselineRoot(B.Path);
  std::error_code EC;
  return fs::current_path(EC).string();
}

namespace {

/// The findings the baseline accounts for are removed from S.All; the
/// summary goes to stderr; --prune-baseline rewrites the file.
bool applyBaseline(const CliOptions &C, ScanOutcome &S, const BaselineState &B,
                   const ChangedLines &Changed, SourceCache &Src, unsigned &Hidden,
                   std::ostream &Said) {
  auto Key = [&](const std::string &F) { return baselineFileKey(B.Path, F); };
  std::vector<std::string> FPs = B.Known.Version == 1 ? legacyFingerprints(S.All, Src, Key)
                                                      : fingerprints(S.All, Src, Key);
  std::vector<std::string> Sites = siteHashes(S.All, Src);
  std::vector<BaselineSite> In;
  for (size_t I = 0; I < S.All.size(); ++I) {
    const SrcRange &R = S.All[I].Range;
    BaselineSite X;
    X.Fingerprint = FPs[I];
    X.Site = Sites[I];
    X.Line = R.Begin.Line;
    X.Changed = !C.Diff.empty() &&
                Changed.touches(R.Begin.File, R.Begin.Line, R.End.valid() ? R.End.Line : R.Begin.Line);
    In.push_back(X);
  }
  BaselineMatch M = matchBaseline(B.Known, In);
  // Gone: entries no finding matched, of files this run analysed (an entry
  // of a file --diff or --shard left out is not known to be gone).
  std::set<std::string> Analysed;
  for (const std::string &F : S.Files)
    Analysed.insert(Key(F));
  for (const Finding &F : S.All)
    Analysed.insert(Key(F.Range.Begin.File));
  unsigned Gone = 0, Unchecked = 0;
  for (size_t E = 0; E < B.Known.Entries.size(); ++E)
    if (!M.EntryUsed[E])
      (Analysed.count(B.Known.Entries[E].File) ? Gone : Unchecked)++;
  Said << "kvlint: baseline " << B.Path << ": " << M.Matched << " matched (not shown), "
            << M.New << " new, " << Gone << " gone"
            << (Gone && !C.PruneBaseline ? " (--prune-baseline drops them)" : "") << "\n";

  if (C.PruneBaseline) {
    std::vector<Finding> Kept;
    std::vector<std::string> KeptFPs, KeptSites;
    std::vector<std::string> NewFPs =
        B.Known.Version == 1 ? fingerprints(S.All, Src, Key) : FPs;
    for (size_t I = 0; I < S.All.size(); ++I)
      if (M.Known[I]) {
        Kept.push_back(S.All[I]);
        KeptFPs.push_back(NewFPs[I]);
        KeptSites.push_back(Sites[I]);
      }
    std::string Text = formatBaseline(Kept, KeptFPs, KeptSites, Key);
    unsigned Lost = 0;
    for (size_t E = 0; E < B.Known.Entries.size(); ++E)
      if (!M.EntryUsed[E] && !Analysed.count(B.Known.Entries[E].File)) {
        if (B.Known.Version == 1)
          ++Lost; // a v1 line cannot be carried into a v2 file
        else
          Text += B.Known.Entries[E].Raw + "\n";
      }
    std::string Err;
    if (!writeFileAtomically(B.Path, Text, Err)) {
      std::cerr << "kvlint: error: " << Err << "\n";
      return false;
    }
    Said << "kvlint: pruned baseline " << B.Path << ": " << Gone << " gone entr"
              << (Gone == 1 ? "y" : "ies") << " dropped, " << Kept.size() + (Unchecked - Lost)
              << " kept\n";
    if (Lost)
      Said << "kvlint: warning: " << Lost
                << " v1 entr" << (Lost == 1 ? "y" : "ies")
                << " of files this run did not analyse dropped: re-record with --write-baseline "
                   "on the whole tree\n";
  }

  std::vector<Finding> Rest;
  for (size_t I = 0; I < S.All.size(); ++I) {
    if (M.Known[I])
      ++Hidden;
    else
      Rest.push_back(std::move(S.All[I]));
  }
  S.All.swap(Rest);
  return true;
}

/// Suppression comments, read once per file: the warnings about names no
/// rule has, and with --report-unused-suppressions the filtering itself
/// (deferred until here so that every use is seen) and the unused ones.
unsigned checkSuppressions(const CliOptions &C, ScanOutcome &S, SourceCache &Src,
                           const std::string &Root, std::ostream &Unused, std::ostream &Said) {
  std::map<std::string, std::unique_ptr<SuppressionMap>> Maps;
  auto MapOf = [&](const std::string &File) -> SuppressionMap * {
    auto &M = Maps[File];
    if (!M) {
      const std::string *T = Src.get(File);
      if (!T)
        return nullptr;
      M = std::make_unique<SuppressionMap>(*T);
    }
    return M.get();
  };
  if (deferSuppressions()) {
    std::vector<Finding> Kept;
    for (Finding &F : S.All) {
      SuppressionMap *M = MapOf(F.Range.Begin.File);
      if (!M || !M->suppresses(F))
        Kept.push_back(std::move(F));
    }
    S.All.swap(Kept);
  }
  std::set<std::string> Files(S.Files.begin(), S.Files.end());
  for (const auto &[F, M] : Maps)
    Files.insert(F);
  unsigned Count = 0;
  for (const std::string &F : Files) {
    SuppressionMap *M = MapOf(F);
    if (!M)
      continue;
    for (const SuppressionProblem &P : M->Problems)
      Said << "kvlint: warning: " << F << ":" << P.Line << ":" << P.Col << ": " << P.Message
           << "\n";
    if (!C.ReportUnusedSuppressions)
      continue;
    for (const Suppression &X : M->All)
      if (X.NamesKvlint && !X.Used) {
        Unused << (C.Format == "text" ? F : rootRelative(Root, F)) << ":" << X.Line << ":"
               << X.Col << ": warning: unused suppression '" << X.Text
               << "': it suppresses no finding [kvlint-unused-suppression]\n";
        ++Count;
      }
  }
  return Count;
}

} // namespace

int reportScan(const CliOptions &C, ScanOutcome &S, const BaselineState &B,
               const ChangedLines &Changed) {
  SourceCache Src;
  std::vector<Finding> &All = S.All;
  RunSummary &Sum = S.Sum;
  if (!S.ReportOnly.empty()) {
    std::map<std::string, bool> Mine;
    std::vector<Finding> Kept;
    for (Finding &F : All) {
      auto It = Mine.find(F.Range.Begin.File);
      if (It == Mine.end())
        It = Mine.emplace(F.Range.Begin.File,
                          S.ReportOnly.count(canonicalPath(F.Range.Begin.File)) != 0).first;
      if (It->second)
        Kept.push_back(std::move(F));
    }
    All.swap(Kept);
  }
  // Suppressions first: a baseline records only what no comment hides.
  std::string Root = sourceRoot(C, B);
  std::ostringstream Unused, SuppressSaid;
  unsigned UnusedCount = checkSuppressions(C, S, Src, Root, Unused, SuppressSaid);

  if (!C.WriteBaseline.empty()) {
    const std::string &Out = C.WriteBaseline;
    if (scannedSource(S, Out, "the baseline"))
      return 2;
    auto Key = [&](const std::string &F) { return baselineFileKey(Out, F); };
    auto FPs = fingerprints(All, Src, Key);
    auto Sites = siteHashes(All, Src);
    std::string Err;
    if (!writeFileAtomically(Out, formatBaseline(All, FPs, Sites, Key), Err)) {
      std::cerr << "kvlint: error: " << Err << "\n";
      return 2;
    }
    std::cerr << "kvlint: wrote " << All.size() << " finding(s) to baseline " << Out << "\n";
    All.clear();
  }

  // Only new findings (not in the baseline) on changed lines (--diff).
  unsigned InBaseline = 0;
  std::ostringstream BaselineSaid; // said after the findings, with the other summaries
  if (B.Active && !applyBaseline(C, S, B, Changed, Src, InBaseline, BaselineSaid))
    return 2;
  if (!C.Diff.empty()) {
    std::vector<Finding> Kept;
    for (Finding &F : All) {
      const SrcRange &R = F.Range;
      if (Changed.touches(R.Begin.File, R.Begin.Line, R.End.valid() ? R.End.Line : R.Begin.Line))
        Kept.push_back(std::move(F));
    }
    All.swap(Kept);
  }
  std::vector<std::string> SarifFPs =
      fingerprints(All, Src, [&](const std::string &F) { return rootRelative(Root, F); });
  // One finding per root cause, after the baseline and --diff: a site that
  // is new joins no group of known ones.
  if (!C.PerSite)
    Sum.Folded = groupSites(All, &SarifFPs);

  if (C.WriteBaseline.empty()) {
    auto Render = [&](const std::string &Format, std::ostream &OS) {
      if (Format == "json") {
        JsonExtras X;
        X.Fingerprints = &SarifFPs;
        X.Baselined = InBaseline;
        renderJson(All, S.Notes, Sum, OS, X);
      } else if (Format == "sarif") {
        SarifOptions O;
        O.SrcRoot = Root;
        O.Version = kvlintVersion();
        O.HelpBase = kvlintDocsUrl() + "rules/";
        O.InformationUri = kvlintHomepage();
        O.RuleDoc = ruleDoc;
        O.NotesPerFile = C.Verbose ? 0 : 3;
        O.Fingerprints = &SarifFPs;
        renderSarif(All, S.Notes, Src, OS, O);
      } else if (Format == "github") {
        renderGithub(All, Root, OS);
      } else {
        renderText(All, Src, OS);
      }
    };
    // --output FORMAT=FILE: each written whole, atomically, before stdout;
    // not when nothing could be analysed (exit 2 below), so that CI never
    // uploads an empty report.
    bool NothingAnalysed = Sum.FilesAnalysed == 0 && (!S.Files.empty() || !S.Notes.empty());
    for (const auto &[Format, File] : NothingAnalysed ? decltype(C.Outputs)() : C.Outputs) {
      if (scannedSource(S, File, "the " + Format + " report"))
        return 2;
      std::ostringstream OS;
      Render(Format, OS);
      std::string Err;
      if (!writeFileAtomically(File, OS.str(), Err)) {
        std::cerr << "kvlint: error: " << Err << "\n";
        return 2;
      }
    }
    if (C.FixDiff) {
      unsigned Files = 0, Edits = 0;
      std::cout << fixesAsDiff(All, [&](const std::string &F) { return rootRelative(Root, F); },
                               Files, Edits);
      std::cerr << "kvlint: --fix-diff: " << Edits << " edit(s) in " << Files
                << " file(s), not written\n";
    } else if (C.Statistics && C.Format == "text") {
      renderStatistics(All, std::cout);
    } else {
      Render(C.Format, std::cout);
    }
    if (C.Statistics && C.Format != "text")
      renderStatistics(All, std::cerr);
    // Unused suppressions (as ruff's RUF100): findings of their own in the
    // text output, on stderr with another format.
    (C.Format == "text" && !C.FixDiff && !C.Statistics ? std::cout : std::cerr) << Unused.str();
    std::cout.flush();
  }

  // Errors always reach stderr; notes only with -v, plus a one-line summary.
  unsigned Quiet = 0;
  for (const FileNote &N : S.Notes) {
    if (N.Error || C.Verbose)
      std::cerr << "kvlint: " << (N.Error ? "error: " : "note: ") << textEscape(N.File) << ": "
                << textEscape(N.Message) << "\n";
    else
      ++Quiet;
  }
  if (!C.Verbose)
    for (const FileNote &N : S.Loud)
      std::cerr << "kvlint: note: " << textEscape(N.File) << ": " << textEscape(N.Message) << "\n";
  if (Quiet && C.Format == "text")
    std::cerr << "kvlint: " << Quiet << " note(s) about missing headers or recovered parse "
              << "errors; run with -v to see them\n";
  if (S.WholeTree || Sum.FilesFailed || Sum.FilesPartial) {
    std::cerr << "kvlint: " << Sum.FilesAnalysed << " file(s) analysed";
    if (Sum.FilesPartial || S.Cached)
      std::cerr << " ("
                << (Sum.FilesPartial ? std::to_string(Sum.FilesPartial) + " partly" : "")
                << (Sum.FilesPartial && S.Cached ? ", " : "")
                << (S.Cached ? std::to_string(S.Cached) + " from the cache" : "") << ")";
    std::cerr << ", " << S.Skipped + S.Walk.GeneratedFiles + S.Walk.TestFiles + S.Walk.SpecialFiles
              << " skipped, " << Sum.FilesFailed << " failed\n";
    if (S.Walk.SpecialFiles)
      std::cerr << "kvlint: " << S.Walk.SpecialFiles
                << " special file(s) named like sources (FIFO, device, socket, dangling link) "
                   "not opened (-v names them)\n";
    if (S.Walk.UnreadableDirs)
      std::cerr << "kvlint: " << S.Walk.UnreadableDirs
                << " director(ies) could not be read and were not scanned (-v names them)\n";
    if (S.Walk.GeneratedFiles)
      std::cerr << "kvlint: " << S.Walk.GeneratedFiles
                << " generated file(s) skipped (--include-generated scans them)\n";
    if (S.Walk.TestFiles)
      std::cerr << "kvlint: " << S.Walk.TestFiles
                << " file(s) in test or benchmark directories skipped (--include-tests scans "
                   "them)\n";
  }
  (void)InBaseline;
  if (S.Unreached)
    std::cerr << "kvlint: " << S.Unreached << " finding(s) in kernels no root of the project "
              << "reaches not shown (--level latent shows them, with the reason)\n";
  std::cerr << SuppressSaid.str() << BaselineSaid.str();
  if (size_t Named = std::count_if(All.begin(), All.end(),
                                   [](const Finding &F) { return F.NameOnly && !F.Latent; }))
    std::cerr << "kvlint: " << Named << " of " << All.size()
              << " finding(s) rest on names and envelope defaults alone: no launch fact, guard "
                 "or type bounds their product (`on_names` in JSON)\n";
  if (Sum.Folded && C.Format == "text")
    std::cerr << "kvlint: " << All.size() << " finding(s) at " << All.size() + Sum.Folded
              << " site(s): the sites of one value to widen are one finding (--per-site "
                 "lists each)\n";

  bool Broken = false;
  if (C.WriteBaseline.empty() && !std::cout) {
    // A report nobody received is no clean run (>/dev/full, a closed pipe).
    std::cerr << "kvlint: error: cannot write the report to standard output\n";
    Broken = true;
  }
  size_t Remaining = All.size();
  if (C.Fix && !C.FixDiff && !All.empty()) {
    FixOutcome Fx = applyAllFixes(All, S.Hashes, C.UnsafeFixes, C.Inputs, std::cerr);
    Broken |= Fx.Failures != 0;
    Remaining = All.size() - Fx.FindingsFixed;
    if (Remaining && !Broken)
      std::cerr << "kvlint: " << Remaining
                << " finding(s) remain (no fix-it, or an unsafe one to review)\n";
  }
  if (Broken)
    return 2;
  // Nothing analysed although there was input (or a bad path), or nothing to
  // analyse at all: an error, not a clean gate. With --diff, a change that
  // touches no source is clean; so is an empty shard of a CI matrix.
  if (Sum.FilesAnalysed == 0 && (!S.Files.empty() || !S.Notes.empty()))
    return 2;
  if (S.Files.empty() && C.Diff.empty() && C.WriteBaseline.empty() &&
      !(C.ShardN > 1 && S.FoundAnywhere > 0)) {
    std::cerr << "kvlint: error: nothing to analyse: no source file "
              << (S.FoundAnywhere == 0 && C.Excludes.empty() ? "was found"
                                                             : "is left after the excludes")
              << "\n";
    return 2;
  }
  if (C.FailOnError && Sum.FilesFailed)
    return 2;
  return Remaining == 0 && !UnusedCount ? 0 : 1;
}

} // namespace kvlint
