//===- ShowConfig.h - --show-config and `kvlint rule` -----------*- C++ -*-===//
#ifndef KVLINT_TOOLS_SHOWCONFIG_H
#define KVLINT_TOOLS_SHOWCONFIG_H

#include "Config.h"

#include <ostream>
#include <string>
#include <vector>

namespace kvlint {

/// --show-config FILE: the configuration in force for File (Checks, the
/// rules they enable, every option, Exclude, Baseline), each value with the
/// file or flag it comes from, or "(default)". Returns the exit status.
int showConfig(const std::string &File, const std::vector<ConfigFile> &Overrides,
               std::ostream &OS, std::ostream &Err);

/// `kvlint rule CODE` (a code or a check name; none: the list). Returns the
/// exit status.
int showRule(const std::vector<std::string> &Args, std::ostream &OS, std::ostream &Err);

} // namespace kvlint

#endif
