//===- CompileDb.h - flags from compile_commands.json -----------*- C++ -*-===//
#ifndef KVLINT_TOOLS_COMPILEDB_H
#define KVLINT_TOOLS_COMPILEDB_H

#include <map>
#include <string>
#include <vector>

namespace kvlint {

/// Per-file preprocessor flags taken from compile databases.
struct DbFlags {
  std::map<std::string, std::vector<std::string>> ByFile; ///< canonical path -> flags
  /// The flags for Path, or null when no database lists it.
  const std::vector<std::string> *find(const std::string &Path) const;
};

/// Keeps the flags that change what the preprocessor sees (-I -isystem
/// -iquote -include -D -U and a C++ -std=); drops nvcc and code-generation
/// flags clang would not accept, and the CUDA toolkit's own include
/// directories (clang 19 cannot parse CUDA 13's headers). Relative paths are
/// resolved against Dir. Cmd[0] is the compiler.
std::vector<std::string> usefulFlags(const std::vector<std::string> &Cmd, const std::string &Dir);

/// Loads Dir/compile_commands.json into Db; false with Err on failure.
bool loadDb(const std::string &Dir, DbFlags &Db, std::string &Err);

} // namespace kvlint

#endif
