//===- FixDiff.cpp - --fix-diff: the fix-its as a unified diff ------------===//
#include "FixDiff.h"

#include "kvlint/Report.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace kvlint {
namespace {

/// Byte offsets where each line starts (line 1 at index 0).
std::vector<size_t> lineStarts(const std::string &T) {
  std::vector<size_t> S = {0};
  for (size_t I = 0; I < T.size(); ++I)
    if (T[I] == '\n' && I + 1 < T.size())
      S.push_back(I + 1);
  return S;
}

/// 0-based index of the line holding byte Off.
size_t lineOf(const std::vector<size_t> &Starts, size_t Off) {
  return size_t(std::upper_bound(Starts.begin(), Starts.end(), Off) - Starts.begin()) - 1;
}

std::vector<std::string> splitLines(const std::string &T, bool &NoNewline) {
  std::vector<std::string> L;
  size_t P = 0;
  while (P < T.size()) {
    size_t E = T.find('\n', P);
    if (E == std::string::npos) {
      L.push_back(T.substr(P));
      NoNewline = true;
      return L;
    }
    L.push_back(T.substr(P, E - P));
    P = E + 1;
  }
  NoNewline = false;
  return L;
}

std::string range(size_t Start, size_t Count) {
  // Unified diff: a zero-length range names the line before it.
  return std::to_string(Count ? Start : Start - 1) + (Count == 1 ? "" : "," + std::to_string(Count));
}

} // namespace

std::string fixesAsDiff(const std::vector<Finding> &Fs,
                        const std::function<std::string(const std::string &)> &Label,
                        unsigned &Files, unsigned &Edits) {
  Files = Edits = 0;
  std::map<std::string, std::vector<const FixIt *>> ByFile;
  for (const Finding &F : Fs)
    for (const FixIt &X : F.Fixes)
      ByFile[fixFile(F, X)].push_back(&X);
  std::ostringstream OS;
  SourceCache Src;
  for (auto &[Path, Fixes] : ByFile) {
    const std::string *T = Src.get(Path);
    if (!T)
      continue;
    // The edits --fix keeps: sorted, overlaps after the first dropped.
    std::stable_sort(Fixes.begin(), Fixes.end(), [](const FixIt *A, const FixIt *B) {
      return A->Begin.Offset < B->Begin.Offset;
    });
    std::vector<const FixIt *> Kept;
    size_t Reach = 0;
    for (const FixIt *X : Fixes) {
      if (X->Begin.Offset + X->Length > T->size() || (!Kept.empty() && X->Begin.Offset < Reach))
        continue;
      Kept.push_back(X);
      Reach = std::max<size_t>(Reach, X->Begin.Offset + X->Length);
    }
    if (Kept.empty())
      continue;
    std::vector<size_t> Starts = lineStarts(*T);
    size_t NLines = Starts.size();
    // Hunks: runs of edits whose lines (with 3 lines of context) touch.
    struct Hunk {
      size_t First, Last; // 0-based lines the edits touch
      std::vector<const FixIt *> Edits;
    };
    std::vector<Hunk> Hunks;
    for (const FixIt *X : Kept) {
      size_t A = lineOf(Starts, X->Begin.Offset);
      size_t B = lineOf(Starts, X->Begin.Offset + (X->Length ? X->Length - 1 : 0));
      if (!Hunks.empty() && A <= Hunks.back().Last + 6) {
        Hunks.back().Last = std::max(Hunks.back().Last, B);
        Hunks.back().Edits.push_back(X);
      } else {
        Hunks.push_back({A, B, {X}});
      }
    }
    std::string L = Label ? Label(Path) : Path;
    bool Abs = !L.empty() && L[0] == '/';
    OS << "--- " << (Abs ? "" : "a/") << L << "\n+++ " << (Abs ? "" : "b/") << L << "\n";
    long Delta = 0;
    for (const Hunk &H : Hunks) {
      size_t CtxA = H.First >= 3 ? H.First - 3 : 0;
      size_t CtxB = std::min(NLines - 1, H.Last + 3);
      size_t From = Starts[H.First];
      size_t To = H.Last + 1 < NLines ? Starts[H.Last + 1] : T->size();
      std::string Old = T->substr(From, To - From), New = Old;
      std::vector<FixIt> Local;
      for (const FixIt *X : H.Edits) {
        FixIt Y = *X;
        Y.Begin.Offset -= unsigned(From);
        Local.push_back(Y);
      }
      std::vector<const FixIt *> Ptrs;
      for (const FixIt &Y : Local)
        Ptrs.push_back(&Y);
      Edits += applyFixes(New, Ptrs);
      bool OldNoNl = false, NewNoNl = false;
      std::vector<std::string> OldL = splitLines(Old, OldNoNl), NewL = splitLines(New, NewNoNl);
      std::vector<std::string> Before, After;
      for (size_t K = CtxA; K < H.First; ++K) {
        bool Dummy;
        Before.push_back(splitLines(T->substr(Starts[K], Starts[K + 1] - Starts[K]), Dummy)[0]);
      }
      bool AfterNoNl = false;
      for (size_t K = H.Last + 1; K <= CtxB && K < NLines; ++K) {
        size_t E = K + 1 < NLines ? Starts[K + 1] : T->size();
        std::vector<std::string> One = splitLines(T->substr(Starts[K], E - Starts[K]), AfterNoNl);
        After.push_back(One.empty() ? "" : One[0]);
      }
      size_t OldCount = Before.size() + OldL.size() + After.size();
      size_t NewCount = Before.size() + NewL.size() + After.size();
      OS << "@@ -" << range(CtxA + 1, OldCount) << " +" << range(CtxA + 1 + Delta, NewCount)
         << " @@\n";
      for (const std::string &S : Before)
        OS << " " << S << "\n";
      for (size_t K = 0; K < OldL.size(); ++K) {
        OS << "-" << OldL[K] << "\n";
        if (OldNoNl && K + 1 == OldL.size())
          OS << "\\ No newline at end of file\n";
      }
      for (size_t K = 0; K < NewL.size(); ++K) {
        OS << "+" << NewL[K] << "\n";
        if (NewNoNl && K + 1 == NewL.size())
          OS << "\\ No newline at end of file\n";
      }
      for (size_t K = 0; K < After.size(); ++K) {
        OS << " " << After[K] << "\n";
        if (AfterNoNl && K + 1 == After.size())
          OS << "\\ No newline at end of file\n";
      }
      Delta += long(NewL.size()) - long(OldL.size());
    }
    ++Files;
  }
  return OS.str();
}

} // namespace kvlint
