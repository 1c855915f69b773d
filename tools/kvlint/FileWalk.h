//===- FileWalk.h - which files a scan visits -------------------*- C++ -*-===//
#ifndef KVLINT_TOOLS_FILEWALK_H
#define KVLINT_TOOLS_FILEWALK_H

#include "kvlint/Report.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace kvlint {

bool hasExt(const std::string &Path, std::initializer_list<const char *> Exts);
/// .cu .cuh .hip .cpp .cc .cxx .c .h .hpp .hh .py
bool isSourceExt(const std::string &Path);
/// True when Path contains one of the substrings.
bool excluded(const std::string &Path, const std::vector<std::string> &Excludes);

/// Appends Input (a file) or the source files below Input (a directory,
/// sorted; hidden directories, __pycache__ and node_modules skipped) to
/// Files; problems go to Notes.
void collect(const std::string &Input, const std::vector<std::string> &Excludes,
             std::vector<std::string> &Files, std::vector<FileNote> &Notes);

/// Keeps every N-th file starting at I.
void keepShard(std::vector<std::string> &Files, unsigned I, unsigned N);

} // namespace kvlint

#endif
