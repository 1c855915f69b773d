//===- Driver.cpp - the kvlint command line ---------------------------------===//
//
// Finds the files, picks each one's frontend and flags, lowers the files in
// parallel, runs the rules, filters suppressed findings, and reports. It
// never executes anything from the scanned tree and writes only with --fix.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "kvlint/ClangFrontend.h"
#include "kvlint/Frontend.h"
#include "kvlint/Report.h"
#include "kvlint/Rule.h"

#include "clang/Tooling/JSONCompilationDatabase.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kvlint {
namespace {

const char *Usage =
    R"(usage: kvlint [options] <file-or-dir>... [-- <extra compiler flags>]

Finds narrowed-index overflows (KV001), unguarded block-table loads (KV002) and
stores that do not skip the pad slot (KV003) in CUDA, HIP, C++ and Triton
kernels (--list-rules prints them all). Directories are scanned recursively
(.cu .cuh .hip .cpp .cc .cxx .c .h .hpp .hh .py).

options:
  --format=text|json|sarif   output format (default text)
  --checks=LIST              rules to run: codes, check names or globs, '-' to
                             disable (default: all); e.g. --checks=KV001
  --config=FILE              options file: lines 'checks: LIST' and
                             '<check>.<Option>: value' (clang-tidy's keys)
  --option=KEY=VALUE         set one rule option, e.g.
                             --option=kvlint-narrowed-index-overflow.LaunchIndexTier=true
  -p DIR                     directory holding compile_commands.json (default:
                             looked for in each scanned directory and its build/)
  -j N                       files analysed in parallel (default: cores)
  --shard=I/N                analyse only shard I (0-based) of N, for CI matrices
  --exclude=SUBSTR           skip paths containing SUBSTR (repeatable)
  --fix                      apply fix-its in place (atomically, per file)
  --list-rules               print the rules and their options
  --dump-ir                  print the lowered accesses (for debugging)
  -v, --verbose              per-file notes (missing headers, parse errors)
  --version, --help

exit status: 0 no findings, 1 findings, 2 usage error or nothing analysed.
)";

struct Config {
  std::vector<std::string> Inputs;
  std::vector<std::string> Extra;
  std::vector<std::string> Checks = {"all"};
  std::vector<std::string> Excludes;
  Options Opts;
  std::string Format = "text";
  std::string DbDir;
  unsigned Jobs = 0;
  unsigned ShardI = 0, ShardN = 1;
  bool Fix = false, ListRules = false, DumpIR = false, Verbose = false;
};

bool hasExt(const std::string &P, std::initializer_list<const char *> Exts) {
  std::string E = fs::path(P).extension().string();
  std::transform(E.begin(), E.end(), E.begin(), ::tolower);
  for (const char *X : Exts)
    if (E == X)
      return true;
  return false;
}

bool isSourceExt(const std::string &P) {
  return hasExt(P, {".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh",
                    ".py"});
}

std::vector<std::string> splitList(const std::string &S) {
  std::vector<std::string> Out;
  std::stringstream SS(S);
  std::string Item;
  while (std::getline(SS, Item, ','))
    if (!Item.empty())
      Out.push_back(Item);
  return Out;
}

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\r\n");
  size_t E = S.find_last_not_of(" \t\r\n");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

bool readConfig(const std::string &Path, Config &C, std::string &Err) {
  std::ifstream In(Path);
  if (!In) {
    Err = "cannot read config file '" + Path + "'";
    return false;
  }
  std::string Line;
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    std::string T = trim(Line);
    if (T.empty() || T[0] == '#')
      continue;
    size_t Colon = T.find(':');
    if (Colon == std::string::npos) {
      Err = Path + ":" + std::to_string(N) + ": expected 'key: value'";
      return false;
    }
    std::string K = trim(T.substr(0, Colon)), V = trim(T.substr(Colon + 1));
    if (V.size() >= 2 && (V[0] == '"' || V[0] == '\'') && V.back() == V[0])
      V = V.substr(1, V.size() - 2);
    if (K == "checks" || K == "Checks")
      C.Checks = splitList(V);
    else
      C.Opts.set(K, V);
  }
  return true;
}

int parseArgs(const std::vector<std::string> &Args, Config &C) {
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    auto Value = [&](const char *Flag, std::string &Out) {
      std::string F = Flag;
      if (A.rfind(F + "=", 0) == 0) {
        Out = A.substr(F.size() + 1);
        return true;
      }
      if (A == F && I + 1 < Args.size()) {
        Out = Args[++I];
        return true;
      }
      return false;
    };
    std::string V;
    if (A == "--") {
      C.Extra.assign(Args.begin() + I + 1, Args.end());
      break;
    }
    if (A == "-h" || A == "--help") {
      std::cout << Usage;
      return 0;
    }
    if (A == "--version") {
      std::cout << "kvlint 0.1.0 (clang frontend LLVM 19"
#ifdef KVLINT_HAVE_TRITON
                << ", triton frontend tree-sitter"
#endif
                << ")\n";
      return 0;
    }
    if (A == "--fix") C.Fix = true;
    else if (A == "--list-rules") C.ListRules = true;
    else if (A == "--dump-ir") C.DumpIR = true;
    else if (A == "-v" || A == "--verbose") C.Verbose = true;
    else if (Value("--format", V)) {
      if (V != "text" && V != "json" && V != "sarif") {
        std::cerr << "kvlint: error: unknown --format '" << V << "' (text, json, sarif)\n";
        return 2;
      }
      C.Format = V;
    } else if (Value("--checks", V)) C.Checks = splitList(V);
    else if (Value("--config", V)) {
      std::string Err;
      if (!readConfig(V, C, Err)) {
        std::cerr << "kvlint: error: " << Err << "\n";
        return 2;
      }
    } else if (Value("--option", V)) {
      size_t Eq = V.find('=');
      if (Eq == std::string::npos) {
        std::cerr << "kvlint: error: --option wants KEY=VALUE, got '" << V << "'\n";
        return 2;
      }
      C.Opts.set(V.substr(0, Eq), V.substr(Eq + 1));
    } else if (Value("-p", V)) C.DbDir = V;
    else if (Value("--exclude", V)) C.Excludes.push_back(V);
    else if (Value("-j", V) || (A.size() > 2 && A.rfind("-j", 0) == 0 && (V = A.substr(2), true))) {
      try {
        C.Jobs = unsigned(std::stoul(V));
      } catch (...) {
        std::cerr << "kvlint: error: -j wants a number, got '" << V << "'\n";
        return 2;
      }
    } else if (Value("--shard", V)) {
      unsigned I2 = 0, N2 = 0;
      char Slash = 0;
      std::stringstream SS(V);
      if (!(SS >> I2 >> Slash >> N2) || Slash != '/' || N2 == 0 || I2 >= N2) {
        std::cerr << "kvlint: error: --shard wants I/N with 0 <= I < N, got '" << V << "'\n";
        return 2;
      }
      C.ShardI = I2, C.ShardN = N2;
    } else if (!A.empty() && A[0] == '-') {
      std::cerr << "kvlint: error: unknown option '" << A << "' (see --help)\n";
      return 2;
    } else {
      C.Inputs.push_back(A);
    }
  }
  return -1;
}

// ---- compile databases -----------------------------------------------------
struct DbFlags {
  std::map<std::string, std::vector<std::string>> ByFile; // canonical path -> flags
};

/// Keeps the flags that change what the preprocessor sees; drops nvcc and
/// code-generation flags clang would not accept, and the CUDA toolkit's own
/// include directories (clang 19 cannot parse CUDA 13's headers).
std::vector<std::string> usefulFlags(const std::vector<std::string> &Cmd, const std::string &Dir) {
  std::vector<std::string> Out;
  auto Abs = [&](const std::string &P) {
    return fs::path(P).is_absolute() ? P : (fs::path(Dir) / P).lexically_normal().string();
  };
  auto CudaDir = [](const std::string &P) {
    return P.find("/cuda") != std::string::npos && P.find("include") != std::string::npos &&
           P.find("/usr/local/cuda") != std::string::npos;
  };
  for (size_t I = 1; I < Cmd.size(); ++I) {
    const std::string &A = Cmd[I];
    for (const char *F : {"-I", "-isystem", "-iquote", "-include", "-D", "-U"}) {
      std::string Fl = F;
      if (A == Fl && I + 1 < Cmd.size()) {
        std::string V = Cmd[++I];
        bool Path = Fl != "-D" && Fl != "-U";
        if (Path && CudaDir(V))
          break;
        Out.push_back(Fl);
        Out.push_back(Path ? Abs(V) : V);
        break;
      }
      if (A.rfind(Fl, 0) == 0 && A.size() > Fl.size() && (Fl == "-I" || Fl == "-D" || Fl == "-U")) {
        std::string V = A.substr(Fl.size());
        if (Fl == "-I" && CudaDir(V))
          break;
        Out.push_back(Fl + (Fl == "-I" ? Abs(V) : V));
        break;
      }
    }
    if (A.rfind("-std=", 0) == 0) {
      std::string S = A.substr(5);
      if (S.find("c++") != std::string::npos || S.find("gnu++") != std::string::npos)
        Out.push_back(A);
    }
  }
  return Out;
}

bool loadDb(const std::string &Dir, DbFlags &Db, std::string &Err) {
  std::string E;
  auto J = clang::tooling::JSONCompilationDatabase::loadFromDirectory(Dir, E);
  if (!J) {
    Err = E;
    return false;
  }
  for (const auto &Cmd : J->getAllCompileCommands()) {
    std::string File = fs::path(Cmd.Filename).is_absolute()
                           ? Cmd.Filename
                           : (fs::path(Cmd.Directory) / Cmd.Filename).string();
    std::error_code EC;
    std::string Canon = fs::weakly_canonical(File, EC).string();
    Db.ByFile[Canon] = usefulFlags(Cmd.CommandLine, Cmd.Directory);
  }
  return true;
}

// ---- per-file work ---------------------------------------------------------
struct FileResult {
  std::vector<Finding> Findings;
  std::vector<FileNote> Notes;
  std::string DumpText;
  unsigned Functions = 0;
  bool Analysed = false;
  bool Failed = false;
};

std::string describeGuard(const Guard &G) {
  static const char *How[] = {"if", "early-exit", "loop", "ternary", "logical", "mask"};
  return std::string(How[G.How]) + (G.Negated ? " !" : " ") + dump(G.Cond);
}

void dumpFunction(const Function &F, std::ostream &OS) {
  OS << "function " << F.Name << " (" << languageName(F.Lang) << (F.IsKernel ? ", kernel" : "")
     << ")\n";
  static const char *AK[] = {"load", "store", "address"};
  for (const Access &A : F.Accesses) {
    OS << "  " << A.Range.Begin.Line << ":" << A.Range.Begin.Col << " "
       << AK[int(A.AK)] << " " << dump(A.Addr) << "\n";
    if (A.Mask)
      OS << "    mask " << dump(A.Mask) << "\n";
    if (A.Other)
      OS << "    other " << dump(A.Other) << "\n";
    for (const Guard &G : A.Guards)
      OS << "    guard " << describeGuard(G) << "\n";
  }
}

FileResult analyseFile(const std::string &Path, const Config &C, const DbFlags &Db,
                       const std::vector<std::unique_ptr<Rule>> &Rules) {
  FileResult R;
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    R.Notes.push_back({Path, "cannot read file", true});
    R.Failed = true;
    return R;
  }
  std::ostringstream SS;
  SS << In.rdbuf();
  std::string Src = SS.str();
  if (Src.find('\0') != std::string::npos) {
    R.Notes.push_back({Path, "binary file, skipped", true});
    R.Failed = true;
    return R;
  }
  LoweredFile LF;
  if (hasExt(Path, {".py"})) {
    if (Src.find("triton") == std::string::npos) {
      R.Analysed = true; // plain Python: nothing to lower
      return R;
    }
#ifdef KVLINT_HAVE_TRITON
    LF = lowerTritonSource(Path, Src, C.Opts);
#else
    R.Notes.push_back({Path, "Triton frontend not built; file skipped", false});
    return R;
#endif
  } else {
    ClangInput CI;
    CI.Path = Path;
    CI.Lang = clangLanguageFor(Path, Src);
    std::error_code EC;
    auto It = Db.ByFile.find(fs::weakly_canonical(Path, EC).string());
    if (It != Db.ByFile.end())
      CI.DbArgs = It->second;
    CI.ExtraArgs = C.Extra;
    CI.HostPass = CI.Lang != Language::Cpp &&
                  (Src.find("__CUDA_ARCH__") != std::string::npos ||
                   Src.find("__HIP_DEVICE_COMPILE__") != std::string::npos);
    LF = lowerClangFile(CI);
  }
  for (const std::string &N : LF.Notes)
    R.Notes.push_back({Path, N, false});
  if (LF.Failed) {
    R.Notes.push_back({Path, "could not be analysed", true});
    R.Failed = true;
    return R;
  }
  R.Analysed = true;
  R.Functions = unsigned(LF.Functions.size());
  std::ostringstream Dump;
  for (const auto &F : LF.Functions) {
    if (C.DumpIR)
      dumpFunction(*F, Dump);
    runRules(Rules, *F, R.Findings);
  }
  R.DumpText = Dump.str();
  // Only the file itself: a header is reported when it is scanned itself.
  R.Findings.erase(std::remove_if(R.Findings.begin(), R.Findings.end(),
                                  [&](const Finding &F) { return F.Range.Begin.File != Path; }),
                   R.Findings.end());
  SourceCache One;
  One.put(Path, Src);
  R.Findings.erase(std::remove_if(R.Findings.begin(), R.Findings.end(),
                                  [&](const Finding &F) { return isSuppressed(F, One); }),
                   R.Findings.end());
  dedupeAndSort(R.Findings);
  return R;
}

bool excluded(const std::string &P, const Config &C) {
  for (const std::string &E : C.Excludes)
    if (P.find(E) != std::string::npos)
      return true;
  return false;
}

void collect(const std::string &Input, const Config &C, std::vector<std::string> &Files,
             std::vector<FileNote> &Notes) {
  std::error_code EC;
  fs::file_status St = fs::status(Input, EC);
  if (EC || !fs::exists(St)) {
    Notes.push_back({Input, "no such file or directory", true});
    return;
  }
  if (fs::is_regular_file(St)) {
    Files.push_back(Input);
    return;
  }
  if (!fs::is_directory(St)) {
    Notes.push_back({Input, "not a regular file or directory", true});
    return;
  }
  std::vector<std::string> Found;
  fs::recursive_directory_iterator It(Input, fs::directory_options::skip_permission_denied, EC),
      End;
  if (EC) {
    Notes.push_back({Input, "cannot read directory: " + EC.message(), true});
    return;
  }
  for (; It != End; It.increment(EC)) {
    if (EC) {
      Notes.push_back({Input, "error while walking: " + EC.message(), false});
      EC.clear();
      continue;
    }
    std::string Name = It->path().filename().string();
    std::error_code E2;
    if (It->is_directory(E2)) {
      if ((!Name.empty() && Name[0] == '.') || Name == "__pycache__" || Name == "node_modules" ||
          excluded(It->path().string(), C))
        It.disable_recursion_pending();
      continue;
    }
    if (!It->is_regular_file(E2) || !isSourceExt(Name) || excluded(It->path().string(), C))
      continue;
    Found.push_back(It->path().lexically_normal().string());
  }
  std::sort(Found.begin(), Found.end());
  Files.insert(Files.end(), Found.begin(), Found.end());
}

int applyAllFixes(const std::vector<Finding> &Fs, std::ostream &Err) {
  std::map<std::string, std::vector<const FixIt *>> ByFile;
  for (const Finding &F : Fs)
    for (const FixIt &X : F.Fixes)
      ByFile[F.Range.Begin.File].push_back(&X);
  int Failures = 0;
  for (auto &[Path, Fixes] : ByFile) {
    SourceCache SC;
    const std::string *T = SC.get(Path);
    if (!T) {
      Err << "kvlint: error: cannot re-read '" << Path << "' to fix it\n";
      ++Failures;
      continue;
    }
    std::string Text = *T;
    unsigned N = applyFixes(Text, Fixes);
    // Write a sibling temporary, then rename over the original: either the
    // old or the new file exists, never half of one.
    std::string Tmp = Path + ".kvlint-fix." + std::to_string(::getpid());
    {
      std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
      Out << Text;
      Out.close();
      if (!Out) {
        Err << "kvlint: error: cannot write '" << Tmp << "'; '" << Path << "' left unchanged\n";
        std::remove(Tmp.c_str());
        ++Failures;
        continue;
      }
    }
    std::error_code EC;
    fs::permissions(Tmp, fs::status(Path, EC).permissions(), EC);
    fs::rename(Tmp, Path, EC);
    if (EC) {
      Err << "kvlint: error: cannot replace '" << Path << "': " << EC.message() << "\n";
      std::remove(Tmp.c_str());
      ++Failures;
      continue;
    }
    Err << "kvlint: applied " << N << " edit(s) to " << Path << "\n";
  }
  return Failures;
}

} // namespace

int runDriver(const std::vector<std::string> &Args) {
  Config C;
  int Early = parseArgs(Args, C);
  if (Early >= 0)
    return Early;
  auto Rules = makeRules(C.Checks, C.Opts);
  if (C.ListRules) {
    for (const RuleInfo &I : ruleRegistry()) {
      auto R = I.Make();
      std::cout << R->code() << "  " << R->check() << "  " << R->summary() << "\n";
      for (const OptionSpec &O : R->options())
        std::cout << "    " << R->check() << "." << O.Name << " (default: '" << O.Default
                  << "') " << O.Help << "\n";
    }
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
    collect(In, C, Files, Notes);
  if (C.ShardN > 1) {
    std::vector<std::string> Mine;
    for (size_t I = 0; I < Files.size(); ++I)
      if (I % C.ShardN == C.ShardI)
        Mine.push_back(Files[I]);
    Files.swap(Mine);
  }

  DbFlags Db;
  {
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
          return 2;
        }
        Notes.push_back({D, "compile_commands.json ignored: " + Err, false});
      }
    }
  }

  unsigned Jobs = C.Jobs ? C.Jobs : std::max(1u, std::thread::hardware_concurrency());
  Jobs = std::min<unsigned>(Jobs, std::max<size_t>(1, Files.size()));
  std::vector<FileResult> Results(Files.size());
  std::atomic<size_t> Next{0};
  auto Worker = [&] {
    for (size_t I; (I = Next++) < Files.size();) {
      try {
        Results[I] = analyseFile(Files[I], C, Db, Rules);
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
