//===- Frontend.h - what frontends hand to the driver -----------*- C++ -*-===//
#ifndef KVLINT_FRONTEND_H
#define KVLINT_FRONTEND_H

#include "kvlint/IR.h"
#include "kvlint/Rule.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kvlint {

namespace project {
class ProjectModel;
}

/// The result of lowering one source file.
struct LoweredFile {
  std::vector<std::unique_ptr<Function>> Functions;
  /// Problems the frontend met that did not stop it (missing headers, parse
  /// errors it recovered from). One line each, no file prefix.
  std::vector<std::string> Notes;
  /// True when nothing could be analysed (unreadable, binary, fatal).
  bool Failed = false;
  /// Code the parser could not read, so that nothing about it is silent: a
  /// function with a parse error in it (analysed without the broken part, or
  /// not at all), or, with Function empty, the line where the parser stopped
  /// for good (bracket depth): nothing after it was analysed. Why is
  /// "line:col: message".
  struct Gap {
    std::string Function;
    unsigned Line = 0;
    std::string Why;
  };
  std::vector<Gap> Gaps;
  /// The files besides the main one that the parse read or looked at on the
  /// real file system (headers, `__has_include`), and the paths it looked
  /// for and did not find (include directories searched): absolute, sorted.
  /// The scan's cache re-analyses the file when one of them changes.
  std::vector<std::string> Read, Absent;
};

/// The integer element types the Python files of one scan give tensors,
/// by the name a tensor is bound to (checker/triton/TreeDtypes.cpp): a
/// launcher whose own file does not show a table's dtype asks it by the
/// name it passes (`attn_metadata.slot_mapping` -> `slot_mapping`). A name
/// is known only when its allocations, and the names passed into it, agree.
class TreeDtypes {
public:
  /// Reads one Python file (false when it could not, or need not, be read).
  bool addFile(const std::string &Source);
  /// Adds another index (one per worker thread) into this one.
  void merge(const TreeDtypes &Other);
  /// Resolves pass-throughs; call once, after the last addFile or merge.
  void finish();
  /// The integer type every tensor named Name is made as; unknown if none.
  IntTy dtypeOf(const std::string &Name) const;
  size_t knownNames() const;
  /// Everything dtypeOf and padWritten answer, as one string (for the scan's
  /// cache: a Python file's findings depend on it); valid after finish().
  std::string digest() const;
  /// Names the tree's Python writes a negative pad into (`x.fill_(-1)`,
  /// `torch.full(..., PAD_SLOT_ID)`, `x[i] = -1`), keyed as
  /// ProjectFacts::norm keys them; valid after finish().
  const std::vector<NamedFact> &padWritten() const { return PadFacts; }
  void pad(const std::string &Name, const std::string &Why); ///< for the reader

  // For the reader.
  void allocate(const std::string &Name, IntTy Ty); ///< unknown Ty: not an int table
  void passThrough(const std::string &Name, const std::string &From);
  /// `def Fn(a, b, ...)`: its positional parameters.
  void define(const std::string &Fn, std::vector<std::string> Params);
  /// `Fn(..., Arg, ...)` with Arg at positional Index (`x.Fn(...)`: Method).
  void positional(const std::string &Fn, unsigned Index, const std::string &Arg, bool Method);

private:
  struct Resolution {
    IntTy Ty;
    bool Dead = false; ///< sources disagree: unknown, whatever else says
  };
  struct Entry {
    IntTy Ty;
    bool Poisoned = false;
    std::set<std::string> From;
    int State = 0;
    Resolution Resolved;
  };
  std::map<std::string, Entry> Names;
  /// Function name -> positional parameters; a name defined twice with
  /// other parameters is ambiguous (erased, and kept in Ambiguous).
  std::map<std::string, std::vector<std::string>> Defs;
  std::set<std::string> Ambiguous;
  struct Positional {
    std::string Fn, Arg;
    unsigned Index;
    bool Method;
  };
  std::vector<Positional> Calls;
  std::map<std::string, std::string> Pads; ///< name -> the code that pads it
  std::vector<NamedFact> PadFacts;
  Resolution resolve(const std::string &Name, unsigned Depth);
};

/// Triton frontend: lowers every @triton.jit function of a Python file.
/// Plain Python yields no functions. Options: "triton.UnknownLoadBits".
/// Tree, when given, answers for table dtypes the file itself does not show.
/// Project, when given (the scan's project model, checker/project/), puts
/// each kernel in the profile its callers across the project show
/// (Function::Prof) and answers for @triton.jit helpers imported from other
/// modules (what they return).
LoweredFile lowerTritonSource(const std::string &Path, const std::string &Source,
                              const Options &Opts, const TreeDtypes *Tree = nullptr,
                              const project::ProjectModel *Project = nullptr);

} // namespace kvlint

#endif
