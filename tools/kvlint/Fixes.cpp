//===- Fixes.cpp - --fix: apply fix-its in place --------------------------===//
#include "Fixes.h"

#include "kvlint/Report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kvlint {

int applyAllFixes(const std::vector<Finding> &Fs, std::ostream &Err) {
  std::map<std::string, std::vector<const FixIt *>> ByFile;
  // A fix-it edits its own file: a finding in a header helper also widens
  // the local of the kernel that uses it.
  for (const Finding &F : Fs)
    for (const FixIt &X : F.Fixes)
      ByFile[fixFile(F, X)].push_back(&X);
  int Failures = 0;
  for (auto &[Path, Fixes] : ByFile) {
    SourceCache SC;
    const std::string *T = SC.get(Path);
    if (!T) {
      Err << "kvlint: error: cannot re-read '" << Path << "' to fix it\n";
      ++Failures;
      continue;
    }
    std::string Text = *T;
    unsigned N = applyFixes(Text, Fixes);
    // Write a sibling temporary, then rename over the original: either the
    // old or the new file exists, never half of one.
    std::string Tmp = Path + ".kvlint-fix." + std::to_string(::getpid());
    {
      std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
      Out << Text;
      Out.close();
      if (!Out) {
        Err << "kvlint: error: cannot write '" << Tmp << "'; '" << Path << "' left unchanged\n";
        std::remove(Tmp.c_str());
        ++Failures;
        continue;
      }
    }
    std::error_code EC;
    fs::permissions(Tmp, fs::status(Path, EC).permissions(), EC);
    fs::rename(Tmp, Path, EC);
    if (EC) {
      Err << "kvlint: error: cannot replace '" << Path << "': " << EC.message() << "\n";
      std::remove(Tmp.c_str());
      ++Failures;
      continue;
    }
    Err << "kvlint: applied " << N << " edit(s) to " << Path << "\n";
  }
  return Failures;
}

} // namespace kvlint
