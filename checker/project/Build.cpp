//===- Build.cpp - the project model of a scan, and the findings' post-pass ===//
//
// The project's Python files are found by walking the project root (not
// only the scanned inputs: scanning one directory still sees its callers
// elsewhere), read, and summarised in parallel. The walk reads the tree as
// hostile (DESIGN.md §8): it follows no link, opens only regular files, and
// skips files over 16 MiB.
//
//===----------------------------------------------------------------------===//
#include "project/Build.h"
#include "kvlint/Parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace kvlint {
namespace project {

namespace {

/// KVLINT_TIMING=1: the phases' wall times on stderr.
class Timing {
public:
  explicit Timing(const char *What)
      : What(What), On(std::getenv("KVLINT_TIMING") != nullptr), Last(Clock::now()) {}
  void operator()(const char *Phase) {
    auto T = Clock::now();
    if (On)
      std::fprintf(stderr, "kvlint: timing: %s: %s %.3f s\n", What, Phase,
                   std::chrono::duration<double>(T - Last).count());
    Last = T;
  }

private:
  using Clock = std::chrono::steady_clock;
  const char *What;
  bool On;
  Clock::time_point Last;
};

std::string canonical(const std::string &P) {
  std::error_code EC;
  fs::path A = fs::weakly_canonical(fs::absolute(P, EC), EC);
  return EC ? fs::absolute(P).lexically_normal().string() : A.string();
}

bool hasMarker(const fs::path &D) {
  std::error_code EC;
  for (const char *M : {".git", "pyproject.toml", "setup.py", "setup.cfg"})
    if (fs::exists(D / M, EC))
      return true;
  return false;
}

} // namespace

std::string projectRoot(const std::string &Explicit, const std::vector<std::string> &Inputs) {
  if (!Explicit.empty())
    return canonical(Explicit);
  for (const std::string &In : Inputs) {
    std::error_code EC;
    if (!fs::is_directory(In, EC))
      continue;
    fs::path D = canonical(In);
    while (fs::exists(D / "__init__.py", EC) && D.has_parent_path() && D.parent_path() != D)
      D = D.parent_path();
    fs::path Up = D;
    for (int I = 0; I < 3; ++I) {
      if (hasMarker(Up))
        return Up.string();
      if (!Up.has_parent_path() || Up.parent_path() == Up)
        break;
      Up = Up.parent_path();
    }
    return D.string();
  }
  return "";
}

std::string canonicalPath(const std::string &Path) { return canonical(Path); }

bool inputsInTests(const std::string &Root, const std::vector<std::string> &Inputs) {
  for (const std::string &In : Inputs) {
    std::string P = canonical(In);
    if (P.rfind(Root + "/", 0) != 0)
      continue;
    std::string Rel = P.substr(Root.size() + 1);
    std::error_code EC;
    if (fs::is_directory(P, EC))
      Rel += "/x.py";
    if (isTestPath(Rel))
      return true;
  }
  return false;
}

std::vector<std::string> pythonFiles(const std::string &Root) {
  std::vector<std::string> Out;
  std::error_code EC;
  fs::recursive_directory_iterator It(Root, fs::directory_options::skip_permission_denied, EC),
      End;
  if (EC)
    return Out;
  for (; It != End; It.increment(EC)) {
    if (EC) {
      EC.clear();
      continue;
    }
    std::string Name = It->path().filename().string();
    std::error_code E2;
    if (It->is_symlink(E2)) {
      It.disable_recursion_pending();
      continue;
    }
    if (It->is_directory(E2)) {
      if ((!Name.empty() && Name[0] == '.') || Name == "__pycache__" || Name == "node_modules" ||
          Name == "site-packages")
        It.disable_recursion_pending();
      continue;
    }
    if (Name.size() > 3 && Name.compare(Name.size() - 3, 3, ".py") == 0 &&
        It->is_regular_file(E2) && It->file_size(E2) <= (16u << 20))
      Out.push_back(It->path().lexically_normal().string());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// FNV-1a of a file's bytes, when no store hashes them.
static std::string contentKey(const std::string &Src) {
  uint64_t H = 0xcbf29ce484222325ull;
  for (unsigned char C : Src)
    H = (H ^ C) * 0x100000001b3ull;
  return std::to_string(Src.size()) + ":" + std::to_string(H);
}

void buildProject(const ProjectConfig &C, unsigned Jobs, const Summariser &Summarise,
                  ProjectModel &Out, const SummaryStore *Store) {
  Timing T("project");
  std::vector<std::string> Paths = pythonFiles(C.Root);
  T("walk");
  std::vector<FileSummary> Sums(Paths.size());
  if (!Jobs)
    Jobs = std::max(1u, std::thread::hardware_concurrency());
  Jobs = std::min<unsigned>(Jobs, std::max<size_t>(1, Paths.size()));
  forEachIndex(Paths.size(), Jobs, [&](size_t I) {
    std::ifstream In(Paths[I], std::ios::binary);
    std::ostringstream SS;
    if (In)
      SS << In.rdbuf();
    std::string Src = SS.str();
    std::string Key = Store ? Store->Hash(Src) : "";
    if (!Store || !Store->Load(Paths[I], Key, Sums[I])) {
      Sums[I] = Summarise(Paths[I], Src);
      if (Store)
        Store->Store(Paths[I], Key, Sums[I]);
    }
    Sums[I].Path = Paths[I];
    Sums[I].ContentKey = Key.empty() ? contentKey(Src) : Key;
  });
  T("summaries");
  Out.build(std::move(Sums), C);
  T("link and reach");
}

unsigned demoteUnreached(const ProjectModel &M, const std::string &Path, const Options &Opts,
                         std::vector<Finding> &Findings) {
  if (M.empty() || Findings.empty())
    return 0;
  std::string P = canonical(Path);
  unsigned Dropped = 0;
  std::vector<Finding> Kept;
  for (Finding &F : Findings) {
    ProjectModel::Verdict V = M.reach(P, F.Function);
    if (!V.Known || V.Reached) {
      Kept.push_back(std::move(F));
      continue;
    }
    std::string Level = Opts.get(F.Check + ".Level", Opts.get("Level", "default"));
    std::transform(Level.begin(), Level.end(), Level.begin(),
                   [](unsigned char C) { return std::tolower(C); });
    if (Level != "latent") {
      ++Dropped;
      continue;
    }
    F.Latent = true;
    Note N;
    N.Range.Begin.File = F.Range.Begin.File;
    N.Range.Begin.Line = V.Line;
    N.Range.Begin.Col = 1;
    N.Message = "reported only at the latent level: " + V.Why;
    F.Notes.push_back(N);
    Kept.push_back(std::move(F));
  }
  Findings.swap(Kept);
  return Dropped;
}

} // namespace project
} // namespace kvlint
