//===- Driver.cpp - the kvlint command line ---------------------------------===//
//
// Runs a scan: flags (Args), files (FileWalk), compile databases (CompileDb),
// per-file analysis on a pool of threads (Analyse), reporting, and --fix
// (Fixes). It never executes anything from the scanned tree and writes only
// with --fix.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Analyse.h"
#include "Args.h"
#include "CompileDb.h"
#include "FileWalk.h"
#include "Fixes.h"

#include "kvlint/Report.h"
#include "kvlint/Rule.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
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

} // namespace

int runDriver(const std::vector<std::string> &Args) {
  CliOptions C;
  int Early = parseArgs(Args, C, std::cout, std::cerr);
  if (Early >= 0)
    return Early;
  auto Rules = makeRules(C.Checks, C.Opts);
  if (C.ListRules) {
    listRules(std::cout);
    return 0;
  }
  if (C.Inputs.empty()) {
    std::cerr << "kvlint: error: no input files or directories (see --help)\n";
    return 2;
  }
  if (Rules.empty()) {
    std::cerr << "kvlint: error: --checks selects no rule (see --list-rules)\n";
    return 2;
  }

  std::vector<std::string> Files;
  std::vector<FileNote> Notes;
  for (const std::string &In : C.Inputs)
    collect(In, C.Excludes, Files, Notes);
  keepShard(Files, C.ShardI, C.ShardN);

  DbFlags Db;
  if (!loadDatabases(C, Db, Notes))
    return 2;

  AnalyseInput AI;
  AI.Opts = &C.Opts;
  AI.Rules = &Rules;
  AI.Db = &Db;
  AI.Extra = C.Extra;
  AI.DumpIR = C.DumpIR;

  unsigned Jobs = C.Jobs ? C.Jobs : std::max(1u, std::thread::hardware_concurrency());
  Jobs = std::min<unsigned>(Jobs, std::max<size_t>(1, Files.size()));
  std::vector<FileResult> Results(Files.size());
  std::atomic<size_t> Next{0};
  auto Worker = [&] {
    for (size_t I; (I = Next++) < Files.size();) {
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
  RunSummary Sum;
  for (size_t I = 0; I < Files.size(); ++I) {
    FileResult &R = Results[I];
    All.insert(All.end(), R.Findings.begin(), R.Findings.end());
    Notes.insert(Notes.end(), R.Notes.begin(), R.Notes.end());
    Sum.FilesAnalysed += R.Analysed;
    Sum.FilesFailed += R.Failed;
    Sum.Functions += R.Functions;
    if (C.DumpIR)
      std::cout << R.DumpText;
  }
  dedupeAndSort(All);

  SourceCache Src;
  if (C.Format == "json")
    renderJson(All, Notes, Sum, std::cout);
  else if (C.Format == "sarif")
    renderSarif(All, Notes, Src, std::cout);
  else
    renderText(All, Src, std::cout);
  std::cout.flush();

  // Errors always reach stderr; notes only with -v, plus a one-line summary.
  unsigned Quiet = 0;
  for (const FileNote &N : Notes) {
    if (N.Error || C.Verbose)
      std::cerr << "kvlint: " << (N.Error ? "error: " : "note: ") << N.File << ": " << N.Message
                << "\n";
    else
      ++Quiet;
  }
  if (Quiet && C.Format == "text")
    std::cerr << "kvlint: " << Quiet << " note(s) about missing headers or recovered parse "
              << "errors; run with -v to see them\n";

  if (C.Fix && !All.empty() && applyAllFixes(All, std::cerr))
    return 2;
  // Nothing analysed although there was input (or a bad path): an error.
  if (Sum.FilesAnalysed == 0 && (!Files.empty() || !Notes.empty()))
    return 2;
  return All.empty() ? 0 : 1;
}

} // namespace kvlint
