//===- Summary.h - what one file of the project says about itself -*- C++ -*-===//
//
// The first pass of the project model (docs/architecture.md, "The project
// model"): each file is summarised once, on its own, into a FileSummary.
// The summary is language-neutral; a frontend fills it (Python:
// checker/triton/Summarise.cpp, with tree-sitter). The link step
// (ProjectModel, Project.h) reads only summaries, never source, so that a
// summary can be cached by the file's content hash.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_PROJECT_SUMMARY_H
#define KVLINT_PROJECT_SUMMARY_H

#include <cstdint>
#include <string>
#include <vector>

namespace kvlint {
namespace project {

/// A function, class or method the file defines at its top level (or in a
/// top-level class). Nested functions belong to their enclosing definition.
struct Definition {
  enum KindT : uint8_t { Function, Class, Method } Kind = Function;
  std::string Name;
  std::string Owner; ///< Method: the class it is defined in
  unsigned Line = 0, EndLine = 0;
  bool Kernel = false; ///< @triton.jit (or a triton.jit(f) wrapper)
  /// A decorator registers it somewhere a caller finds it by name
  /// (torch.library.custom_op / register_fake / impl, triton_op, any
  /// `...register...` decorator): reachable whenever its module is imported.
  bool Registered = false;
  std::vector<std::string> Bases;      ///< Class: its bases' text
  std::vector<std::string> Decorators; ///< their text, outermost first
  /// Every name and dotted name (`a.b.c`) the body mentions, once each:
  /// calls, launches, names passed as arguments or stored. Reachability
  /// follows these (a superset of the calls, so that a kernel picked into a
  /// variable or passed to a helper is still reached).
  std::vector<std::string> Refs;
  /// String literals in the body that read as module paths
  /// (`"pkg.mod"`, `"pkg.mod:attr"`, `".mod"`) or as a package prefix an
  /// f-string completes (`f"pkg.models.{name}"` -> `"pkg.models."`): the
  /// dynamic imports of registries and factories (importlib.import_module).
  std::vector<std::string> Strings;
  /// Function parameters in order, `name` or `name=default` (the default's
  /// text): what a call passes when it leaves one out.
  std::vector<std::string> Params;
  /// Names the body mentions only inside branches on a parameter's value
  /// (`if mode == "split": _split_kernel[grid](...)`), one entry each:
  /// "name\tparam\tline\tvalue1\tvalue2..." (the values the branches
  /// compare the parameter with, as written in the string literals). The
  /// link step drops the edge when every call of the function passes
  /// another value (Reach.cpp, deadBranch).
  std::vector<std::string> Guards;
  /// A @triton.jit helper's return, when every `return` of its body gives
  /// the same kind of value (Summarise.cpp): what a kernel of another module
  /// that calls the helper sees of the call (checker/triton/Calls.cpp).
  struct Return {
    enum KindT : uint8_t {
      None,      ///< no fact (or returns that disagree)
      Cast,      ///< an explicit integer cast: `x.to(tl.int64)`, `tl.cast(x, tl.int64)`
      Const,     ///< an integer literal, Value
      ProgramId, ///< `tl.program_id(axis)`, cast to Bits when Cast is set
    } Kind = None;
    unsigned Bits = 0;   ///< Cast, ProgramId: the integer width (0: no cast)
    bool Signed = true;
    int64_t Value = 0;   ///< Const: the value; ProgramId with Param < 0: the axis
    int Param = -1;      ///< ProgramId: the parameter whose argument is the axis
    std::string ParamName;
    /// The same fact (ParamName only names Param; the index decides).
    bool sameFact(const Return &O) const {
      return Kind == O.Kind && Bits == O.Bits && Signed == O.Signed && Value == O.Value &&
             Param == O.Param;
    }
  } Ret;
};

/// `import a.b`, `import a.b as c`, `from .x import y as z`, `from x import *`.
struct Import {
  std::string Module; ///< as written, without the leading dots ("" for `from . import y`)
  unsigned Level = 0; ///< leading dots of a relative import
  std::string Name;   ///< from-import: the name imported ("*" for a wildcard); else ""
  std::string Local;  ///< the name bound (`import a.b` binds "a")
  /// The definition whose body holds the import (index into Defs), or -1 at
  /// module level (including `if`/`try` blocks there).
  int Scope = -1;
  unsigned Line = 0;
};

/// The tab-separated fields of S from byte From on (the encodings of
/// Definition::Guards and CallSite::ArgTensors).
inline std::vector<std::string> tabFields(const std::string &S, size_t From = 0) {
  std::vector<std::string> Out;
  for (size_t B = From, E; B <= S.size(); B = E + 1) {
    E = S.find('\t', B);
    if (E == std::string::npos)
      E = S.size();
    Out.push_back(S.substr(B, E - B));
  }
  return Out;
}

/// A call `f(a, b)` or a launch `kernel[grid](a, b)`.
struct CallSite {
  int Scope = -1;     ///< enclosing definition (index into Defs), -1: module level
  std::string Callee; ///< the callee's text (`kernel` for a launch)
  std::vector<std::string> Args; ///< each argument's text (`k=v` for a keyword)
  /// Parallel to Args (or empty): what the caller shows of each argument as
  /// a tensor (checker/triton/ArgTensors.cpp). "" nothing; "=p" the enclosing
  /// function's parameter p, passed on unchanged; "new\ts1\ts2..." a
  /// contiguous tensor the caller allocates (`torch.empty((s1, s2))`,
  /// `x.new_zeros(...)`, `self.alloc_tensor((s1, s2), dtype)`), with each
  /// size's text, outermost first (tabFields(T, 4)). ProjectModel::callerTensor
  /// follows them.
  std::vector<std::string> ArgTensors;
  std::string Grid;   ///< a launch's grid text
  bool Launch = false;
  unsigned Line = 0;
};

struct FileSummary {
  std::string Path; ///< normalised absolute path
  std::vector<Definition> Defs;
  std::vector<Import> Imports;
  std::vector<CallSite> Calls;
  /// Names the module-level code mentions (decorators and default values
  /// included): what importing the module runs.
  std::vector<std::string> ModuleRefs;
  std::vector<std::string> ModuleStrings; ///< Definition::Strings of the top-level code
  /// Module-level `NAME = <literal>` (numbers, strings, tuples of them).
  std::vector<std::pair<std::string, std::string>> Constants;
  bool HasMain = false; ///< `if __name__ == "__main__":`
  bool HasAll = false;  ///< `__all__ = [...]` with literal strings
  std::vector<std::string> All;
  bool Parsed = false; ///< false: unreadable; nothing above is known
  /// A hash of the file's bytes, set by the walk that read it (Build.cpp),
  /// not serialised: what a fact read from the file's source itself (a
  /// kernel's launch sites there, checker/triton/ForeignLaunches.cpp)
  /// depends on, for ProjectModel::factsDigest.
  std::string ContentKey;
};

} // namespace project

/// The Python frontend's summary of one file (checker/triton/Summarise.cpp;
/// built only with the Triton frontend). Never fails: an unreadable file
/// gives a summary with Parsed false.
project::FileSummary summarisePython(const std::string &Path, const std::string &Source);

} // namespace kvlint

#endif
