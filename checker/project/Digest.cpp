//===- Digest.cpp - the cross-file facts one file's analysis can consume --===//
//
// The scan's cache (tools/kvlint/Cache.h) reuses a file's findings only
// when everything they were computed from is unchanged. For a file of the
// project that includes what the model says about it, which other files
// decide: factsDigest serialises every such fact, for that file only, and
// hashes it. A file whose digest is unchanged is not re-analysed even when
// other files changed; one whose reachability, profile or imported helpers
// moved is.
//
// Every fact of the model that an analysis of one file reads (through
// reach, profile, importedJit, or anything added later) MUST be written
// here, or a warm scan reports what a cold one would not.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"
#include "project/SummaryIO.h"

#include <cstdio>
#include <set>

namespace kvlint {
namespace project {
namespace {

/// FNV-1a, 64 bits, from Seed: the facts of one file are short.
uint64_t fnv(const std::string &S, uint64_t Seed) {
  uint64_t H = Seed;
  for (unsigned char C : S)
    H = (H ^ C) * 0x100000001b3ull;
  return H;
}

void put(std::string &Out, const std::string &S) {
  Out += std::to_string(S.size());
  Out += ':';
  Out += S;
}

void putVerdict(std::string &Out, const ProjectModel::Verdict &V) {
  Out += V.Known ? 'K' : 'k';
  Out += V.Reached ? 'R' : 'r';
  put(Out, V.Why);
  put(Out, V.File);
  put(Out, std::to_string(V.Line));
}

} // namespace

std::string ProjectModel::factsDigest(const std::string &Path) const {
  std::string Facts = "kvlint-facts-1\n";
  int F = Files.empty() ? -1 : fileAt(Path);
  Facts += Files.empty() ? "no-model\n" : F < 0 ? "not-in-model\n" : "in-model\n";
  if (F >= 0) {
    const FileInfo &FI = Files[F];
    // reach() and profile() are functions of (file, name): every name they
    // answer for in this file, once.
    std::set<std::string> Names;
    for (const Definition &D : FI.S.Defs) {
      Names.insert(D.Name);
      if (!D.Owner.empty())
        Names.insert(D.Owner + "." + D.Name);
    }
    for (const std::string &N : Names) {
      Facts += "def ";
      put(Facts, N);
      putVerdict(Facts, reach(FI.S.Path, N));
      ProfileVerdict P = profile(FI.S.Path, N);
      Facts += char('0' + int(P.Prof));
      put(Facts, P.Why);
      Facts += '\n';
    }
    // importedJit: every dotted name of this file that denotes a helper of
    // another module, with that helper's whole definition (its Return fact
    // and the rest: what the frontend reads of it).
    for (auto It = Jits.lower_bound({F, std::string()}); It != Jits.end() && It->first.first == F;
         ++It) {
      const FileInfo &H = Files[It->second.File];
      Facts += "jit ";
      put(Facts, It->first.second);
      put(Facts, H.S.Path);
      if (It->second.Def >= 0) {
        FileSummary One;
        One.Defs.push_back(H.S.Defs[It->second.Def]);
        put(Facts, encodeSummary(One));
      }
      Facts += '\n';
    }
    // A kernel's launches in other files (foreignLaunches): the frontend
    // reads their facts from the launching file's source, so the digest
    // holds each such file's path, the names it calls the kernel by, and
    // its bytes' hash.
    for (const Definition &D : FI.S.Defs) {
      if (!D.Kernel || !D.Owner.empty())
        continue;
      for (const ForeignLaunch &L : foreignLaunches(FI.S.Path, D.Name)) {
        Facts += "launch ";
        put(Facts, D.Name);
        put(Facts, L.File);
        for (const std::string &C : L.Callees)
          put(Facts, C);
        int B = fileAt(L.File);
        put(Facts, B < 0 ? std::string() : Files[B].S.ContentKey);
        Facts += '\n';
      }
    }
    // callerTensor: what the callers of each launcher pass it (Callers.cpp
    // answers for the parameters of functions that launch).
    for (auto It = Tensors.lower_bound(std::make_tuple(F, -1, std::string()));
         It != Tensors.end() && std::get<0>(It->first) == F; ++It) {
      const CallerTensor &T = It->second;
      if (!T.Known)
        continue;
      Facts += "tensor ";
      put(Facts, FI.S.Defs[std::get<1>(It->first)].Name);
      put(Facts, std::get<2>(It->first));
      put(Facts, T.Where);
      put(Facts, std::to_string(T.Calls));
      for (const std::string &Z : T.Sizes)
        put(Facts, Z);
      Facts += '\n';
    }
  }
  char Hex[33];
  std::snprintf(Hex, sizeof Hex, "%016llx%016llx",
                (unsigned long long)fnv(Facts, 0xcbf29ce484222325ull),
                (unsigned long long)fnv(Facts, 0x84222325cbf29ce4ull));
  return Hex;
}

} // namespace project
} // namespace kvlint
