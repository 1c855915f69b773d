//===- Driver.h - the kvlint command line -----------------------*- C++ -*-===//
#ifndef KVLINT_DRIVER_H
#define KVLINT_DRIVER_H

#include <string>
#include <vector>

namespace kvlint {

/// Runs kvlint with the given arguments (without argv[0]); returns the exit
/// status: 0 clean, 1 findings, 2 usage or internal error.
int runDriver(const std::vector<std::string> &Args);

} // namespace kvlint

#endif
