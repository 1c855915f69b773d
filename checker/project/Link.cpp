//===- Link.cpp - module names, imports and what a name denotes -----------===//
//
// A file's module name follows its `__init__.py` chain: `a/b/c.py` with
// `a/__init__.py` and `a/b/__init__.py` is `a.b.c`. A file is also found by
// its path relative to every directory above it that is no package (a `src/`
// layout's `src`, the project root, a namespace directory), so that absolute
// imports resolve however the tree puts its packages on the path. Relative
// imports resolve by path. Names resolve as Python's attribute lookup does:
// a module's definitions, then its import bindings (a re-export through an
// `__init__`), then its wildcard imports, then its submodules.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace kvlint {
namespace project {

namespace {

constexpr unsigned MaxLookupDepth = 12; // re-export chains followed

std::string dirOf(const std::string &P) {
  size_t S = P.rfind('/');
  return S == std::string::npos ? "" : P.substr(0, S);
}
std::string baseOf(const std::string &P) {
  size_t S = P.rfind('/');
  return S == std::string::npos ? P : P.substr(S + 1);
}

std::vector<std::string> splitDots(const std::string &S) {
  std::vector<std::string> Out;
  size_t B = 0;
  for (;;) {
    size_t E = S.find('.', B);
    Out.push_back(S.substr(B, E == std::string::npos ? std::string::npos : E - B));
    if (E == std::string::npos)
      break;
    B = E + 1;
  }
  return Out;
}

void addUnique(std::vector<int> &V, int X) {
  if (std::find(V.begin(), V.end(), X) == V.end())
    V.push_back(X);
}

} // namespace

bool isTestDirName(const std::string &C) {
  auto Ends = [&](const char *S) {
    size_t N = strlen(S);
    return C.size() > N && C.compare(C.size() - N, N, S) == 0;
  };
  return C == "test" || C == "tests" || C == "benchmark" || C == "benchmarks" ||
         Ends("_test") || Ends("_tests") || Ends("_benchmark") || Ends("_benchmarks") ||
         (C.size() > 5 && C.rfind("test_", 0) == 0) || (C.size() > 6 && C.rfind("tests_", 0) == 0);
}

bool isTestFunctionName(const std::string &Name) {
  size_t B = Name.find_first_not_of('_');
  if (B == std::string::npos)
    return false;
  std::string H = Name.substr(B, 5);
  std::transform(H.begin(), H.end(), H.begin(), ::tolower);
  return H.rfind("test", 0) == 0 || H.rfind("bench", 0) == 0;
}

bool isTestPath(const std::string &Rel) {
  size_t B = 0;
  for (;;) {
    size_t E = Rel.find('/', B);
    std::string C = Rel.substr(B, E == std::string::npos ? std::string::npos : E - B);
    if (E == std::string::npos) {
      if (C == "conftest.py" || C.rfind("test_", 0) == 0 ||
          (C.size() > 8 && C.compare(C.size() - 8, 8, "_test.py") == 0))
        return true;
      return false;
    }
    if (isTestDirName(C))
      return true;
    B = E + 1;
  }
}

int ProjectModel::fileAt(const std::string &Path) const {
  auto It = ByPath.find(Path);
  return It == ByPath.end() ? -1 : It->second;
}

void ProjectModel::nameModules() {
  for (size_t I = 0; I < Files.size(); ++I)
    ByPath[Files[I].S.Path] = int(I);
  auto HasInit = [&](const std::string &Dir) { return ByPath.count(Dir + "/__init__.py") != 0; };
  std::string Root = Cfg.Root;
  while (Root.size() > 1 && Root.back() == '/')
    Root.pop_back();
  for (size_t I = 0; I < Files.size(); ++I) {
    FileInfo &F = Files[I];
    const std::string &P = F.S.Path;
    F.Rel = P.rfind(Root + "/", 0) == 0 ? P.substr(Root.size() + 1) : P;
    F.Test = isTestPath(F.Rel);
    std::string Base = baseOf(P);
    F.IsInit = Base == "__init__.py";
    std::string Stem = Base.size() > 3 ? Base.substr(0, Base.size() - 3) : Base;
    std::string Dir = dirOf(P);
    // The canonical name: up the __init__ chain.
    std::vector<std::string> Parts;
    if (!F.IsInit)
      Parts.push_back(Stem);
    std::string D = Dir;
    if (F.IsInit) {
      Parts.push_back(baseOf(D));
      D = dirOf(D);
    }
    F.InPackage = F.IsInit || HasInit(Dir);
    while (!D.empty() && HasInit(D) && D.size() >= Root.size()) {
      Parts.push_back(baseOf(D));
      D = dirOf(D);
    }
    F.TopPackage = F.IsInit && !HasInit(dirOf(Dir));
    std::reverse(Parts.begin(), Parts.end());
    std::string Name;
    for (const std::string &X : Parts)
      Name += (Name.empty() ? "" : ".") + X;
    F.Module = Name;
    F.Public = true;
    for (const std::string &X : Parts)
      if (!X.empty() && X[0] == '_')
        F.Public = false;
    addUnique(ByModule[Name], int(I));
    // Also by the path from every directory above the package (or the loose
    // file), up to the root: `src/pkg/m.py` is `pkg.m` and `src.pkg.m`; a
    // namespace directory's file `ns/m.py` is `m` and `ns.m`.
    std::string Suffix = Name;
    for (std::string Up = D; Up.size() > Root.size(); Up = dirOf(Up)) {
      Suffix = baseOf(Up) + "." + Suffix;
      addUnique(ByModule[Suffix], int(I));
    }
  }
  // Local scopes.
  for (FileInfo &F : Files) {
    for (size_t J = 0; J < F.S.Defs.size(); ++J)
      if (F.S.Defs[J].Kind != Definition::Method)
        F.TopDefs[F.S.Defs[J].Name].push_back(int(J));
    for (size_t J = 0; J < F.S.Imports.size(); ++J) {
      const Import &Im = F.S.Imports[J];
      if (Im.Name == "*")
        F.Stars.push_back(int(J));
      else if (!Im.Local.empty())
        F.Binds[Im.Local].push_back(int(J));
    }
  }
}

std::vector<int> ProjectModel::modulesNamed(const std::string &Dotted) const {
  auto It = ByModule.find(Dotted);
  return It == ByModule.end() ? std::vector<int>() : It->second;
}

/// The modules an import statement names: for `import a.b.c`, a, a.b and
/// a.b.c (importing runs each); for `from X import y`, X and its packages.
std::vector<int> ProjectModel::importedModules(int F, const Import &I) const {
  std::vector<int> Out;
  if (I.Level > 0) {
    std::string Dir = dirOf(Files[F].S.Path);
    for (unsigned L = 1; L < I.Level && !Dir.empty(); ++L)
      Dir = dirOf(Dir);
    std::string P = Dir;
    for (const std::string &C : splitDots(I.Module)) {
      if (C.empty())
        continue;
      P += "/" + C;
      int M = fileAt(P + "/__init__.py");
      if (M >= 0)
        Out.push_back(M);
    }
    if (!I.Module.empty()) {
      int M = fileAt(P + ".py");
      if (M >= 0)
        addUnique(Out, M);
    } else {
      int M = fileAt(Dir + "/__init__.py");
      if (M >= 0)
        addUnique(Out, M);
    }
    return Out;
  }
  std::string Prefix;
  for (const std::string &C : splitDots(I.Module)) {
    Prefix += (Prefix.empty() ? "" : ".") + C;
    for (int M : modulesNamed(Prefix))
      addUnique(Out, M);
  }
  return Out;
}

void ProjectModel::bindingTargets(int F, const Import &I, unsigned Depth,
                                  std::vector<Target> &Out) const {
  if (Depth > MaxLookupDepth)
    return;
  if (I.Name.empty()) {
    // `import a.b` binds a; `import a.b as c` binds a.b.
    std::string First = splitDots(I.Module).front();
    for (int M : modulesNamed(I.Local == First ? First : I.Module))
      Out.push_back({M, -1});
    return;
  }
  std::vector<int> Mods = importedModules(F, I);
  // `from X import Name`: Name in X (X is the deepest module named).
  std::vector<int> From;
  if (I.Level > 0) {
    if (!Mods.empty())
      From.push_back(Mods.back());
  } else {
    From = modulesNamed(I.Module);
  }
  for (int M : From) {
    lookupIn(M, I.Name, true, Depth + 1, Out);
  }
}

/// Name looked up in module F: its definitions, its import bindings, its
/// wildcard imports, and (Submodules) a submodule of that name.
void ProjectModel::lookupIn(int F, const std::string &Name, bool Submodules, unsigned Depth,
                            std::vector<Target> &Out) const {
  if (Depth > MaxLookupDepth || F < 0)
    return;
  auto MI = Memo.find({F, Name, Submodules});
  if (MI != Memo.end()) {
    if (!MI->second.InProgress)
      Out.insert(Out.end(), MI->second.Out.begin(), MI->second.Out.end());
    return;
  }
  Memo[{F, Name, Submodules}].InProgress = true;
  std::vector<Target> Mine;
  lookupUncached(F, Name, Submodules, Depth, Mine);
  std::sort(Mine.begin(), Mine.end());
  Mine.erase(std::unique(Mine.begin(), Mine.end()), Mine.end());
  LookupMemo &M = Memo[{F, Name, Submodules}];
  M.InProgress = false;
  M.Out = Mine;
  Out.insert(Out.end(), Mine.begin(), Mine.end());
}

void ProjectModel::lookupUncached(int F, const std::string &Name, bool Submodules,
                                  unsigned Depth, std::vector<Target> &Out) const {
  const FileInfo &FI = Files[F];
  size_t Before = Out.size();
  auto D = FI.TopDefs.find(Name);
  if (D != FI.TopDefs.end())
    for (int J : D->second)
      Out.push_back({F, J});
  auto B = FI.Binds.find(Name);
  if (B != FI.Binds.end())
    for (int J : B->second) {
      const Import &Im = FI.S.Imports[J];
      // `from . import x` in a package's __init__ binds the submodule x;
      // looking x up again in the same file would loop.
      if (Im.Level > 0 && Im.Module.empty() && Im.Name == Name) {
        std::string Dir = dirOf(FI.S.Path);
        for (unsigned L = 1; L < Im.Level && !Dir.empty(); ++L)
          Dir = dirOf(Dir);
        for (const char *Suffix : {".py", "/__init__.py"}) {
          int M = fileAt(Dir + "/" + Name + Suffix);
          if (M >= 0)
            Out.push_back({M, -1});
        }
        std::vector<int> Mods = importedModules(F, Im);
        for (int M : Mods)
          if (M != F)
            lookupIn(M, Name, false, Depth + 1, Out);
        continue;
      }
      bindingTargets(F, Im, Depth + 1, Out);
    }
  if (Out.size() == Before)
    for (int J : FI.Stars) {
      const Import &Im = FI.S.Imports[J];
      std::vector<int> Mods = Im.Level > 0 ? importedModules(F, Im) : modulesNamed(Im.Module);
      if (Im.Level > 0 && !Mods.empty())
        Mods = {Mods.back()};
      for (int M : Mods) {
        // A wildcard imports the module's __all__, else its public names.
        const FileSummary &S = Files[M].S;
        bool Listed = S.HasAll ? std::find(S.All.begin(), S.All.end(), Name) != S.All.end()
                               : !(Name.size() && Name[0] == '_');
        if (M != F && Listed)
          lookupIn(M, Name, false, Depth + 1, Out);
      }
    }
  if (Submodules && Out.size() == Before) {
    std::string Dir = FI.IsInit ? dirOf(FI.S.Path) : "";
    if (!Dir.empty())
      for (const char *Suffix : {".py", "/__init__.py"}) {
        int M = fileAt(Dir + "/" + Name + Suffix);
        if (M >= 0)
          Out.push_back({M, -1});
      }
    if (Out.size() == Before && !FI.Module.empty())
      for (int M : modulesNamed(FI.Module + "." + Name))
        Out.push_back({M, -1});
  }
}

/// What `a.b.c` in file F denotes, with every prefix's targets (a module
/// on the way is imported, so its code runs).
std::vector<ProjectModel::Target> ProjectModel::resolveRef(int F, const std::string &Dotted) const {
  std::vector<std::string> Parts = splitDots(Dotted);
  std::vector<Target> Cur, All;
  lookupIn(F, Parts[0], false, 0, Cur);
  All = Cur;
  size_t From = 1;
  // `import a.b.c` then `a.b.c.f`: the longest prefix that names a module.
  auto B = Files[F].Binds.find(Parts[0]);
  bool Plain = false;
  if (B != Files[F].Binds.end())
    for (int J : B->second) {
      const Import &Im = Files[F].S.Imports[J];
      Plain |= Im.Name.empty() && Im.Local == splitDots(Im.Module).front();
    }
  if (Plain)
    for (size_t K = Parts.size(); K >= 2; --K) {
      std::string P = Parts[0];
      for (size_t I = 1; I < K; ++I)
        P += "." + Parts[I];
      std::vector<int> Mods = modulesNamed(P);
      if (Mods.empty())
        continue;
      Cur.clear();
      for (int M : Mods)
        Cur.push_back({M, -1});
      All.insert(All.end(), Cur.begin(), Cur.end());
      From = K;
      break;
    }
  for (size_t I = From; I < Parts.size() && !Cur.empty(); ++I) {
    std::vector<Target> Next;
    for (const Target &T : Cur) {
      if (T.Def < 0) {
        lookupIn(T.File, Parts[I], true, 0, Next);
        continue;
      }
      const Definition &D = Files[T.File].S.Defs[T.Def];
      if (D.Kind == Definition::Class)
        for (size_t J = 0; J < Files[T.File].S.Defs.size(); ++J) {
          const Definition &M = Files[T.File].S.Defs[J];
          if (M.Kind == Definition::Method && M.Owner == D.Name && M.Name == Parts[I])
            Next.push_back({T.File, int(J)});
        }
    }
    std::sort(Next.begin(), Next.end());
    Next.erase(std::unique(Next.begin(), Next.end()), Next.end());
    All.insert(All.end(), Next.begin(), Next.end());
    Cur.swap(Next);
  }
  std::sort(All.begin(), All.end());
  All.erase(std::unique(All.begin(), All.end()), All.end());
  return All;
}

/// What a string that reads as a module path names (Summary.h,
/// Definition::Strings): `pkg.mod`, `pkg.mod:attr`, `.mod` (relative to the
/// file's package), or a prefix `pkg.models.` (every module below it).
std::vector<ProjectModel::Target> ProjectModel::resolveString(int F,
                                                              const std::string &S) const {
  std::vector<Target> Out;
  std::string Mod = S, Attr;
  size_t Colon = S.find(':');
  if (Colon != std::string::npos) {
    Mod = S.substr(0, Colon);
    Attr = S.substr(Colon + 1);
  }
  if (Mod.empty())
    return Out;
  if (Mod[0] == '.') {
    const FileInfo &FI = Files[F];
    std::string Base = FI.IsInit ? FI.Module : FI.Module.substr(0, FI.Module.rfind('.') == std::string::npos ? 0 : FI.Module.rfind('.'));
    size_t Dots = Mod.find_first_not_of('.');
    size_t Up = Dots == std::string::npos ? Mod.size() : Dots;
    for (size_t I = 1; I < Up && !Base.empty(); ++I)
      Base = Base.substr(0, Base.rfind('.') == std::string::npos ? 0 : Base.rfind('.'));
    if (Base.empty())
      return Out;
    // All dots: an f-string's head, every module of that package.
    Mod = Base + "." + (Dots == std::string::npos ? "" : Mod.substr(Dots));
  }
  if (Mod.back() == '.') {
    for (auto It = ByModule.lower_bound(Mod); It != ByModule.end() &&
                                              It->first.compare(0, Mod.size(), Mod) == 0;
         ++It)
      for (int M : It->second)
        Out.push_back({M, -1});
  } else {
    // `pkg.mod.Class` (a worker class named by a string): the module and
    // the attribute.
    size_t Dot = Mod.rfind('.');
    if (Attr.empty() && modulesNamed(Mod).empty() && Dot != std::string::npos) {
      Attr = Mod.substr(Dot + 1);
      Mod = Mod.substr(0, Dot);
    }
    for (int M : modulesNamed(Mod)) {
      Out.push_back({M, -1});
      if (!Attr.empty())
        lookupIn(M, Attr, true, 0, Out);
    }
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

std::string ProjectModel::moduleOf(const std::string &Path) const {
  int F = fileAt(Path);
  return F < 0 ? "" : Files[F].Module;
}

std::vector<std::string> ProjectModel::resolve(const std::string &Path,
                                               const std::string &Dotted) const {
  std::vector<std::string> Out;
  int F = fileAt(Path);
  if (F < 0)
    return Out;
  for (const Target &T : resolveRef(F, Dotted)) {
    std::string S = Files[T.File].Module;
    if (T.Def >= 0) {
      const Definition &D = Files[T.File].S.Defs[T.Def];
      S += ":" + (D.Kind == Definition::Method ? D.Owner + "." : std::string()) + D.Name;
    }
    Out.push_back(S);
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

} // namespace project
} // namespace kvlint
