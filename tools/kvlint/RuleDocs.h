//===- RuleDocs.h - the rules' doc pages and the version, compiled in -*- C++ -*-===//
#ifndef KVLINT_TOOLS_RULEDOCS_H
#define KVLINT_TOOLS_RULEDOCS_H

#include <string>

namespace kvlint {

/// docs/rules/<Code>.md as it was at build time, or "".
std::string ruleDoc(const std::string &Code);
/// project(kvlint VERSION ...): "0.2.0".
std::string kvlintVersion();
/// The git commit the build was configured from, or "unknown".
std::string kvlintCommit();
/// Absolute URL of the docs/ directory (KVLINT_DOCS_URL), ending in '/'.
std::string kvlintDocsUrl();
std::string kvlintHomepage();

} // namespace kvlint

#endif
