//===- Build.h - the project model of a scan, and its use --------*- C++ -*-===//
#ifndef KVLINT_PROJECT_BUILD_H
#define KVLINT_PROJECT_BUILD_H

#include "kvlint/Rule.h"
#include "project/Project.h"

#include <functional>
#include <string>
#include <vector>

namespace kvlint {
namespace project {

/// The project root of a scan: Explicit (--project-root) when given; else,
/// from the first directory among Inputs, up its package chain (directories
/// with `__init__.py`), then the nearest of that directory and the two above
/// it holding `.git`, `pyproject.toml`, `setup.py` or `setup.cfg` (else that
/// directory). "" when the inputs are only files: a scan of single files
/// keeps single-file facts. Absolute, symlinks resolved.
std::string projectRoot(const std::string &Explicit, const std::vector<std::string> &Inputs);

/// Path as the model keys it: absolute, normal, symlinks resolved.
std::string canonicalPath(const std::string &Path);

/// True when one of Inputs lies inside a test or benchmark directory of Root
/// (isTestPath): scanning tests asks for their kernels, so they are roots.
bool inputsInTests(const std::string &Root, const std::vector<std::string> &Inputs);

/// Every Python file below Root, sorted: hidden directories, __pycache__,
/// node_modules and site-packages skipped, links not followed, only regular
/// files.
std::vector<std::string> pythonFiles(const std::string &Root);

using Summariser = std::function<FileSummary(const std::string &Path, const std::string &Src)>;

/// Where summaries are kept across scans (the scan's cache,
/// tools/kvlint/Cache.h). Hash gives the key of a file's bytes; Load fills
/// the summary stored for (Path, key), false when there is none; Store keeps
/// a fresh one. Load and Store are called from several threads at once.
struct SummaryStore {
  std::function<std::string(const std::string &Src)> Hash;
  std::function<bool(const std::string &Path, const std::string &Key, FileSummary &S)> Load;
  std::function<void(const std::string &Path, const std::string &Key, const FileSummary &S)>
      Store;
};

/// Summarises every Python file below C.Root with Summarise on Jobs threads
/// (or takes its summary from Store, when given and it has one for the
/// file's bytes) and builds Out from them.
void buildProject(const ProjectConfig &C, unsigned Jobs, const Summariser &Summarise,
                  ProjectModel &Out, const SummaryStore *Store = nullptr);

/// The post-pass over one file's findings: a finding in a definition of
/// Path that no root reaches is kept only where its rule runs at the latent
/// level (the `<check>.Level` or `Level` option of Opts), marked Latent, with
/// the reason as a note at the definition; otherwise it is dropped. Returns
/// how many were dropped.
unsigned demoteUnreached(const ProjectModel &M, const std::string &Path, const Options &Opts,
                         std::vector<Finding> &Findings);

} // namespace project
} // namespace kvlint

#endif
