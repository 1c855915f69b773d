//===- Args.cpp - kvlint's command-line flags ---------------------------------===//
//
// One table of flags. Each row: the spellings, the value's name (empty for a
// switch), the help text, and what it does. --help is printed from it.
//
//===----------------------------------------------------------------------===//
#include "Args.h"
#include "Config.h"

#include <filesystem>
#include <functional>
#include <ostream>
#include <sstream>

namespace kvlint {
namespace {

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
      {{"--format"}, "text|json|sarif", "output format (default text)",
       [](CliOptions &C, const std::string &V) -> std::string {
         if (V != "text" && V != "json" && V != "sarif")
           return "unknown --format '" + V + "' (text, json, sarif)";
         C.Format = V;
         return "";
       }},
      {{"--checks"}, "LIST",
       "rules to run: codes, check names or globs, '-' to\n"
       "disable (default: all); e.g. --checks=KV001",
       [](CliOptions &C, const std::string &V) -> std::string {
         ConfigFile F;
         F.Path = "--checks";
         F.Checks = splitList(V);
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
      {{"-j"}, "N", "files analysed in parallel (default: cores)",
       [](CliOptions &C, const std::string &V) -> std::string {
         try {
           size_t Used = 0;
           unsigned long N = std::stoul(V, &Used);
           if (Used != V.size())
             throw 0;
           C.Jobs = unsigned(N);
         } catch (...) {
           return "-j wants a number, got '" + V + "'";
         }
         return "";
       }},
      {{"--shard"}, "I/N", "analyse only shard I (0-based) of N, for CI matrices",
       [](CliOptions &C, const std::string &V) -> std::string {
         unsigned I = 0, N = 0;
         char Slash = 0;
         std::stringstream SS(V);
         if (!(SS >> I >> Slash >> N) || Slash != '/' || N == 0 || I >= N)
           return "--shard wants I/N with 0 <= I < N, got '" + V + "'";
         C.ShardI = I, C.ShardN = N;
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
         C.Baseline = V;
         return "";
       }},
      {{"--write-baseline"}, "FILE",
       "record every finding of this scan in FILE (exit 0)",
       [](CliOptions &C, const std::string &V) -> std::string {
         C.WriteBaseline = V;
         return "";
       }},
      {{"--diff"}, "REF|-",
       "report only findings on lines changed since git REF\n"
       "(runs 'git diff -U0 REF'), or in a unified diff on stdin",
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
        "exit status: 0 no findings, 1 findings, 2 usage error or nothing analysed.\n";
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
      Out << "kvlint 0.1.0 (clang frontend LLVM 19"
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
  return -1;
}

} // namespace kvlint
