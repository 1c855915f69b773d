//===- FileWalk.cpp - which files a scan visits ---------------------------===//
#include "FileWalk.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace kvlint {

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

bool excluded(const std::string &P, const std::vector<std::string> &Excludes) {
  for (const std::string &E : Excludes)
    if (!E.empty() && P.find(E) != std::string::npos)
      return true;
  return false;
}

void collect(const std::string &Input, const std::vector<std::string> &Excludes,
             std::vector<std::string> &Files, std::vector<FileNote> &Notes) {
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
          excluded(It->path().string(), Excludes))
        It.disable_recursion_pending();
      continue;
    }
    if (!It->is_regular_file(E2) || !isSourceExt(Name) || excluded(It->path().string(), Excludes))
      continue;
    Found.push_back(It->path().lexically_normal().string());
  }
  std::sort(Found.begin(), Found.end());
  Files.insert(Files.end(), Found.begin(), Found.end());
}

void keepShard(std::vector<std::string> &Files, unsigned I, unsigned N) {
  if (N <= 1)
    return;
  std::vector<std::string> Mine;
  for (size_t K = 0; K < Files.size(); ++K)
    if (K % N == I)
      Mine.push_back(Files[K]);
  Files.swap(Mine);
}

} // namespace kvlint
