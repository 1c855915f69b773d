//===- FileWalk.cpp - which files a scan visits ---------------------------===//
#include "FileWalk.h"
#include "SafeWrite.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include "kvlint/Pattern.h"
#include "project/Project.h"

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

std::string safeName(const std::string &P) {
  return !P.empty() && P[0] == '-' ? "./" + P : P;
}

bool isTestDir(const std::string &Name) { return project::isTestDirName(Name); }

void collect(const std::string &Input, const std::vector<std::string> &Excludes,
             std::vector<std::string> &Files, std::vector<FileNote> &Notes, WalkSkips &Skips) {
  std::error_code EC;
  if (Input.empty()) {
    Notes.push_back({"''", "an empty path names no file", true});
    return;
  }
  fs::file_status St = fs::status(Input, EC);
  if (EC || !fs::exists(St)) {
    std::string Kind = specialKind(Input);
    Notes.push_back({Input, EC && EC != std::errc::no_such_file_or_directory
                                ? EC.message()
                                : Kind.empty() ? "no such file or directory" : Kind,
                     true});
    return;
  }
  if (fs::is_regular_file(St)) {
    Files.push_back(safeName(Input));
    return;
  }
  if (!fs::is_directory(St)) {
    Notes.push_back({Input, "is " + specialKind(Input) + ", not a regular file or directory; "
                            "not analysed",
                     true});
    return;
  }
  // An explicit walk, one directory at a time: every directory that cannot
  // be read, and every special file or dangling link with a source
  // extension, gets a note; directory symlinks are not followed (no loops).
  std::vector<std::string> Found;
  struct Dir {
    fs::path Path;
    int Depth;
    bool InTests;
  };
  std::vector<Dir> Stack = {{fs::path(Input), 0, false}};
  while (!Stack.empty()) {
    Dir D = std::move(Stack.back());
    Stack.pop_back();
    fs::directory_iterator It(D.Path, EC), End;
    if (EC) {
      Notes.push_back({D.Path.string(), "directory not scanned: " + EC.message(), D.Depth == 0});
      Skips.UnreadableDirs += D.Depth > 0;
      EC.clear();
      continue;
    }
    std::vector<Dir> Sub;
    for (; It != End; It.increment(EC)) {
      if (EC) {
        Notes.push_back({D.Path.string(), "error while listing: " + EC.message(), false});
        break;
      }
      const fs::path &P = It->path();
      std::string Name = P.filename().string();
      std::error_code E2;
      fs::file_status L = It->symlink_status(E2);
      if (E2)
        continue;
      if (fs::is_directory(L)) {
        if ((!Name.empty() && Name[0] == '.') || Name == "__pycache__" || Name == "node_modules" ||
            excluded(P.string(), Excludes))
          continue;
        Sub.push_back({P, D.Depth + 1, D.InTests || (Skips.Tests && isTestDir(Name))});
        continue;
      }
      if (!isSourceExt(Name) || excluded(P.string(), Excludes))
        continue;
      fs::file_status T = It->status(E2); // through a symlink
      if (E2 || !fs::is_regular_file(T)) {
        if (fs::is_directory(T))
          continue; // a symlink to a directory named like a source: not followed
        std::string Kind = specialKind(P.string());
        Notes.push_back({safeName(P.lexically_normal().string()),
                         "skipped: " + (Kind.empty() ? std::string("not a regular file") : Kind),
                         false});
        ++Skips.SpecialFiles;
        continue;
      }
      if (D.InTests) {
        ++Skips.TestFiles;
        continue;
      }
      if (Skips.Generated && isGenerated(P.string())) {
        ++Skips.GeneratedFiles;
        continue;
      }
      Found.push_back(safeName(P.lexically_normal().string()));
    }
    EC.clear();
    // Depth-first in name order, as the sorted list below is anyway.
    std::sort(Sub.begin(), Sub.end(),
              [](const Dir &A, const Dir &B) { return A.Path.string() > B.Path.string(); });
    for (Dir &S : Sub)
      Stack.push_back(std::move(S));
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
