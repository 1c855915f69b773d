//===- CompileDb.cpp - flags from compile_commands.json -------------------===//
#include "CompileDb.h"
#include "SafeWrite.h"

#include "clang/Tooling/JSONCompilationDatabase.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace kvlint {

const std::vector<std::string> *DbFlags::find(const std::string &Path) const {
  if (ByFile.empty())
    return nullptr;
  std::error_code EC;
  auto It = ByFile.find(fs::weakly_canonical(Path, EC).string());
  return It == ByFile.end() ? nullptr : &It->second;
}

/// Flags that load code, read a driver config or write files.
static bool dangerous(const std::string &A) {
  static const char *Prefixes[] = {"--config", "-MF", "-MD", "-MMD", "-MJ", "-MT", "-MQ",
                                   "-fplugin", "-load", "-Xclang", "-Xpreprocessor", "-o",
                                   "--output", "-fpass-plugin", "-fprofile", "-save-temps",
                                   "-B", "--gcc-toolchain", "-ccc-", "-Wl,", "-Xlinker"};
  for (const char *P : Prefixes)
    if (A.rfind(P, 0) == 0)
      return true;
  return false;
}

std::vector<std::string> usefulFlags(const std::vector<std::string> &Cmd, const std::string &Dir,
                                     std::set<std::string> *Dropped) {
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
    if (Dropped && dangerous(A))
      Dropped->insert(A.substr(0, A.find('=')).substr(0, 24));
    for (const char *F : {"-I", "-isystem", "-iquote", "-include", "-D", "-U"}) {
      std::string Fl = F;
      if (A == Fl && I + 1 < Cmd.size()) {
        std::string V = Cmd[++I];
        bool Path = Fl != "-D" && Fl != "-U";
        if (Path && CudaDir(V))
          break;
        if (Path) {
          Out.push_back(Fl);
          Out.push_back(Abs(V)); // absolute: never read as an option
        } else {
          Out.push_back(Fl + V); // one argument: "-D" "--config=x" cannot split
        }
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

bool loadDb(const std::string &Dir, DbFlags &Db, std::string &Err,
            std::vector<std::string> *Notes) {
  std::string Text, E;
  std::string Path = Dir + "/compile_commands.json";
  if (!readRegularFile(Path, Text, E)) {
    Err = E;
    return false;
  }
  // LLVM's reader recurses per nesting level, and this file is the tree's:
  // a database nested a hundred thousand deep would overflow the driver's
  // stack. A real one nests three levels.
  int Depth = 0, Max = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      Max = std::max(Max, ++Depth);
    } else if (C == ']' || C == '}') {
      --Depth;
    }
  }
  if (Max > 32) {
    Err = "'" + Path + "' nests deeper than 32 levels; not a compile database";
    return false;
  }
  auto J = clang::tooling::JSONCompilationDatabase::loadFromBuffer(
      Text, E, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!J) {
    Err = E;
    return false;
  }
  std::set<std::string> Dropped;
  for (const auto &Cmd : J->getAllCompileCommands()) {
    std::string File = fs::path(Cmd.Filename).is_absolute()
                           ? Cmd.Filename
                           : (fs::path(Cmd.Directory) / Cmd.Filename).string();
    std::error_code EC;
    std::string Canon = fs::weakly_canonical(File, EC).string();
    Db.ByFile[Canon] = usefulFlags(Cmd.CommandLine, Cmd.Directory, &Dropped);
  }
  if (Notes && !Dropped.empty()) {
    std::string S = "compile database flags that load code or write files were dropped:";
    for (const std::string &D : Dropped)
      S += " " + D;
    Notes->push_back(S);
  }
  return true;
}

} // namespace kvlint
