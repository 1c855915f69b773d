//===- FileWalk.cpp - which files a scan visits ---------------------------===//
#include "FileWalk.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include "kvlint/Pattern.h"

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

bool isGenerated(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  static const Pattern Marker = Pattern::builtin(
      "@generated|do not edit|(this|the) file (is|was|has been) (auto(matically)?[- ]?)?generated|"
      "^auto-?generated|^generated (by|from) |generated body");
  static const std::string Doc1 = "\"\"\"", Doc2 = "'''";
  // A module docstring's prose may say "auto-generated tensors": there only
  // the explicit markers count.
  static const Pattern DocMarker = Pattern::builtin(
      "@generated|do not edit|(this|the) (file|module) (is|was|has been) "
      "(auto(matically)?[- ]?)?generated");
  // The header: the comments (and preprocessor lines, a module docstring)
  // before the first line of code, within the first 40 lines.
  bool InBlock = false;
  std::string InDoc; // the quotes that close a module docstring
  std::string Line;
  for (unsigned N = 0; N < 40 && std::getline(In, Line); ++N) {
    size_t B = Line.find_first_not_of(" \t\r");
    if (B == std::string::npos)
      continue;
    std::string T = Line.substr(B, 400), Text;
    bool Doc = !InDoc.empty();
    if (InBlock) {
      Text = T;
      InBlock = T.find("*/") == std::string::npos;
    } else if (!InDoc.empty()) {
      Text = T;
      if (T.find(InDoc) != std::string::npos)
        InDoc.clear();
    } else if (T.rfind("//", 0) == 0) {
      Text = T.substr(2);
    } else if (T.rfind("/*", 0) == 0) {
      Text = T.substr(2);
      InBlock = T.find("*/", 2) == std::string::npos;
    } else if (T.rfind(Doc1, 0) == 0 || T.rfind(Doc2, 0) == 0) {
      std::string Q = T.substr(0, 3);
      Text = T.substr(3);
      Doc = true;
      if (T.find(Q, 3) == std::string::npos)
        InDoc = Q;
    } else if (T[0] == '#') {
      static const char *Pre[] = {"#include", "#pragma", "#define", "#if", "#endif", "#else"};
      bool Directive = false;
      for (const char *P : Pre)
        Directive |= T.rfind(P, 0) == 0;
      if (Directive)
        continue;
      Text = T.substr(1); // a Python comment
    } else {
      return false; // the first line of code ends the header
    }
    size_t CB = Text.find_first_not_of(" \t!*/");
    if (CB != std::string::npos && (Doc ? DocMarker : Marker).search(Text.substr(CB)))
      return true;
  }
  return false;
}

bool isTestDir(const std::string &Name) {
  return Name == "test" || Name == "tests" || Name == "benchmarks";
}

void collect(const std::string &Input, const std::vector<std::string> &Excludes,
             std::vector<std::string> &Files, std::vector<FileNote> &Notes, WalkSkips &Skips) {
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
  // The test directory the walk is in (its depth), whose files are counted
  // and left out.
  int InTests = -1;
  for (; It != End; It.increment(EC)) {
    if (EC) {
      Notes.push_back({Input, "error while walking: " + EC.message(), false});
      EC.clear();
      continue;
    }
    std::string Name = It->path().filename().string();
    std::error_code E2;
    if (InTests >= 0 && It.depth() <= InTests)
      InTests = -1;
    if (It->is_directory(E2)) {
      if ((!Name.empty() && Name[0] == '.') || Name == "__pycache__" || Name == "node_modules" ||
          excluded(It->path().string(), Excludes))
        It.disable_recursion_pending();
      else if (InTests < 0 && Skips.Tests && isTestDir(Name))
        InTests = It.depth();
      continue;
    }
    if (!It->is_regular_file(E2) || !isSourceExt(Name) || excluded(It->path().string(), Excludes))
      continue;
    if (InTests >= 0) {
      ++Skips.TestFiles;
      continue;
    }
    if (Skips.Generated && isGenerated(It->path().string())) {
      ++Skips.GeneratedFiles;
      continue;
    }
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
