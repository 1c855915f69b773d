//===- CompileDb.h - flags from compile_commands.json -----------*- C++ -*-===//
#ifndef KVLINT_TOOLS_COMPILEDB_H
#define KVLINT_TOOLS_COMPILEDB_H

#include <map>
#include <set>
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
/// A database is the scanned tree's: flags that would load code or write a
/// file (--config, -MF/-MD/-MJ, -fplugin, -load, -o, -Xclang ...) are never
/// kept, and when Dropped is given each such flag is added to it.
std::vector<std::string> usefulFlags(const std::vector<std::string> &Cmd, const std::string &Dir,
                                     std::set<std::string> *Dropped = nullptr);

/// Loads Dir/compile_commands.json into Db (a regular file of at most
/// 256 MiB: never a FIFO or /dev/zero); false with Err on failure. Notes
/// gets one line naming the dangerous flags it dropped, if any.
bool loadDb(const std::string &Dir, DbFlags &Db, std::string &Err,
            std::vector<std::string> *Notes = nullptr);

} // namespace kvlint

#endif
