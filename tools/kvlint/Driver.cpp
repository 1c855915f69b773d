//===- Driver.cpp - the kvlint command line ---------------------------------===//
//
// Runs a scan: flags (Args), files (FileWalk), each file's configuration
// (Config), compile databases (CompileDb), changed lines (Diff), per-file
// analysis on a pool of threads (Analyse), the baseline (Baseline),
// reporting, and --fix (Fixes). It never executes anything from the scanned tree and writes only
// with --fix.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Analyse.h"
#include "Args.h"
#include "Baseline.h"
#include "CompileDb.h"
#include "Config.h"
#include "Diff.h"
#include "FileWalk.h"
#include "Fixes.h"
#include "kvlint/Frontend.h"

#include "kvlint/Report.h"
#include "kvlint/Rule.h"
#include "project/Build.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace kvlint {
namespace {

void listRules(std::ostream &OS) {
  for (const RuleInfo &I : ruleRegistry()) {
    auto R = I.Make();
    OS << R->code() << "  " << R->check() << "  " << R->summary() << "\n";
    for (const OptionSpec &O : R->options())
      OS << "    " << R->check() << "." << O.Name << " (default: '" << O.Default << "') "
         << O.Help << "\n";
  }
  OS << "shared by every rule (set globally, or per rule as <check>.<Option>):\n";
  for (const OptionSpec &O : Rule::sharedOptions())
    OS << "    " << O.Name << " (default: '" << O.Default << "') " << O.Help << "\n";
}

/// Loads -p DIR, or the databases found in each scanned directory and its
/// build/. Returns false (after reporting) when -p's database does not load.
bool loadDatabases(const CliOptions &C, DbFlags &Db, std::vector<FileNote> &Notes) {
  std::vector<std::string> Dirs;
  if (!C.DbDir.empty()) {
    Dirs.push_back(C.DbDir);
  } else {
    for (const std::string &In : C.Inputs)
      if (fs::is_directory(In))
        for (const std::string &D : {In, In + "/build"})
          if (fs::exists(D + "/compile_commands.json"))
            Dirs.push_back(D);
  }
  for (const std::string &D : Dirs) {
    std::string Err;
    if (!loadDb(D, Db, Err)) {
      if (!C.DbDir.empty()) {
        std::cerr << "kvlint: error: cannot load compile database from '" << D << "': " << Err
                  << "\n";
        return false;
      }
      Notes.push_back({D, "compile_commands.json ignored: " + Err, false});
    }
  }
  return true;
}

using RuleSet = std::vector<std::unique_ptr<Rule>>;

/// The lines changed per --diff: git in each input's repository, or stdin.
bool loadDiff(const CliOptions &C, ChangedLines &Out) {
  std::string Err;
  if (C.Diff == "-") {
    std::ostringstream SS;
    SS << std::cin.rdbuf();
    if (parseUnifiedDiff(SS.str(), normalPath("."), Out, Err))
      return true;
  } else {
    std::set<std::string> Dirs;
    for (const std::string &In : C.Inputs) {
      std::error_code EC;
      fs::path P = fs::absolute(In, EC);
      Dirs.insert((fs::is_directory(P, EC) ? P : P.parent_path()).string());
    }
    bool Ok = true;
    for (const std::string &D : Dirs)
      Ok = Ok && gitDiff(D, C.Diff, Out, Err);
    if (Ok)
      return true;
  }
  std::cerr << "kvlint: error: " << Err << "\n";
  return false;
}

#ifdef KVLINT_HAVE_TRITON
/// Reads every Python file of Files into Tree (the dtypes each name of a
/// tensor is made as), in parallel, and resolves it.
void buildTreeDtypes(const std::vector<std::string> &Files, unsigned Jobs, TreeDtypes &Tree) {
  std::vector<const std::string *> Py;
  for (const std::string &F : Files)
    if (F.size() > 3 && endsWith(F, ".py"))
      Py.push_back(&F);
  if (!Jobs)
    Jobs = std::max(1u, std::thread::hardware_concurrency());
  Jobs = std::min<unsigned>(Jobs, std::max<size_t>(1, Py.size()));
  std::vector<TreeDtypes> Parts(Jobs);
  std::atomic<size_t> Next{0};
  auto Worker = [&](unsigned J) {
    for (size_t I; (I = Next++) < Py.size();) {
      std::ifstream In(*Py[I], std::ios::binary);
      if (!In)
        continue;
      std::ostringstream SS;
      SS << In.rdbuf();
      Parts[J].addFile(SS.str());
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned J = 1; J < Jobs; ++J)
    Pool.emplace_back(Worker, J);
  Worker(0);
  for (auto &T : Pool)
    T.join();
  for (const TreeDtypes &P : Parts)
    Tree.merge(P);
  Tree.finish();
}
#endif

} // namespace

int runDriver(const std::vector<std::string> &Args) {
  CliOptions C;
  int Early = parseArgs(Args, C, std::cout, std::cerr);
  if (Early >= 0)
    return Early;
  if (C.ListRules) {
    listRules(std::cout);
    return 0;
  }
  if (C.Inputs.empty()) {
    std::cerr << "kvlint: error: no input files or directories (see --help)\n";
    return 2;
  }
  {
    // The command line alone (--checks, --config) must select some rule;
    // a configuration file may switch rules off for its directory.
    EffectiveConfig Cli;
    bool ChecksGiven = false;
    for (const ConfigFile &F : C.Overrides) {
      Cli.apply(F);
      ChecksGiven |= bool(F.Checks);
    }
    if (ChecksGiven && makeRules(Cli.Checks, Cli.Opts).empty()) {
      std::cerr << "kvlint: error: --checks selects no rule (see --list-rules)\n";
      return 2;
    }
  }

  std::vector<std::string> Found;
  std::vector<FileNote> Notes;
  WalkSkips Walk;
  Walk.Generated = !C.IncludeGenerated;
  Walk.Tests = !C.IncludeTests;
  for (const std::string &In : C.Inputs)
    collect(In, C.Excludes, Found, Notes, Walk);
  // The table dtypes the scan's Python files allocate, read from every file
  // found (before sharding, so that each shard sees the same facts).
  TreeDtypes Tree;
#ifdef KVLINT_HAVE_TRITON
  buildTreeDtypes(Found, C.Jobs, Tree);
#endif
  // The project model: every Python file of the project (not only the
  // scanned ones), linked, with what its roots reach (checker/project/).
  project::ProjectModel Project;
#ifdef KVLINT_HAVE_TRITON
  bool AnyPy = std::any_of(Found.begin(), Found.end(),
                           [](const std::string &F) { return endsWith(F, ".py"); });
  if (std::string Root = AnyPy ? project::projectRoot(C.ProjectRoot, C.Inputs) : "";
      !Root.empty()) {
    project::buildProject({Root, C.IncludeTests || project::inputsInTests(Root, C.Inputs)},
                          C.Jobs, summarisePython, Project);
    project::ProjectModel::Stats S = Project.stats();
    if (C.Verbose)
      Notes.push_back({Root, "project model: " + std::to_string(S.Files) + " Python file(s), " +
                               std::to_string(S.KernelsReached) + " of " +
                               std::to_string(S.Kernels) + " kernel(s) reached (" +
                               std::to_string(S.KernelsOnlyTests) + " only from tests)",
                     false});
  }
#endif
  keepShard(Found, C.ShardI, C.ShardN);
  bool WholeTree = !C.Diff.empty();
  for (const std::string &In : C.Inputs)
    WholeTree |= fs::is_directory(In);

  // Each file's configuration: the nearest .clang-tidy, .kvlint.yaml files,
  // then the command line. Equal configurations share one rule set.
  ConfigResolver Resolver(C.Overrides);
  std::map<std::string, std::shared_ptr<const RuleSet>> RuleSets;
  std::vector<std::string> Files;
  std::vector<std::shared_ptr<const EffectiveConfig>> Configs;
  std::vector<const RuleSet *> FileRules;
  std::set<const EffectiveConfig *> Described;
  unsigned Skipped = 0;
  ChangedLines Changed;
  if (!C.Diff.empty() && !loadDiff(C, Changed))
    return 2;
  for (const std::string &F : Found) {
    std::string Err;
    auto Cfg = Resolver.forFile(F, Err);
    if (!Cfg) {
      std::cerr << "kvlint: error: " << Err << "\n";
      return 2;
    }
    if (excluded(F, Cfg->Exclude) || (!C.Diff.empty() && !Changed.hasFile(F))) {
      ++Skipped;
      continue;
    }
    std::shared_ptr<const RuleSet> &Set = RuleSets[Cfg->key()];
    if (!Set)
      Set = std::make_shared<const RuleSet>(makeRules(Cfg->Checks, Cfg->Opts));
    if (C.Verbose && !Cfg->Sources.empty() && Described.insert(Cfg.get()).second) {
      std::string From;
      for (const std::string &S : Cfg->Sources)
        From += (From.empty() ? "" : ", ") + S;
      Notes.push_back({F, "configuration from " + From, false});
    }
    Files.push_back(F);
    Configs.push_back(Cfg);
    FileRules.push_back(Set.get());
  }

  // The baseline: --baseline, else the Baseline key of the first input's
  // .kvlint.yaml. Read before the scan so a bad file costs nothing.
  std::string BaselinePath = C.Baseline;
  if (BaselinePath.empty() && C.WriteBaseline.empty()) {
    std::string Err;
    fs::path First = fs::absolute(C.Inputs.front());
    auto Cfg = Resolver.forDir(fs::is_directory(First) ? First.string()
                                                       : First.parent_path().string(),
                               Err);
    if (Cfg)
      BaselinePath = Cfg->Baseline;
  }
  Baseline Known;
  if (!BaselinePath.empty() && C.WriteBaseline.empty()) {
    std::string Err;
    if (!readBaseline(BaselinePath, Known, Err)) {
      std::cerr << "kvlint: error: " << Err << "\n";
      return 2;
    }
  }

  DbFlags Db;
  if (!loadDatabases(C, Db, Notes))
    return 2;

  std::set<std::string> Scanned; // canonical paths: headers a file's kernels reach
  for (const std::string &F : Files) {
    std::error_code EC;
    std::string P = fs::weakly_canonical(F, EC).string();
    Scanned.insert(EC ? F : P);
  }

  unsigned Jobs = C.Jobs ? C.Jobs : std::max(1u, std::thread::hardware_concurrency());
  Jobs = std::min<unsigned>(Jobs, std::max<size_t>(1, Files.size()));
  std::vector<FileResult> Results(Files.size());
  std::atomic<size_t> Next{0};
  auto Worker = [&] {
    for (size_t I; (I = Next++) < Files.size();) {
      AnalyseInput AI;
      AI.Opts = &Configs[I]->Opts;
      AI.Rules = FileRules[I];
      AI.Db = &Db;
      AI.Extra = &C.Extra;
      AI.Tree = &Tree;
      AI.Project = Project.empty() ? nullptr : &Project;
      AI.Scanned = &Scanned;
      AI.DumpIR = C.DumpIR;
      try {
        Results[I] = analyseFile(Files[I], AI);
      } catch (const std::exception &E) {
        Results[I].Notes.push_back({Files[I], std::string("internal error: ") + E.what(), true});
        Results[I].Failed = true;
      }
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned J = 1; J < Jobs; ++J)
    Pool.emplace_back(Worker);
  Worker();
  for (auto &T : Pool)
    T.join();

  std::vector<Finding> All;
  std::vector<FileNote> Loud;
  unsigned Unreached = 0;
  RunSummary Sum;
  for (size_t I = 0; I < Files.size(); ++I) {
    FileResult &R = Results[I];
    All.insert(All.end(), R.Findings.begin(), R.Findings.end());
    Notes.insert(Notes.end(), R.Notes.begin(), R.Notes.end());
    Loud.insert(Loud.end(), R.Loud.begin(), R.Loud.end());
    Sum.FilesAnalysed += R.Analysed;
    Sum.FilesFailed += R.Failed;
    Sum.Functions += R.Functions;
    Skipped += R.Skipped;
    Unreached += R.Unreached;
    if (C.DumpIR)
      std::cout << R.DumpText;
  }
  dedupeAndSort(All);

  SourceCache Src;
  if (!C.WriteBaseline.empty()) {
    const std::string &Out = C.WriteBaseline;
    auto Key = [&](const std::string &F) { return baselineFileKey(Out, F); };
    auto FPs = fingerprints(All, Src, Key);
    std::string Err;
    if (!writeFileAtomically(Out, formatBaseline(All, FPs, Key), Err)) {
      std::cerr << "kvlint: error: " << Err << "\n";
      return 2;
    }
    std::cerr << "kvlint: wrote " << All.size() << " finding(s) to baseline " << Out << "\n";
    All.clear();
  }

  // Only new findings (not in the baseline) on changed lines (--diff).
  std::vector<std::string> SarifFPs = fingerprints(All, Src);
  unsigned InBaseline = 0;
  {
    std::vector<std::string> BaseFPs;
    if (!Known.Fingerprints.empty())
      BaseFPs = fingerprints(All, Src, [&](const std::string &F) {
        return baselineFileKey(BaselinePath, F);
      });
    std::vector<Finding> Kept;
    std::vector<std::string> KeptFPs;
    for (size_t I = 0; I < All.size(); ++I) {
      if (!BaseFPs.empty() && Known.Fingerprints.count(BaseFPs[I])) {
        ++InBaseline;
        continue;
      }
      const SrcRange &R = All[I].Range;
      if (!C.Diff.empty() &&
          !Changed.touches(R.Begin.File, R.Begin.Line, R.End.valid() ? R.End.Line : R.Begin.Line))
        continue;
      Kept.push_back(std::move(All[I]));
      KeptFPs.push_back(SarifFPs[I]);
    }
    All.swap(Kept);
    SarifFPs.swap(KeptFPs);
  }
  // One finding per root cause, after the baseline and --diff: a site that
  // is new joins no group of known ones.
  if (!C.PerSite)
    Sum.Folded = groupSites(All, &SarifFPs);

  if (C.WriteBaseline.empty()) {
    if (C.Format == "json")
      renderJson(All, Notes, Sum, std::cout);
    else if (C.Format == "sarif")
      renderSarif(All, Notes, Src, std::cout, &SarifFPs);
    else
      renderText(All, Src, std::cout);
    std::cout.flush();
  }

  // Errors always reach stderr; notes only with -v, plus a one-line summary.
  unsigned Quiet = 0;
  for (const FileNote &N : Notes) {
    if (N.Error || C.Verbose)
      std::cerr << "kvlint: " << (N.Error ? "error: " : "note: ") << N.File << ": " << N.Message
                << "\n";
    else
      ++Quiet;
  }
  if (!C.Verbose)
    for (const FileNote &N : Loud)
      std::cerr << "kvlint: note: " << N.File << ": " << N.Message << "\n";
  if (Quiet && C.Format == "text")
    std::cerr << "kvlint: " << Quiet << " note(s) about missing headers or recovered parse "
              << "errors; run with -v to see them\n";
  if (WholeTree) {
    std::cerr << "kvlint: " << Sum.FilesAnalysed << " file(s) analysed, "
              << Skipped + Walk.GeneratedFiles + Walk.TestFiles << " skipped, " << Sum.FilesFailed
              << " failed\n";
    if (Walk.GeneratedFiles)
      std::cerr << "kvlint: " << Walk.GeneratedFiles
                << " generated file(s) skipped (--include-generated scans them)\n";
    if (Walk.TestFiles)
      std::cerr << "kvlint: " << Walk.TestFiles
                << " file(s) in test or benchmark directories skipped (--include-tests scans "
                   "them)\n";
  }
  if (Unreached)
    std::cerr << "kvlint: " << Unreached << " finding(s) in kernels no root of the project "
              << "reaches not shown (--level latent shows them, with the reason)\n";
  if (InBaseline)
    std::cerr << "kvlint: " << InBaseline << " finding(s) in the baseline not shown\n";
  if (Sum.Folded && C.Format == "text")
    std::cerr << "kvlint: " << All.size() << " finding(s) at " << All.size() + Sum.Folded
              << " site(s): the sites of one value to widen are one finding (--per-site "
                 "lists each)\n";

  if (C.Fix && !All.empty() && applyAllFixes(All, std::cerr))
    return 2;
  // Nothing analysed although there was input (or a bad path): an error.
  if (Sum.FilesAnalysed == 0 && (!Files.empty() || !Notes.empty()))
    return 2;
  return All.empty() ? 0 : 1;
}

} // namespace kvlint
