//===- FuzzTriton.cpp - libFuzzer target: the Triton frontend and rules ---===//
//
// Any bytes as a Python file: the scan's dtype index reads it (TreeDtypes),
// the project model summarises it twice, as a package's kernel module and
// as its caller (callers, caller tensors, reachability: checker/project/),
// lowerTritonSource, asking that index and that model, must return
// (functions, notes, or Failed), and every rule runs over what it lowered
// (the bounds and magnitude analyses with them), never crashing, leaking,
// hanging or tripping UBSan. Seeds: test/triton, tools/fuzz/corpus/triton and the
// hostile shapes tools/fuzz/seeds.py writes (see tools/fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "kvlint/Frontend.h"
#include "kvlint/Rule.h"
#include "project/Project.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Src(reinterpret_cast<const char *>(Data), Size);
  kvlint::Options Opts;
  static const auto Rules = kvlint::makeRules({"all"}, Opts);
  kvlint::TreeDtypes Tree;
  Tree.addFile(Src);
  Tree.finish();
  std::vector<kvlint::project::FileSummary> Sums;
  Sums.push_back(kvlint::summarisePython("/p/pkg/__init__.py", "from .k import *\n"));
  Sums.push_back(kvlint::summarisePython("/p/pkg/k.py", Src));
  Sums.push_back(kvlint::summarisePython("/p/pkg/layer.py", Src));
  kvlint::project::ProjectModel Model;
  kvlint::project::ProjectConfig Cfg;
  Cfg.Root = "/p";
  Model.build(std::move(Sums), Cfg);
  kvlint::LoweredFile LF = kvlint::lowerTritonSource("/p/pkg/k.py", Src, Opts, &Tree, &Model);
  std::vector<kvlint::Finding> Findings;
  for (const auto &F : LF.Functions)
    kvlint::runRules(Rules, *F, Findings);
  kvlint::dedupeAndSort(Findings);
  // Touch what the driver reads so nothing is optimised away.
  size_t N = LF.Notes.size() + Tree.knownNames() + Findings.size();
  for (const auto &F : LF.Functions)
    N += F->Accesses.size() + F->Limits.size();
  return N == size_t(-1);
}
