//===- RuleDocs.cpp - the rules' doc pages, compiled in ----------------------===//
//
// docs/rules/KV00x.md, embedded at configure time (CMakeLists.txt), for
// `kvlint rule CODE` and SARIF's help/fullDescription.
//
//===----------------------------------------------------------------------===//
#include "RuleDocs.h"

#include "kvlint_version.h"

namespace kvlint {
namespace {
struct Doc {
  const char *Code;
  const char *Text;
};
const Doc Docs[] = {
#include "rule_docs.inc"
    {nullptr, nullptr}};
} // namespace

std::string ruleDoc(const std::string &Code) {
  for (const Doc *D = Docs; D->Code; ++D)
    if (Code == D->Code)
      return D->Text;
  return "";
}

std::string kvlintVersion() { return KVLINT_VERSION; }
std::string kvlintCommit() { return KVLINT_GIT_COMMIT; }
std::string kvlintDocsUrl() { return KVLINT_DOCS_URL; }
std::string kvlintHomepage() { return KVLINT_HOMEPAGE_URL; }

} // namespace kvlint
