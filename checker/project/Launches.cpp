//===- Launches.cpp - which files launch a kernel of another file --------===//
//
// A kernel's launch sites are facts about it (checker/triton/Launcher.cpp):
// the grid, what each argument is, the tensors it points into. Engines keep
// kernels and launchers apart (aiter's `_triton_kernels/` and `ops/`,
// vLLM's `ops/` kernels launched from layers): the sites of a kernel are in
// other files. linkLaunches resolves every launch `name[grid](...)` of every
// file as the file's own code resolves `name` (imports, re-exports,
// `module.kernel`), and keeps those that denote a @triton.jit kernel of
// another file; the frontend reads their facts from the launching file.
//
//===----------------------------------------------------------------------===//
#include "project/Project.h"

#include <algorithm>
#include <set>

namespace kvlint {
namespace project {

void ProjectModel::linkLaunches() {
  Foreign.clear();
  for (size_t I = 0; I < Files.size(); ++I) {
    std::set<std::string> Done;
    for (const CallSite &C : Files[I].S.Calls) {
      if (!C.Launch || C.Callee.empty() || !Done.insert(C.Callee).second)
        continue;
      // a plain or dotted name: `kernel`, `mod.kernel` (not a call's result)
      if (C.Callee.find_first_of("()[] ") != std::string::npos)
        continue;
      for (const Target &T : resolveRef(int(I), C.Callee)) {
        if (T.Def < 0 || T.File == int(I))
          continue;
        const Definition &D = Files[T.File].S.Defs[T.Def];
        if (!D.Kernel)
          continue;
        std::vector<ForeignLaunch> &Ls = Foreign[{T.File, D.Name}];
        auto It = std::find_if(Ls.begin(), Ls.end(),
                               [&](const ForeignLaunch &L) { return L.File == Files[I].S.Path; });
        if (It == Ls.end()) {
          Ls.push_back({Files[I].S.Path, {}});
          It = Ls.end() - 1;
        }
        if (std::find(It->Callees.begin(), It->Callees.end(), C.Callee) == It->Callees.end())
          It->Callees.push_back(C.Callee);
      }
    }
  }
}

std::vector<ProjectModel::ForeignLaunch>
ProjectModel::foreignLaunches(const std::string &Path, const std::string &Kernel) const {
  int F = fileAt(Path);
  if (F < 0)
    return {};
  auto It = Foreign.find({F, Kernel});
  return It == Foreign.end() ? std::vector<ForeignLaunch>{} : It->second;
}

} // namespace project
} // namespace kvlint
