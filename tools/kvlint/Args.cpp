//===- Args.cpp - kvlint's command-line flags ---------------------------------===//
//
// One table of flags. Each row: the spellings, the value's name (empty for a
// switch), the help text, and what it does. --help is printed from it.
//
//===----------------------------------------------------------------------===//
#include "Args.h"
#include "Config.h"
#include "RuleDocs.h"
#include "SafeWrite.h"
#include "Selection.h"

#include "kvlint/OptionCheck.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>

namespace kvlint {

bool isOutputFormat(const std::string &F) {
  return F == "text" || F == "json" || F == "sarif" || F == "github";
}

namespace {

/// A whole number from Min to Max, written plainly (no sign, no leading zero).
bool count(const std::string &V, int64_t Min, int64_t Max, int64_t &Out) {
  if (V.empty() || V.find_first_not_of("0123456789") != std::string::npos)
    return false;
  return parseInteger(V, Out) && Out >= Min && Out <= Max;
}

/// A cap flag's value (--file-timeout, --file-memory): "" or the error.
std::string parseCap(const std::string &V, const char *Flag, unsigned Min, unsigned Max,
                     unsigned &Out) {
  int64_t N = 0;
  if (!count(V, Min, Max, N))
    return std::string(Flag) + " wants a whole number from " + std::to_string(Min) + " to " +
           std::to_string(Max) + ", got '" + V + "'";
  Out = unsigned(N);
  return "";
}

/// "" when P is absent or a regular file; a FIFO, device, socket or
/// directory given as a file to read is refused before anything opens it.
std::string regularOrAbsent(const std::string &Flag, const std::string &P) {
  std::string Kind = specialKind(P);
  if (!Kind.empty())
    return Flag + " '" + P + "' is " + Kind + ", not a regular file";
  std::error_code EC;
  if (std::filesystem::is_directory(P, EC))
    return Flag + " '" + P + "' is a directory";
  return "";
}

/// What a flag does with its value; returns "" or an error message.
using Action = std::function<std::string(CliOptions &, const std::string &)>;

struct Flag {
  std::vector<const char *> Names; ///< "--format", "-p"
  const char *Value;               ///< "FILE" etc.; "" for a switch
  const char *Help;                ///< may contain '\n' for more lines
  Action Do;
};

const std::vector<Flag> &flags() {
  static const std::vector<Flag> Table = {
      {{"--format"}, "text|json|sarif|github",
       "output format on stdout (default text; github: workflow\n"
       "commands that annotate the pull request)",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (!isOutputFormat(V))
           return "unknown --format '" + V + "' (text, json, sarif, github)";
         C.Format = V;
         return "";
       }},
      {{"--output"}, "FORMAT=FILE",
       "also write the report as FORMAT to FILE (repeatable), e.g.\n"
       "--output sarif=kvlint.sarif --output text=kvlint.txt",
       [](CliOptions &C, const std::string &V) -> std::string {
         size_t Eq = V.find('=');
         if (Eq == std::string::npos || Eq + 1 == V.size())
           return "--output wants FORMAT=FILE, got '" + V + "'";
         std::string F = V.substr(0, Eq);
         if (!isOutputFormat(F))
           return "--output: unknown format '" + F + "' (text, json, sarif, github)";
         C.Outputs.emplace_back(F, V.substr(Eq + 1));
         return "";
       }},
      {{"--statistics"}, "",
       "print per-rule counts instead of the findings (text); with\n"
       "another --format, on stderr",
       [](CliOptions &C, const std::string &) -> std::string {
         C.Statistics = true;
         return "";
       }},
      {{"--checks"}, "LIST",
       "rules to run: codes, check names or globs, '-' to\n"
       "disable (default: all); e.g. --checks=KV001",
       [](CliOptions &C, const std::string &V) -> std::string {
         ConfigFile F;
         F.Path = "--checks";
         F.Checks = splitList(V);
         std::string Err;
         if (!checkChecks(*F.Checks, ConfigKind::Kvlint, "--checks: ", Err))
           return Err;
         C.Overrides.push_back(F);
         return "";
       }},
      {{"--config"}, "FILE",
       "options file over the discovered ones: 'Checks: LIST',\n"
       "'<check>.<Option>: value', CheckOptions, Exclude, ...",
       [](CliOptions &C, const std::string &V) -> std::string {
         std::string Err;
         ConfigFile F;
         if (!readConfigFile(V, ConfigKind::Kvlint, F, Err))
           return Err;
         C.Overrides.push_back(F);
         return "";
       }},
      {{"--level"}, "default|latent",
       "default: report what goes wrong inside the deployment\n"
       "envelope; latent: also what goes wrong only beyond it",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (V != "default" && V != "latent")
           return "unknown --level '" + V + "' (default, latent)";
         ConfigFile F;
         F.Path = "--level";
         F.Options.emplace_back("Level", V);
         C.Overrides.push_back(F);
         return "";
       }},
      {{"--envelope"}, "FILE",
       "deployment envelope: 'Tokens: 262144', 'KvSlots: ...'\n"
       "(docs/envelope.md); overrides the defaults",
       [](CliOptions &C, const std::string &V) -> std::string {
         std::string Err;
         ConfigFile F;
         if (!readEnvelopeFile(V, F, Err))
           return Err;
         C.Overrides.push_back(F);
         return "";
       }},
      {{"--option"}, "KEY=VALUE",
       "set one rule option, e.g. --option=Envelope.Tokens=262144\n"
       "or --option=kvlint-unguarded-table-load.PadValue=-1",
       [](CliOptions &C, const std::string &V) -> std::string {
         size_t Eq = V.find('=');
         if (Eq == std::string::npos)
           return "--option wants KEY=VALUE, got '" + V + "'";
         ConfigFile F;
         F.Path = "--option";
         std::string Problem = checkOption(V.substr(0, Eq), V.substr(Eq + 1));
         if (!Problem.empty())
           return "--option=" + V + ": " + Problem;
         F.Options.emplace_back(V.substr(0, Eq), V.substr(Eq + 1));
         C.Overrides.push_back(F);
         return "";
       }},
      {{"-p"}, "DIR",
       "directory holding compile_commands.json (default:\n"
       "looked for in each scanned directory and its build/)",
       [](CliOptions &C, const std::string &V) -> std::string {
         C.DbDir = V;
         return "";
       }},
      {{"-j"}, "N",
       "files analysed in parallel (default: cores; at most the\n"
       "machine's hardware threads)",
       [](CliOptions &C, const std::string &V) -> std::string {
         int64_t N;
         if (!count(V, 1, 1 << 20, N))
           return "-j wants a positive number, got '" + V + "'";
         C.Jobs = unsigned(N);
         return "";
       }},
      {{"--shard"}, "I/N",
       "analyse only shard I (0-based) of N, for CI matrices; each file's\n"
       "findings (a header's too) are in exactly one shard",
       [](CliOptions &C, const std::string &V) -> std::string {
         size_t Slash = V.find('/');
         int64_t I = -1, N = 0;
         if (Slash == std::string::npos || !count(V.substr(0, Slash), 0, 1 << 20, I) ||
             !count(V.substr(Slash + 1), 1, 1 << 20, N) || I >= N)
           return "--shard wants I/N with 0 <= I < N <= 1,048,576, got '" + V + "'";
         C.ShardI = unsigned(I), C.ShardN = unsigned(N);
         return "";
       }},
      {{"--exclude"}, "SUBSTR", "skip paths containing SUBSTR (repeatable)",
       [](CliOptions &C, const std::string &V) -> std::string {
         C.Excludes.push_back(V);
         return "";
       }},
      {{"--include-generated"}, "",
       "also scan generated files found in directories (a header comment\n"
       "such as '@generated', 'DO NOT EDIT', 'Generated by'); skipped by default",
       [](CliOptions &C, const std::string &) -> std::string {
         C.IncludeGenerated = true;
         return "";
       }},
      {{"--include-tests"}, "",
       "also scan the directories named test, tests or benchmarks found below\n"
       "a directory (test kernels run at the sizes the test picks); skipped by default",
       [](CliOptions &C, const std::string &) -> std::string {
         C.IncludeTests = true;
         return "";
       }},
      {{"--project-root"}, "DIR",
       "the project whose Python files the project model reads, for callers\n"
       "and reachability (default: above the first scanned directory, its\n"
       "package chain, then .git/pyproject.toml/setup.py; none for files)",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (!std::filesystem::is_directory(V))
           return "--project-root '" + V + "' is not a directory";
         C.ProjectRoot = V;
         return "";
       }},
      {{"--cache-dir"}, "DIR",
       "the cache folder (default: .kvlint_cache at the project root, or\n"
       "KVLINT_CACHE_DIR; none for a scan of files); see docs/cli.md, \"Cache\"",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (V.empty())
           return "--cache-dir wants a folder";
         C.CacheDir = V;
         return "";
       }},
      {{"--no-cache"}, "",
       "neither read nor write the cache: analyse every file (also\n"
       "KVLINT_NO_CACHE=1)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.NoCache = true;
         return "";
       }},
      {{"--clean-cache"}, "",
       "remove the cache folder (after checking its CACHEDIR.TAG) and stop;\n"
       "also `kvlint cache clean [DIR]`",
       [](CliOptions &C, const std::string &) -> std::string {
         C.CleanCache = true;
         return "";
       }},
      {{"--per-site"}, "",
       "report every offset apart; by default the offsets of one function that\n"
       "the same value makes wrap (KV001: widen 'bos') are one finding, the\n"
       "other sites its notes",
       [](CliOptions &C, const std::string &) -> std::string {
         C.PerSite = true;
         return "";
       }},
      {{"--baseline"}, "FILE", "report only findings not recorded in FILE",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (V.empty())
           return "--baseline wants a file name";
         std::string Problem = regularOrAbsent("--baseline", V);
         if (!Problem.empty())
           return Problem;
         C.Baseline = V;
         return "";
       }},
      {{"--write-baseline"}, "FILE",
       "record every finding of this scan in FILE (exit 0)",
       [](CliOptions &C, const std::string &V) -> std::string {
         C.WriteBaseline = V;
         return "";
       }},
      {{"--prune-baseline"}, "",
       "rewrite the baseline without the entries no finding matched\n"
       "(of the files this run analysed)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.PruneBaseline = true;
         return "";
       }},
      {{"--diff"}, "REF|-",
       "report only findings on lines changed since git REF\n"
       "(runs 'git diff -U0 REF'), or in a unified diff on stdin; analyses\n"
       "the changed and untracked files and the files that include them",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (V.empty())
           return "--diff wants a git revision or '-'";
         C.Diff = V;
         return "";
       }},
      {{"--fix"}, "", "apply fix-its in place (atomically, per file)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.Fix = true;
         return "";
       }},
      {{"--unsafe-fixes"}, "",
       "with --fix, also apply fix-its marked unsafe (a guard that skips\n"
       "work: review the diff); --fix alone applies only safe ones",
       [](CliOptions &C, const std::string &) -> std::string {
         C.UnsafeFixes = true;
         return "";
       }},
      {{"--fail-on-error"}, "",
       "exit 2 when any file could not be analysed (a crash, the time or\n"
       "memory cap, an unreadable file), even when others were",
       [](CliOptions &C, const std::string &) -> std::string {
         C.FailOnError = true;
         return "";
       }},
      {{"--file-timeout"}, "SECONDS",
       "wall-clock cap on one file's analysis (default 120); a file past it\n"
       "is reported as failed and the scan goes on",
       [](CliOptions &C, const std::string &V) -> std::string {
         return parseCap(V, "--file-timeout", 1, 86400, C.FileTimeout);
       }},
      {{"--file-memory"}, "MIB",
       "memory cap on one file's analysis in MiB (default 4096)",
       [](CliOptions &C, const std::string &V) -> std::string {
         return parseCap(V, "--file-memory", 64, 1u << 20, C.FileMemory);
       }},
      {{"--no-isolation"}, "",
       "analyse files on threads of one process instead of worker processes\n"
       "(for debugging: a crashing file then ends the whole scan)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.NoIsolation = true;
         return "";
       }},
      {{"--fix-diff"}, "",
       "print the fix-its as a unified diff on stdout, write nothing\n"
       "(git apply -p1 applies it from the source root)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.FixDiff = true;
         return "";
       }},
      {{"--report-unused-suppressions"}, "",
       "report NOLINT / kvlint: ignore / noqa comments that suppress nothing",
       [](CliOptions &C, const std::string &) -> std::string {
         C.ReportUnusedSuppressions = true;
         return "";
       }},
      {{"--show-config"}, "FILE",
       "print the configuration in force for FILE, and where each value\n"
       "comes from; analyses nothing",
       [](CliOptions &C, const std::string &V) -> std::string {
         C.ShowConfig = V;
         return "";
       }},
      {{"--list-rules"}, "", "print the rules and their options",
       [](CliOptions &C, const std::string &) -> std::string {
         C.ListRules = true;
         return "";
       }},
      {{"--dump-ir"}, "", "print the lowered accesses (for debugging)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.DumpIR = true;
         return "";
       }},
      {{"-v", "--verbose"}, "", "per-file notes (missing headers, parse errors)",
       [](CliOptions &C, const std::string &) -> std::string {
         C.Verbose = true;
         return "";
       }},
  };
  return Table;
}

} // namespace

std::string usageText() {
  std::ostringstream OS;
  OS << "usage: kvlint [options] <file-or-dir>... [-- <extra compiler flags>]\n\n"
        "Finds narrowed-index overflows (KV001), unguarded block-table loads (KV002) and\n"
        "stores that do not skip the pad slot (KV003) in CUDA, HIP, C++ and Triton\n"
        "kernels (--list-rules prints them all). Directories are scanned recursively\n"
        "(.cu .cuh .hip .cpp .cc .cxx .c .h .hpp .hh .py).\n\noptions:\n";
  for (const Flag &F : flags()) {
    std::string Head = "  ";
    for (size_t I = 0; I < F.Names.size(); ++I) {
      Head += (I ? ", " : "") + std::string(F.Names[I]);
      if (*F.Value && I + 1 == F.Names.size())
        Head += (std::string(F.Names[I]).rfind("--", 0) == 0 ? "=" : " ") + std::string(F.Value);
    }
    std::stringstream Help(F.Help);
    std::string Line;
    bool First = true;
    while (std::getline(Help, Line)) {
      std::string Left = First ? Head : "";
      if (Left.size() < 29)
        Left.resize(29, ' ');
      else
        Left += " ";
      OS << Left << Line << "\n";
      First = false;
    }
  }
  OS << "  --version, --help\n\n"
        "  kvlint rule CODE             print a rule's documentation (KV001, or its check name)\n\n"
        "exit status: 0 no findings (also after --fix fixed them all), 1 findings,\n"
        "2 usage error or nothing analysed.\n";
  return OS.str();
}

int parseArgs(const std::vector<std::string> &Args, CliOptions &C, std::ostream &Out,
              std::ostream &Err) {
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--") {
      C.Extra.assign(Args.begin() + I + 1, Args.end());
      break;
    }
    if (A == "-h" || A == "--help") {
      Out << usageText();
      return 0;
    }
    if (A == "--version") {
      Out << "kvlint " << kvlintVersion() << " (commit " << kvlintCommit()
          << "; clang frontend LLVM 19"
#ifdef KVLINT_HAVE_TRITON
          << ", triton frontend tree-sitter"
#endif
          << ")\n";
      return 0;
    }
    const Flag *Hit = nullptr;
    std::string V;
    for (const Flag &F : flags()) {
      for (const char *N : F.Names) {
        std::string Name = N;
        if (A == Name) {
          Hit = &F;
          if (*F.Value) {
            if (I + 1 >= Args.size()) {
              Err << "kvlint: error: " << Name << " wants a value (see --help)\n";
              return 2;
            }
            V = Args[++I];
          }
        } else if (*F.Value && A.rfind(Name + "=", 0) == 0) {
          Hit = &F, V = A.substr(Name.size() + 1);
        } else if (*F.Value && Name.size() == 2 && A.size() > 2 && A.rfind(Name, 0) == 0) {
          Hit = &F, V = A.substr(2); // -j8, -pbuild
        }
        if (Hit)
          break;
      }
      if (Hit)
        break;
    }
    if (!Hit) {
      if (!A.empty() && A[0] == '-') {
        Err << "kvlint: error: unknown option '" << A << "' (see --help)\n";
        return 2;
      }
      C.Inputs.push_back(A);
      continue;
    }
    std::string Problem = Hit->Do(C, V);
    if (!Problem.empty()) {
      Err << "kvlint: error: " << Problem << "\n";
      return 2;
    }
  }
  // Each output file is written once: two reports (or a report and the
  // baseline) at one path would leave only the last, silently.
  {
    std::map<std::string, std::string> Seen;
    std::vector<std::pair<std::string, std::string>> Targets;
    for (const auto &[Format, File] : C.Outputs)
      Targets.emplace_back("--output " + Format + "=" + File, File);
    if (!C.WriteBaseline.empty())
      Targets.emplace_back("--write-baseline " + C.WriteBaseline, C.WriteBaseline);
    for (const auto &[Flag, File] : Targets) {
      auto [It, New] = Seen.emplace(canonicalPath(File), Flag);
      if (!New) {
        Err << "kvlint: error: " << Flag << " and " << It->second
            << " write the same file; give each output its own\n";
        return 2;
      }
    }
  }
  // More workers than hardware threads only add memory: cap -j there.
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  if (C.Jobs > Threads) {
    if (C.Verbose)
      Err << "kvlint: note: -j " << C.Jobs << " capped at " << Threads
          << " (the machine's hardware threads)\n";
    C.Jobs = Threads;
  }
  return -1;
}

} // namespace kvlint
