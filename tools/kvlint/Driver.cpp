//===- Driver.cpp - the kvlint command line ---------------------------------===//
//
// Runs a scan: flags (Args), files (FileWalk), each file's configuration
// (Config), changed lines (Diff), which files to analyse and report
// (Selection: --diff's includers, --shard's plan), compile databases
// (CompileDb), per-file analysis on a pool of threads (Analyse), then the
// baseline, the reports and --fix (Outputs). It never executes anything from
// the scanned tree, and writes only the baseline, --output files and --fix.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Analyse.h"
#include "Args.h"
#include "Baseline.h"
#include "Cache.h"
#include "CompileDb.h"
#include "Config.h"
#include "Diff.h"
#include "FileWalk.h"
#include "Fixes.h"
#include "SafeWrite.h"
#include "Worker.h"
#include "Outputs.h"
#include "Selection.h"
#include "ShowConfig.h"
#include "kvlint/Frontend.h"

#include "kvlint/Report.h"
#include "kvlint/Rule.h"
#include "kvlint/Suppress.h"
#include "project/Build.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
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
      if (std::error_code EC; fs::is_directory(In, EC))
        for (const std::string &D : {In, In + "/build"}) {
          std::error_code EC;
          if (fs::exists(fs::symlink_status(D + "/compile_commands.json", EC)))
            Dirs.push_back(D);
        }
  }
  for (const std::string &D : Dirs) {
    std::string Err;
    std::vector<std::string> DbNotes;
    bool Loaded = loadDb(D, Db, Err, &DbNotes);
    for (const std::string &N : DbNotes)
      Notes.push_back({D + "/compile_commands.json", N, false});
    if (!Loaded) {
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
/// tensor is made as), in parallel, and resolves it. Each file is read into
/// a part of its own and the parts are merged in the files' order, so that
/// Tree is the same whichever thread read which file (the first pad a name
/// is seen with is kept: its note, and the cache's key, must not depend on
/// the schedule).
void buildTreeDtypes(const std::vector<std::string> &Files, unsigned Jobs, TreeDtypes &Tree) {
  std::vector<const std::string *> Py;
  for (const std::string &F : Files)
    if (F.size() > 3 && endsWith(F, ".py"))
      Py.push_back(&F);
  if (!Jobs)
    Jobs = std::max(1u, std::thread::hardware_concurrency());
  Jobs = std::min<unsigned>(Jobs, std::max<size_t>(1, Py.size()));
  std::vector<TreeDtypes> Parts(Py.size());
  std::atomic<size_t> Next{0};
  auto Worker = [&](unsigned) {
    for (size_t I; (I = Next++) < Py.size();) {
      std::string Text, Err;
      if (readRegularFile(*Py[I], Text, Err, size_t(64) << 20))
        Parts[I].addFile(Text);
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

/// Keeps the first name of each real file (device and inode).
void dedupeByIdentity(std::vector<std::string> &Files, std::vector<FileNote> &Notes) {
  std::set<std::pair<dev_t, ino_t>> Seen;
  std::map<std::pair<dev_t, ino_t>, std::string> First;
  std::vector<std::string> Kept;
  for (std::string &F : Files) {
    struct stat St;
    if (::stat(F.c_str(), &St) != 0) {
      Kept.push_back(std::move(F));
      continue;
    }
    auto Id = std::make_pair(St.st_dev, St.st_ino);
    auto [It, New] = First.emplace(Id, F);
    if (New)
      Kept.push_back(std::move(F));
    else
      Notes.push_back({F, "the same file as '" + It->second + "': analysed once", false});
  }
  Files.swap(Kept);
}

/// The cache folder a scan uses, or "" for none (docs/cli.md, "Cache"):
/// --no-cache, then --cache-dir, KVLINT_NO_CACHE, KVLINT_CACHE_DIR, then
/// .kvlint_cache at the project root when a directory is scanned (or
/// --project-root is given). A scan of files alone writes nothing.
std::string cacheFolder(const CliOptions &C) {
  if (C.NoCache)
    return "";
  if (!C.CacheDir.empty())
    return C.CacheDir;
  if (const char *No = std::getenv("KVLINT_NO_CACHE"); No && *No && std::string(No) != "0")
    return "";
  if (const char *D = std::getenv("KVLINT_CACHE_DIR"); D && *D)
    return D;
  bool AnyDir = !C.ProjectRoot.empty();
  for (const std::string &In : C.Inputs) {
    std::error_code EC;
    AnyDir |= fs::is_directory(In, EC);
  }
  std::string Root = AnyDir ? project::projectRoot(C.ProjectRoot, C.Inputs) : "";
  return Root.empty() ? "" : Root + "/.kvlint_cache";
}

/// --clean-cache: the folder a scan of the same inputs would use (the
/// current directory's project when none is given).
int cleanCacheFor(CliOptions C) {
  std::string Dir = C.CacheDir;
  if (const char *D = std::getenv("KVLINT_CACHE_DIR"); Dir.empty() && D && *D)
    Dir = D;
  if (Dir.empty()) {
    if (C.Inputs.empty())
      C.Inputs.push_back(".");
    std::string Root = project::projectRoot(C.ProjectRoot, C.Inputs);
    if (Root.empty()) {
      std::cerr << "kvlint: error: --clean-cache: no project (give a directory or --cache-dir)\n";
      return 2;
    }
    Dir = Root + "/.kvlint_cache";
  }
  return cleanCache(Dir, std::cout, std::cerr);
}

/// KVLINT_TIMING=1: each phase's wall time on stderr.
class PhaseTimer {
public:
  PhaseTimer() : On(std::getenv("KVLINT_TIMING") != nullptr), Last(Clock::now()) {}
  void operator()(const char *Phase) {
    auto T = Clock::now();
    if (On)
      std::cerr << "kvlint: timing: " << Phase << " "
                << std::chrono::duration<double>(T - Last).count() << " s\n";
    Last = T;
  }

private:
  using Clock = std::chrono::steady_clock;
  bool On;
  Clock::time_point Last;
};

/// The key of one file's cached result (Cache.h): everything the per-file
/// analysis reads besides the files its parse opens, which the entry lists
/// and checks one by one.
std::string resultKey(const std::string &F, const std::string &Hash, const EffectiveConfig &Cfg,
                      const CliOptions &C, const DbFlags &Db, const std::string &Facts,
                      const std::string &TreeDigest) {
  std::string K = "kvlint-result-1\npath " + F + "\n";
  if (!fs::path(F).is_absolute()) { // findings name the file as it was spelled
    std::error_code EC;
    K += "cwd " + fs::current_path(EC).string() + "\n";
  }
  K += "content " + Hash + "\nconfig " + Cfg.key() + "\ndb";
  if (const std::vector<std::string> *Flags = Db.find(F))
    for (const std::string &A : *Flags)
      K += " " + std::to_string(A.size()) + ":" + A;
  K += "\nextra";
  for (const std::string &A : C.Extra)
    K += " " + std::to_string(A.size()) + ":" + A;
  // The clang driver reads include directories from the environment too.
  for (const char *V : {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"})
    if (const char *E = std::getenv(V))
      K += std::string("\nenv ") + V + "=" + E;
  K += "\ndump-ir " + std::to_string(C.DumpIR) + "\ndefer-suppressions " +
       std::to_string(deferSuppressions()) + "\nfacts " + Facts + "\n";
  if (endsWith(F, ".py"))
    K += "tree " + TreeDigest + "\n";
  return fastHash(K);
}

int run(const std::vector<std::string> &Args);

} // namespace

int runDriver(const std::vector<std::string> &Args) {
  // A path the file system rejects (too long, a symlink loop, no permission)
  // is a clear error, never an abort.
  try {
    return run(Args);
  } catch (const fs::filesystem_error &E) {
    std::cerr << "kvlint: error: " << E.what() << "\n";
  } catch (const std::exception &E) {
    std::cerr << "kvlint: error: internal error: " << E.what() << "\n";
  }
  return 2;
}

namespace {

int run(const std::vector<std::string> &Args) {
  if (!Args.empty() && Args[0] == "rule") // kvlint rule KV001
    return showRule({Args.begin() + 1, Args.end()}, std::cout, std::cerr);
  CliOptions C;
  int Early = -1;
  if (Args.size() >= 2 && Args[0] == "cache" && Args[1] == "clean") { // kvlint cache clean [DIR]
    std::vector<std::string> Rest(Args.begin() + 2, Args.end());
    Rest.insert(Rest.begin(), "--clean-cache");
    Early = parseArgs(Rest, C, std::cout, std::cerr);
  } else {
    Early = parseArgs(Args, C, std::cout, std::cerr);
  }
  if (Early >= 0)
    return Early;
  if (C.CleanCache)
    return cleanCacheFor(C);
  if (C.ListRules) {
    listRules(std::cout);
    return 0;
  }
  if (!C.ShowConfig.empty())
    return showConfig(C.ShowConfig, C.Overrides, std::cout, std::cerr);
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

  // --report-unused-suppressions: suppressed findings come back from the
  // per-file analysis and are filtered after it (Outputs.cpp), which sees
  // every use.
  setDeferSuppressions(C.ReportUnusedSuppressions);

  PhaseTimer Timer;
  // The cache (Cache.h): opened before anything is read from it; a folder
  // that cannot be used costs one note, never the scan.
  ScanCache Cache;
  bool CacheNoted = false;
  if (std::string Dir = cacheFolder(C); !Dir.empty()) {
    std::string Why;
    if (!Cache.open(Dir, Why)) {
      std::cerr << "kvlint: note: cache off: " << Why << "\n";
      CacheNoted = true;
    }
  }
  Timer("cache open");

  std::vector<std::string> Found;
  std::vector<FileNote> Notes;
  WalkSkips Walk;
  Walk.Generated = !C.IncludeGenerated;
  Walk.Tests = !C.IncludeTests;
  for (const std::string &In : C.Inputs)
    collect(In, C.Excludes, Found, Notes, Walk);
  // One real file is analysed (and fixed) once, however many names reach it:
  // `r.cu ./r.cu`, a directory and a path inside it, a symlink beside it.
  dedupeByIdentity(Found, Notes);
  Timer("walk");
  // With the cache, each file's bytes are hashed once, here: the keys of
  // its result, and of the scan-wide facts below.
  std::map<std::string, std::string> FoundHash;
  if (Cache.enabled()) {
    std::vector<std::string> H = hashFiles(Found, C.Jobs);
    for (size_t I = 0; I < Found.size(); ++I)
      FoundHash[Found[I]] = H[I];
  }
  Timer("hash");
  // The table dtypes the scan's Python files allocate, read from every file
  // found (before sharding, so that each shard sees the same facts). With
  // the cache they are read only when a Python file's result must be
  // computed, or their digest (a key of every Python result) is not known
  // for these files' bytes.
  TreeDtypes Tree;
  std::string TreeDigest;
  bool TreeBuilt = false;
  auto EnsureTree = [&] {
    if (TreeBuilt)
      return;
    TreeBuilt = true;
#ifdef KVLINT_HAVE_TRITON
    buildTreeDtypes(Found, C.Jobs, Tree);
    TreeDigest = fastHash(Tree.digest());
#endif
  };
  std::string TreeInputs;
  if (Cache.enabled()) {
    std::string In = buildId() + "\n";
    for (const std::string &F : Found)
      if (F.size() > 3 && endsWith(F, ".py"))
        In += FoundHash[F] + "\n";
    TreeInputs = fastHash(In);
    std::vector<std::string> M;
    if (Cache.loadMeta("\1tree", M) && M.size() == 2 && M[0] == TreeInputs)
      TreeDigest = M[1];
  }
  if (TreeDigest.empty())
    EnsureTree();
  Timer("tree dtypes");
  const size_t FoundInAllShards = Found.size();
  // The project model: every Python file of the project (not only the
  // scanned ones), linked, with what its roots reach (checker/project/).
  // With the cache it is built only when a result must be computed, or a
  // scanned file's facts digest is not known for the project's bytes.
  project::ProjectModel Project;
  bool ModelBuilt = false;
  std::string ProjectInputs;
  std::map<std::string, std::string> KnownFacts; ///< canonical path -> factsDigest
  std::string Root;
  project::ProjectConfig PC;
#ifdef KVLINT_HAVE_TRITON
  bool AnyPy = std::any_of(Found.begin(), Found.end(),
                           [](const std::string &F) { return endsWith(F, ".py"); });
  Root = AnyPy ? project::projectRoot(C.ProjectRoot, C.Inputs) : "";
  PC.Root = Root;
  PC.IncludeTests = !Root.empty() && (C.IncludeTests || project::inputsInTests(Root, C.Inputs));
#endif
  auto EnsureModel = [&] {
    if (ModelBuilt)
      return;
    ModelBuilt = true;
    if (Root.empty())
      return;
#ifdef KVLINT_HAVE_TRITON
    project::SummaryStore Store;
    Store.Hash = [](const std::string &Src) { return fastHash(Src); };
    Store.Load = [&](const std::string &P, const std::string &K, project::FileSummary &S) {
      return Cache.loadSummary(P, K, S);
    };
    Store.Store = [&](const std::string &P, const std::string &K, const project::FileSummary &S) {
      Cache.storeSummary(P, K, S);
    };
    project::buildProject(PC, C.Jobs, summarisePython, Project,
                          Cache.enabled() ? &Store : nullptr);
    project::ProjectModel::Stats S = Project.stats();
    if (C.Verbose)
      Notes.push_back({Root, "project model: " + std::to_string(S.Files) + " Python file(s), " +
                               std::to_string(S.KernelsReached) + " of " +
                               std::to_string(S.Kernels) + " kernel(s) reached (" +
                               std::to_string(S.KernelsOnlyTests) + " only from tests)",
                     false});
#endif
  };
  if (Cache.enabled() && !C.Verbose) {
    // The digest of everything the model is built from: its configuration
    // and every Python file of the project with its bytes.
    std::string In = buildId() + "\nroot " + Root + "\ntests " + std::to_string(PC.IncludeTests) +
                     "\napi " + std::to_string(PC.PublicModulesAreApi) + "\n";
    if (!Root.empty()) {
      std::vector<std::string> Py = project::pythonFiles(Root);
      std::vector<std::string> H = hashFiles(Py, C.Jobs);
      for (size_t I = 0; I < Py.size(); ++I)
        In += Py[I] + "\n" + H[I] + "\n";
    }
    ProjectInputs = fastHash(In);
    std::vector<std::string> M;
    if (Cache.loadMeta("\1facts", M) && M.size() % 2 == 1 && M[0] == ProjectInputs)
      for (size_t I = 1; I + 1 < M.size(); I += 2)
        KnownFacts[M[I]] = M[I + 1];
  } else {
    EnsureModel();
  }
  Timer("project model");
  bool WholeTree = !C.Diff.empty();
  for (const std::string &In : C.Inputs) {
    std::error_code EC;
    WholeTree |= fs::is_directory(In, EC);
  }

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
  for (const std::string &N : Changed.Notes)
    std::cerr << "kvlint: note: --diff: " << N << "\n";
  std::vector<std::string> Eligible;
  std::vector<std::shared_ptr<const EffectiveConfig>> EligibleCfgs;
  for (const std::string &F : Found) {
    std::string Err;
    auto Cfg = Resolver.forFile(F, Err);
    if (!Cfg) {
      std::cerr << "kvlint: error: " << Err << "\n";
      return 2;
    }
    if (excluded(F, Cfg->Exclude)) {
      ++Skipped;
      continue;
    }
    Eligible.push_back(F);
    EligibleCfgs.push_back(Cfg);
  }
  // --diff: the changed files and the files that include a changed one,
  // looked for in the whole repository (a pre-commit hook passes only the
  // changed header; its includer is elsewhere); --shard: this shard's files
  // and their includers (IncludeScan.h).
  const size_t ScannedCount = Eligible.size();
  if (!C.Diff.empty() && !Changed.Root.empty()) {
    std::set<std::string> Have;
    for (const std::string &F : Eligible)
      Have.insert(canonicalPath(F));
    std::vector<std::string> More;
    std::vector<FileNote> Quiet; // the repository's own skips are not this scan's
    WalkSkips W;
    W.Generated = Walk.Generated;
    W.Tests = Walk.Tests;
    collect(Changed.Root, C.Excludes, More, Quiet, W);
    for (const std::string &F : More) {
      std::string Err; // a config elsewhere that does not read: not this scan's to report
      if (!Have.insert(canonicalPath(F)).second)
        continue;
      auto Cfg = Resolver.forFile(F, Err);
      if (!Cfg || excluded(F, Cfg->Exclude))
        continue;
      Eligible.push_back(F);
      EligibleCfgs.push_back(Cfg);
    }
  }
  FileSelection Sel = selectFiles(C, Eligible, ScannedCount, Changed, Notes);
  Skipped += Sel.Unselected;
  if (Sel.Untracked)
    std::cerr << "kvlint: note: --diff: " << Sel.Untracked
              << " untracked file(s) taken as new, whole (git diff does not list them)\n";
  for (size_t I : Sel.Analyse) {
    const std::string &F = Eligible[I];
    const auto &Cfg = EligibleCfgs[I];
    std::shared_ptr<const RuleSet> &Set = RuleSets[Cfg->key()];
    if (!Set)
      Set = std::make_shared<const RuleSet>(makeRules(Cfg->Checks, Cfg->Opts));
    if (Set->empty()) { // a Checks: "-*" above the tree must not turn the gate off
      std::string From;
      for (const std::string &S : Cfg->ChecksFrom)
        From += (From.empty() ? "" : ", ") + S;
      std::cerr << "kvlint: error: no rule is enabled for " << F << " (Checks from " << From
                << "; see --list-rules)\n";
      return 2;
    }
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

  // The baseline, read before the scan so a bad file costs nothing.
  BaselineState Known;
  if (!loadBaselineFor(C, Resolver, Known))
    return 2;

  DbFlags Db;
  if (!loadDatabases(C, Db, Notes))
    return 2;

  // Canonical paths: headers a file's kernels reach are reported when they
  // are part of the scan (every shard's files, not only this one's).
  const std::set<std::string> &Scanned = Sel.Scanned;

  Timer("project model, configuration");
  // Files whose result the cache holds, for the same inputs, are not
  // analysed again; the others are, and their results are kept.
  std::vector<FileResult> Results(Files.size());
  std::vector<size_t> Miss;
  std::vector<std::string> Keys(Files.size()), Shas(Files.size());
  std::vector<char> Hit(Files.size());
  unsigned Cached = 0;
  // A file's facts digest: known for these project bytes, else from the
  // model (built now). Kept for the next scan.
  std::vector<std::pair<std::string, std::string>> FactsOut;
  auto FactsOf = [&](const std::string &F) {
    std::string P = project::canonicalPath(F);
    auto It = KnownFacts.find(P);
    std::string D;
    if (It != KnownFacts.end()) {
      D = It->second;
    } else {
      EnsureModel();
      D = Project.factsDigest(P);
    }
    FactsOut.push_back({P, D});
    return D;
  };
  for (size_t I = 0; I < Files.size(); ++I) {
    if (!Cache.enabled())
      break;
    auto H = FoundHash.find(Files[I]);
    std::string Hash = H != FoundHash.end() ? H->second : hashFiles({Files[I]}, 1)[0];
    if (Hash.empty())
      continue; // unreadable: analysed (it fails) and never kept
    Keys[I] = resultKey(Files[I], Hash, *Configs[I], C, Db, FactsOf(Files[I]), TreeDigest);
    if (Cache.loadResult(Files[I], Keys[I], Scanned, Results[I])) {
      ++Cached;
      Hit[I] = 1;
      Keys[I].clear();
      continue;
    }
    // The bytes the key was made from, as the worker's FileResult::Hashes
    // will give them (checked before the result is kept).
    std::string Src, Err;
    if (readRegularFile(Files[I], Src, Err, size_t(64) << 20) && fastHash(Src) == Hash)
      Shas[I] = contentHash(Src);
    else
      Keys[I].clear();
  }
  for (size_t I = 0; I < Files.size(); ++I)
    if (!Hit[I])
      Miss.push_back(I);
  if (!Miss.empty()) {
    EnsureTree();
    EnsureModel();
  }
  if (Cache.enabled()) {
    std::vector<std::string> M = {TreeInputs, TreeDigest};
    Cache.storeMeta("\1tree", M);
    if (!ProjectInputs.empty()) {
      M = {ProjectInputs};
      for (const auto &[P, D] : FactsOut)
        KnownFacts[P] = D;
      for (const auto &[P, D] : KnownFacts)
        M.push_back(P), M.push_back(D);
      Cache.storeMeta("\1facts", M);
    }
  }
  Timer("cache lookup");
  std::vector<FileResult> Fresh(Miss.size());
  PoolLimits Limits;
  // At most one worker per hardware thread: the analysis is CPU-bound, and
  // -j 100000 must not start 100000 processes.
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  Limits.Jobs = C.Jobs ? std::min(C.Jobs, Cores) : Cores;
  Limits.TimeoutSeconds = C.FileTimeout;
  Limits.MemoryMiB = C.FileMemory;
  Limits.Isolate = !C.NoIsolation;
  if (!Miss.empty())
    runPool(
      Fresh,
      [&](size_t J) {
        size_t I = Miss[J];
        AnalyseInput AI;
        AI.Opts = &Configs[I]->Opts;
        AI.Rules = FileRules[I];
        AI.Db = &Db;
        AI.Extra = &C.Extra;
        AI.Tree = &Tree;
        AI.Project = Project.empty() ? nullptr : &Project;
        AI.Scanned = &Scanned;
        AI.DumpIR = C.DumpIR;
        return analyseFile(Files[I], AI);
      },
      [&](size_t J) { return Files[Miss[J]]; }, Limits);
  Timer("analysis");
  for (size_t J = 0; J < Miss.size(); ++J) {
    size_t I = Miss[J];
    // Kept only when whole and computed from the bytes the key was: not a
    // worker that failed or timed out, not a file edited meanwhile.
    auto H = Fresh[J].Hashes.find(Files[I]);
    if (!Keys[I].empty() && !Fresh[J].Failed && H != Fresh[J].Hashes.end() && H->second == Shas[I])
      Cache.storeResult(Files[I], Keys[I], Scanned, Fresh[J]);
    Results[I] = std::move(Fresh[J]);
  }
  if (std::string Why; !Cache.save(Why) && !CacheNoted)
    std::cerr << "kvlint: note: cache not saved: " << Why << "\n";
  Timer("cache save");

  ScanOutcome Out;
  Out.Notes = std::move(Notes);
  for (size_t I = 0; I < Files.size(); ++I) {
    FileResult &R = Results[I];
    for (const auto &[File, H] : R.Hashes) {
      auto [It, New] = Out.Hashes.emplace(File, H);
      if (!New && It->second != H)
        It->second.clear(); // two workers read different bytes: fix neither
    }
    Out.Sum.FilesPartial += R.Analysed && R.Partial;
    Out.Unreached += R.Unreached;
    Out.All.insert(Out.All.end(), R.Findings.begin(), R.Findings.end());
    Out.Notes.insert(Out.Notes.end(), R.Notes.begin(), R.Notes.end());
    Out.Loud.insert(Out.Loud.end(), R.Loud.begin(), R.Loud.end());
    Out.Sum.FilesAnalysed += R.Analysed;
    Out.Sum.FilesFailed += R.Failed;
    Out.Sum.Functions += R.Functions;
    Skipped += R.Skipped;
    if (C.DumpIR)
      std::cout << R.DumpText;
  }
  dedupeAndSort(Out.All);
  Out.Skipped = Skipped;
  Out.Walk = Walk;
  Out.WholeTree = WholeTree;
  Out.Files = Sel.ReportFiles;
  Out.ReportOnly = Sel.ReportOnly;
  Out.Scanned = std::move(Scanned);
  Out.FoundAnywhere = FoundInAllShards;
  Out.Cached = Cached;
  int Rc = reportScan(C, Out, Known, Changed);
  Timer("report");
  return Rc;
}

} // namespace
} // namespace kvlint
