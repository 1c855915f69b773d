//===- CompileDb.cpp - flags from compile_commands.json -------------------===//
#include "CompileDb.h"

#include "clang/Tooling/JSONCompilationDatabase.h"

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

std::vector<std::string> usefulFlags(const std::vector<std::string> &Cmd, const std::string &Dir) {
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
    for (const char *F : {"-I", "-isystem", "-iquote", "-include", "-D", "-U"}) {
      std::string Fl = F;
      if (A == Fl && I + 1 < Cmd.size()) {
        std::string V = Cmd[++I];
        bool Path = Fl != "-D" && Fl != "-U";
        if (Path && CudaDir(V))
          break;
        Out.push_back(Fl);
        Out.push_back(Path ? Abs(V) : V);
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

bool loadDb(const std::string &Dir, DbFlags &Db, std::string &Err) {
  std::string E;
  auto J = clang::tooling::JSONCompilationDatabase::loadFromDirectory(Dir, E);
  if (!J) {
    Err = E;
    return false;
  }
  for (const auto &Cmd : J->getAllCompileCommands()) {
    std::string File = fs::path(Cmd.Filename).is_absolute()
                           ? Cmd.Filename
                           : (fs::path(Cmd.Directory) / Cmd.Filename).string();
    std::error_code EC;
    std::string Canon = fs::weakly_canonical(File, EC).string();
    Db.ByFile[Canon] = usefulFlags(Cmd.CommandLine, Cmd.Directory);
  }
  return true;
}

} // namespace kvlint
