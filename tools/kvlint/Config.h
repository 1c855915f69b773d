//===- Config.h - the --config options file ---------------------*- C++ -*-===//
#ifndef KVLINT_TOOLS_CONFIG_H
#define KVLINT_TOOLS_CONFIG_H

#include "kvlint/Rule.h"

#include <string>
#include <vector>

namespace kvlint {

std::string trim(const std::string &S);
/// "a,b,,c" -> {a, b, c}
std::vector<std::string> splitList(const std::string &S);

/// Reads a --config file: lines `checks: LIST` and `<check>.<Option>: value`.
bool readConfig(const std::string &Path, std::vector<std::string> &Checks, Options &Opts,
                std::string &Err);

} // namespace kvlint

#endif
