//===- Analyse.h - one file through a frontend and the rules ----*- C++ -*-===//
#ifndef KVLINT_TOOLS_ANALYSE_H
#define KVLINT_TOOLS_ANALYSE_H

#include "CompileDb.h"
#include "kvlint/Frontend.h"
#include "kvlint/IR.h"
#include "kvlint/Report.h"
#include "kvlint/Rule.h"
#include "project/Project.h"

#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace kvlint {

struct FileResult {
  std::vector<Finding> Findings;
  std::vector<FileNote> Notes;
  /// Said on stderr even without -v (the full note, with why, is in Notes).
  std::vector<FileNote> Loud;
  std::string DumpText;
  /// The hash of the bytes each file's fix-its were computed from (the file
  /// itself, and the headers its fixes edit): --fix refuses a file whose
  /// bytes changed since.
  std::map<std::string, std::string> Hashes;
  /// What the analysis read besides the file itself (LoweredFile::Read,
  /// Absent): the scan's cache (Cache.h) keys the result on them.
  std::vector<std::string> Read, Absent;
  unsigned Functions = 0;
  unsigned Unreached = 0; ///< findings dropped: in kernels no root of the project reaches
  bool Analysed = false;
  bool Skipped = false; ///< deliberately not analysed (no Triton frontend)
  bool Failed = false;
  bool Partial = false; ///< analysed, but part of it could not be (a gap)
};

/// What analysing one file needs besides its path.
struct AnalyseInput {
  const Options *Opts = nullptr; ///< frontend options (triton.UnknownLoadBits)
  const std::vector<std::unique_ptr<Rule>> *Rules = nullptr;
  const DbFlags *Db = nullptr;
  const std::vector<std::string> *Extra = nullptr; ///< flags after `--`
  const TreeDtypes *Tree = nullptr; ///< table dtypes the scan's Python files allocate
  /// The project model (checker/project/): findings in kernels no root
  /// reaches move to the latent level. Null: no project (files only).
  const project::ProjectModel *Project = nullptr;
  /// The files this run scans, canonical: a finding the file's kernels reach
  /// in a header (an accessor, an offset helper) is kept when the header is
  /// one of them.
  const std::set<std::string> *Scanned = nullptr;
  bool DumpIR = false;
  /// Larger source files are not analysed (a note says so).
  size_t MaxFileBytes = size_t(64) << 20;
};

/// Reads Path, lowers it with its frontend, runs the rules, keeps the
/// findings in the file itself, and in the scanned headers its kernels reach,
/// that no comment suppresses.
FileResult analyseFile(const std::string &Path, const AnalyseInput &In);

/// --dump-ir's text for one function.
void dumpFunction(const Function &F, std::ostream &OS);

} // namespace kvlint

#endif
