//===- Project.h - the project model: files linked, roots, reachability -*- C++ -*-===//
//
// Built once per scan from every file's FileSummary (Summary.h):
//
//   Link.cpp   module names from paths (package roots are directories with an
//              `__init__.py` chain; `src/` layouts and namespace directories
//              are found by their paths), imports (absolute, relative, `as`,
//              re-exports through `__init__`, wildcards), and the definitions
//              a dotted name in a file denotes;
//   Reach.cpp  the graph (modules, definitions, the names their bodies
//              mention), its roots and what they reach, and why a definition
//              is not reached;
//   Launches.cpp which files launch a kernel of another file (the
//              frontend reads the launch facts there);
//   Build.cpp  the walk of the project root and the summaries, in parallel;
//   Demote.cpp the post-pass that moves findings in unreached kernels to
//              the latent level, with the reason as a note;
//   Digest.cpp factsDigest: the hash of the cross-file facts one file's
//              analysis reads, for the scan's cache.
//
// The roots (docs/architecture.md, "Reachability", says why each):
//   * the `__init__` of every top-level package, and what each `__init__`
//     binds publicly, and its `__all__`: the package's API;
//   * public functions and classes (no leading `_`, not @triton.jit) of a
//     public module that is itself reached; every public definition of a
//     loose file (no package), kernels included;
//   * loose files (scripts) and files with `if __name__ == "__main__"`;
//   * definitions a decorator registers (torch.library, `...register...`),
//     when their module is reached;
//   * tests and benchmarks (and everything they define) only with
//     IncludeTests.
// A class reached reaches its methods. A @triton.jit function is never a
// root by its name: some reached function must launch or call it.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_PROJECT_PROJECT_H
#define KVLINT_PROJECT_PROJECT_H

#include "kvlint/IR.h"
#include "project/Summary.h"

#include <map>
#include <set>
#include <tuple>
#include <string>
#include <vector>

namespace kvlint {
namespace project {

struct ProjectConfig {
  std::string Root;          ///< the project root, absolute and normal
  bool IncludeTests = false; ///< tests and benchmarks are roots
  /// Public functions of a reached public module are roots (the default).
  /// Off: only what an `__init__` exports, scripts and registrations are.
  bool PublicModulesAreApi = true;
};

/// A directory of tests or benchmarks, by its name: test, tests, benchmark,
/// benchmarks, or a name that ends in one after `_` or starts with `test_`
/// or `tests_` (aiter's `op_tests`, `triton_tests`, `op_benchmarks`;
/// lmdeploy's `test_lmdeploy`). `testing` and `bench` are not: torch ships
/// `torch.testing` as API.
bool isTestDirName(const std::string &Name);

/// A file of tests or benchmarks, by its path relative to the project root:
/// one under a directory isTestDirName says is one, or a file test_*.py,
/// *_test.py, conftest.py.
bool isTestPath(const std::string &Rel);

/// A function that tests or times code (`test_int8`, `test2`, `benchmark`,
/// `_bench_decode`): leading underscores aside, its name starts with
/// `test` or `bench`. In a file of the package it is a test, not API: it
/// roots reachability only with --include-tests, and its calls are not
/// the production callers of what it calls.
bool isTestFunctionName(const std::string &Name);

class ProjectModel {
public:
  /// Links Files (paths absolute and normal) and computes reachability.
  void build(std::vector<FileSummary> Files, const ProjectConfig &C);

  bool empty() const { return Files.empty(); }
  size_t fileCount() const { return Files.size(); }
  const ProjectConfig &config() const { return Cfg; }

  /// The module name of a file of the model (`pkg.sub.mod`), or "".
  std::string moduleOf(const std::string &Path) const;

  struct Verdict {
    bool Known = false;   ///< the model has the file and the definition
    bool Reached = true;  ///< some root reaches it
    std::string Why;      ///< when not reached: the reason, for a note
    std::string File;     ///< where the reason points (the definition)
    unsigned Line = 0;
  };
  /// Whether a root reaches definition Name (a function, kernel or method
  /// name) of the file at Path (absolute and normal, or as the model has it).
  Verdict reach(const std::string &Path, const std::string &Name) const;

  /// What a dotted name in a file denotes: "mod" for a module, "mod:def" for
  /// a definition; sorted. For tests and --dump-ir-like inspection.
  std::vector<std::string> resolve(const std::string &Path, const std::string &Dotted) const;

  /// The deployment profile the project's callers put a kernel in
  /// (Profile.cpp; docs/envelope.md, "How the profile is chosen"):
  /// Training when every path from a root to it passes through the
  /// `forward`/`backward` of a torch.autograd.Function (in any module) or
  /// through a training-only module; Inference when some root reaches it on
  /// a path that avoids both; Unknown when the model cannot say (the kernel
  /// is not in the model, or no root reaches it).
  struct ProfileVerdict {
    Profile Prof = Profile::Unknown;
    std::string Why; ///< "reached only through `ChunkGLAFunction.forward` (fla/ops/gla/chunk.py:1352)"
  };
  ProfileVerdict profile(const std::string &Path, const std::string &Kernel) const;

  /// The @triton.jit helper a dotted name in the file at Path denotes, when
  /// it is defined in another module of the project (a helper of the same
  /// file is the frontend's own): null when the name resolves to nothing,
  /// to something else, or to helpers whose returns disagree.
  const Definition *importedJit(const std::string &Path, const std::string &Dotted) const;

  /// The files other than Path that launch its kernel Kernel, each with
  /// the texts its launches call the kernel by (`kernel`, `mod.kernel`);
  /// sorted by file (Launches.cpp).
  struct ForeignLaunch {
    std::string File;
    std::vector<std::string> Callees;
  };
  std::vector<ForeignLaunch> foreignLaunches(const std::string &Path,
                                             const std::string &Kernel) const;

  /// A hash of every cross-file fact the analysis of the file at Path can
  /// consume (Digest.cpp): for each of its definitions the reach() and
  /// profile() verdicts, with their reasons, and every importedJit() answer
  /// for its names. The scan's cache (tools/kvlint/Cache.h) reuses the
  /// file's findings only while this is unchanged.
  ///
  /// EVERY NEW CROSS-FILE FACT that an analysis of one file reads (a method
  /// added here, a field the frontends query) MUST be added to factsDigest,
  /// or a warm scan reports what a cold scan would not. Digest.cpp marks
  /// where the foreign launch facts go. The driver keeps each file's digest
  /// under the digest of the model's inputs (tools/kvlint/Driver.cpp,
  /// ProjectInputs: every Python file's path and bytes, and ProjectConfig):
  /// a new kind of input to build() (C++ files, a config field) MUST be
  /// added there too.
  std::string factsDigest(const std::string &Path) const;

  /// What every call of function Func of the file at Path passes for its
  /// parameter Param, as a tensor (Callers.cpp): Known when there is at
  /// least one call and each passes a contiguous tensor it allocates (or
  /// passes on a parameter that its own callers fill so), all of one rank.
  /// Answered for the parameters of functions that launch a kernel.
  struct CallerTensor {
    bool Known = false;
    unsigned Calls = 0;             ///< the allocations found, wrappers followed
    std::vector<std::string> Sizes; ///< outermost first; "?" where calls disagree
    std::string Where;              ///< "pkg/layer.py:410 allocates it (2-D, contiguous)"
  };
  CallerTensor callerTensor(const std::string &Path, const std::string &Func,
                            const std::string &Param) const;

  struct Stats {
    size_t Files = 0, Defs = 0, Kernels = 0, KernelsReached = 0, KernelsOnlyTests = 0;
  };
  Stats stats() const;

private:
  struct Target {
    int File;
    int Def; ///< -1: the module itself
    bool operator<(const Target &O) const {
      return File != O.File ? File < O.File : Def < O.Def;
    }
    bool operator==(const Target &O) const { return File == O.File && Def == O.Def; }
  };
  struct FileInfo {
    FileSummary S;
    std::string Module; ///< canonical dotted name
    std::string Rel;    ///< relative to the root
    bool IsInit = false, InPackage = false, Test = false, Public = true, TopPackage = false;
    int ModNode = 0; ///< node of the module; node of Defs[i] is ModNode + 1 + i
    std::map<std::string, std::vector<int>> TopDefs; ///< functions and classes
    std::map<std::string, std::vector<int>> Binds;   ///< local name -> Imports
    std::vector<int> Stars;                          ///< wildcard Imports
    std::vector<std::string> Importers;              ///< files that import it
  };
  ProjectConfig Cfg;
  std::vector<FileInfo> Files;
  std::map<std::string, int> ByPath;
  std::map<std::string, std::vector<int>> ByModule;
  std::vector<std::vector<int>> Edges;
  std::vector<int> NodeFile, NodeDef;
  /// lookupIn's answers, by file, name and Submodules; InProgress breaks
  /// import cycles. Filled during build (single-threaded); read-only after.
  struct LookupKey {
    int File;
    std::string Name;
    bool Sub;
    bool operator<(const LookupKey &O) const {
      return File != O.File ? File < O.File : Sub != O.Sub ? Sub < O.Sub : Name < O.Name;
    }
  };
  struct LookupMemo {
    bool InProgress = false;
    std::vector<Target> Out;
  };
  mutable std::map<LookupKey, LookupMemo> Memo;
  std::vector<char> Reached;   ///< from the roots
  std::vector<int> RootNodes;  ///< the roots, tests left out
  /// Edges that only say "public API" (a public module's function, what an
  /// `__init__` binds): Profile.cpp follows them only to a definition that
  /// nothing reached calls.
  std::vector<std::pair<int, int>> ApiOnly;
  /// Profile.cpp: the node a path from the roots avoiding training code
  /// came from (-2: none), and from the training entries (-2: none).
  std::vector<int> InfParent, TrainParent;
  std::vector<char> Gate; ///< forward/backward of an autograd.Function, training modules
  /// (file, a dotted name its kernels use) -> the @triton.jit helper of
  /// another module it denotes, with a return fact (importedJit).
  std::map<std::pair<int, std::string>, Target> Jits;
  std::vector<int> TestParent; ///< with tests as roots too: the node it came from (-2: not)

  /// (file, kernel name) -> its launches in other files (Launches.cpp)
  std::map<std::pair<int, std::string>, std::vector<ForeignLaunch>> Foreign;
  void linkLaunches();

  // Link.cpp
  void nameModules();
  int fileAt(const std::string &Path) const;
  std::vector<int> modulesNamed(const std::string &Dotted) const;
  std::vector<int> importedModules(int F, const Import &I) const;
  void lookupIn(int F, const std::string &Name, bool Submodules, unsigned Depth,
                std::vector<Target> &Out) const;
  void lookupUncached(int F, const std::string &Name, bool Submodules, unsigned Depth,
                      std::vector<Target> &Out) const;
  void bindingTargets(int F, const Import &I, unsigned Depth, std::vector<Target> &Out) const;
  std::vector<Target> resolveRef(int F, const std::string &Dotted) const;
  std::vector<Target> resolveString(int F, const std::string &S) const;

  // Dispatch.cpp
  /// A node reached by no path but a branch no call takes -> why.
  std::map<int, std::string> BranchWhy;
  bool stringArg(int F, const std::string &Text, std::string &Out, std::string &Where) const;
  bool deadBranch(int F, int Def, const std::string &Param, const std::vector<std::string> &Values,
                  std::string &Why) const;
  /// The string values every call of definition Def of file F passes for
  /// Param (Known false when some call passes something else).
  struct PassedValues {
    bool Known = false;
    unsigned Calls = 0;
    std::set<std::string> Values;
    std::string First; ///< the first call, for the reason
  };
  const PassedValues &passedValues(int F, int Def, const std::string &Param) const;
  mutable std::map<std::tuple<int, int, std::string>, PassedValues> Passed;
  mutable std::map<std::string, std::vector<std::pair<int, int>>> CallsByName;
  const std::vector<std::pair<int, int>> &callsNamed(const std::string &Name) const;
  /// The index into C.Args of the argument call C passes for parameter
  /// Param of D; -1 when it passes none (the default), -2 when that cannot
  /// be told (`*args`, `**kwargs`, arguments past those kept). Callers.cpp.
  static int argIndex(const CallSite &C, const Definition &D, const std::string &Param);
  static bool keyword(const std::string &A, std::string &Name, std::string *Value = nullptr);

  // Callers.cpp
  mutable std::map<std::tuple<int, int, std::string>, CallerTensor> Tensors;
  const CallerTensor &callerTensorAt(int F, int Def, const std::string &Param,
                                     unsigned Depth) const;
  void linkCallerTensors();
  const std::vector<std::string> &aliasesOf(const std::string &Name) const;
  mutable std::map<std::string, std::vector<std::string>> Aliases; ///< by imported name
  bool passedAsValue(const std::string &Name) const;
  mutable std::set<std::string> ValueArgs; ///< names passed as arguments ("" once computed)

  // Reach.cpp
  bool isTestFunction(const Target &T) const;
  void buildGraph();
  void computeReach();
  std::string whyUnreached(int Node) const;

  // Profile.cpp
  void computeProfiles();
  bool autogradClass(int F, int Def, unsigned Depth, bool &HasBackward) const;
  std::string nodeName(int Node) const;
  std::string nodeWhere(int Node) const;
};

} // namespace project
} // namespace kvlint

#endif
