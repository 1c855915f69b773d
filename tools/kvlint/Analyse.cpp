//===- Analyse.cpp - one file through a frontend and the rules ------------===//
#include "Analyse.h"
#include "FileWalk.h"
#include "SafeWrite.h"

#include "kvlint/ClangFrontend.h"
#include "kvlint/Frontend.h"
#include "project/Build.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kvlint {
namespace {

std::string describeGuard(const Guard &G) {
  static const char *How[] = {"if", "early-exit", "loop", "ternary", "logical", "mask"};
  return std::string(How[G.How]) + (G.Negated ? " !" : " ") + dump(G.Cond);
}

} // namespace

void dumpFunction(const Function &F, std::ostream &OS) {
  OS << "function " << F.Name << " (" << languageName(F.Lang) << (F.IsKernel ? ", kernel" : "")
     << ")\n";
  for (const CheckedProduct &P : F.Checked) {
    OS << "  checked";
    for (size_t I = 0; I < P.Factors.size(); ++I)
      OS << (I ? " * " : " ") << P.Factors[I];
    OS << " <= " << P.Max << " (" << P.Source << ")\n";
  }
  static const char *AK[] = {"load", "store", "address"};
  for (const Access &A : F.Accesses) {
    OS << "  " << A.Range.Begin.Line << ":" << A.Range.Begin.Col << " "
       << AK[int(A.AK)] << " " << dump(A.Addr) << "\n";
    if (A.Mask)
      OS << "    mask " << dump(A.Mask) << "\n";
    if (A.Other)
      OS << "    other " << dump(A.Other) << "\n";
    for (const Guard &G : A.Guards)
      OS << "    guard " << describeGuard(G) << "\n";
  }
}

FileResult analyseFile(const std::string &Path, const AnalyseInput &In) {
  FileResult R;
  std::string Src, Why;
  if (!readRegularFile(Path, Src, Why, In.MaxFileBytes)) {
    R.Notes.push_back({Path, Why + "; not analysed", true});
    R.Failed = true;
    return R;
  }
  R.Hashes[Path] = contentHash(Src);
  // Random bytes without NULs are no source either (the Triton frontend
  // says so for a .py itself, after its fast path for plain Python).
  if (std::string Why = notSourceText(Src); !Why.empty() && !hasExt(Path, {".py"})) {
    R.Notes.push_back({Path, Why, true});
    R.Failed = true;
    return R;
  }
  LoweredFile LF;
  if (hasExt(Path, {".py"})) {
    if (Src.find("triton") == std::string::npos) {
      R.Analysed = true; // plain Python: nothing to lower
      return R;
    }
#ifdef KVLINT_HAVE_TRITON
    LF = lowerTritonSource(Path, Src, *In.Opts, In.Tree, In.Project);
#else
    R.Notes.push_back({Path, "Triton frontend not built; file skipped", false});
    R.Skipped = true;
    return R;
#endif
  } else {
    ClangInput CI;
    CI.Path = Path;
    CI.Source = Src;
    CI.Lang = clangLanguageFor(Path, Src);
    if (const std::vector<std::string> *Flags = In.Db ? In.Db->find(Path) : nullptr)
      CI.DbArgs = *Flags;
    if (In.Extra)
      CI.ExtraArgs = *In.Extra;
    CI.HostPass = CI.Lang != Language::Cpp &&
                  (Src.find("__CUDA_ARCH__") != std::string::npos ||
                   Src.find("__HIP_DEVICE_COMPILE__") != std::string::npos);
    LF = lowerClangFile(CI);
  }
  R.Read = std::move(LF.Read);
  R.Absent = std::move(LF.Absent);
  for (const std::string &N : LF.Notes)
    R.Notes.push_back({Path, N, false});
  // Nothing silent: name what the parser could not read. A function with a
  // parse error is a note (-v); the parser giving up on the rest of the file
  // is said always, and -v says why.
  for (const LoweredFile::Gap &G : LF.Gaps) {
    if (!G.Function.empty()) {
      R.Notes.push_back({Path, "function '" + G.Function + "' (line " + std::to_string(G.Line) +
                                   ") not fully analysed: " + G.Why,
                         false});
      continue;
    }
    std::string Head = "nothing after line " + std::to_string(G.Line) +
                       " was analysed: the parser stopped there";
    R.Notes.push_back({Path, Head + ": " + G.Why, false});
    R.Loud.push_back({Path, Head + " (-v says why)", false});
  }
  R.Partial = !LF.Gaps.empty();
  if (LF.Failed) {
    R.Notes.push_back({Path, "could not be analysed", true});
    R.Failed = true;
    return R;
  }
  R.Analysed = true;
  R.Functions = unsigned(LF.Functions.size());
  std::ostringstream Dump;
  std::set<std::string> Limits;
  for (const auto &F : LF.Functions) {
    if (In.DumpIR)
      dumpFunction(*F, Dump);
    runRules(*In.Rules, *F, R.Findings);
    // What the frontend cut (nesting past MaxNodeDepth): said always.
    for (const std::string &L : F->Limits) {
      if (!Limits.insert(L).second)
        continue; // template instantiations, Triton specialisations
      R.Notes.push_back({Path, L, false});
      R.Loud.push_back({Path, L, false});
    }
  }
  R.DumpText = Dump.str();
  if (In.Project)
    R.Unreached = project::demoteUnreached(*In.Project, Path, *In.Opts, R.Findings);
  // The file itself, and the headers this scan covers: a product in a
  // header's helper is an offset only where a kernel uses it, and scanning
  // the header alone sees no such use. The driver dedupes a header's
  // findings reached from several files.
  std::map<std::string, bool> InScan;
  auto Covered = [&](const std::string &File) {
    if (File == Path)
      return true;
    if (!In.Scanned || File.empty())
      return false;
    auto It = InScan.find(File);
    if (It == InScan.end()) {
      std::error_code EC;
      std::string C = std::filesystem::weakly_canonical(File, EC).string();
      It = InScan.emplace(File, !EC && In.Scanned->count(C) != 0).first;
    }
    return It->second;
  };
  R.Findings.erase(std::remove_if(R.Findings.begin(), R.Findings.end(),
                                  [&](const Finding &F) { return !Covered(F.Range.Begin.File); }),
                   R.Findings.end());
  SourceCache One;
  One.put(Path, Src);
  Suppressions Suppressed(One);
  R.Findings.erase(std::remove_if(R.Findings.begin(), R.Findings.end(), std::ref(Suppressed)),
                   R.Findings.end());
  dedupeAndSort(R.Findings);
  // The headers whose bytes a fix-it edits: hashed now, checked by --fix.
  for (const Finding &F : R.Findings)
    for (const FixIt &X : F.Fixes) {
      const std::string &File = fixFile(F, X);
      if (R.Hashes.count(File))
        continue;
      std::string Text, E;
      R.Hashes[File] = readRegularFile(File, Text, E) ? contentHash(Text) : "";
    }
  return R;
}

} // namespace kvlint
