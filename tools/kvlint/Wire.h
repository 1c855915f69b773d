//===- Wire.h - a file's result across a process boundary -------*- C++ -*-===//
//
// Worker processes (Worker.h) analyse files and send each FileResult back to
// the driver through a pipe. This is that encoding: length-prefixed fields,
// every one of FileResult, Finding, FixIt and Note. A field added to those
// structs must be added here too (test/unit/WireTest.cpp round-trips every
// field and fails when one is left out).
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_WIRE_H
#define KVLINT_TOOLS_WIRE_H

#include "Analyse.h"

#include <string>

namespace kvlint {

std::string encodeResult(const FileResult &R);
/// False when Bytes is not one whole encoded result (a worker that died
/// mid-message).
bool decodeResult(const std::string &Bytes, FileResult &R);

} // namespace kvlint

#endif
