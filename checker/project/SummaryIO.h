//===- SummaryIO.h - a FileSummary as bytes, for the on-disk cache -*- C++ -*-===//
//
// The scan's cache (tools/kvlint/Cache.h) keeps each Python file's
// FileSummary (Summary.h) so that a warm scan links the project without
// parsing it again. This is that encoding: length-prefixed fields, every one
// of FileSummary, Definition (and its Return), Import and CallSite.
//
// A field added to those structs must be added here too: SummaryIO.cpp
// static_asserts their sizes, and test/unit/SummaryIOTest.cpp round-trips a
// summary with every field set.
//
// The bytes come back from a cache folder inside the scanned tree, which is
// hostile (DESIGN.md §8): decodeSummary checks every length and count against
// what is left and fails (never crashes, never allocates more than the input
// justifies) on anything that is not one whole encoded summary.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_PROJECT_SUMMARYIO_H
#define KVLINT_PROJECT_SUMMARYIO_H

#include "project/Summary.h"

#include <string>

namespace kvlint {
namespace project {

std::string encodeSummary(const FileSummary &S);
/// False (and S unspecified) when Bytes is not exactly one encoded summary.
bool decodeSummary(const std::string &Bytes, FileSummary &S);

} // namespace project
} // namespace kvlint

#endif
