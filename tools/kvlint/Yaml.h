//===- Yaml.h - a small, strict reader for clang-tidy's YAML subset ------===//
//
// .clang-tidy and .kvlint.yaml files use a small part of YAML: block
// mappings and sequences, flow mappings and sequences ({a: b}, [a, b]),
// plain, 'single' and "double" quoted scalars (also over several lines),
// block scalars (| and >, with - or + chomping), comments, and one
// document (--- ... ...). Everything else (anchors, aliases, tags, complex
// keys, several documents, tabs in indentation) is an error with file:line,
// never a guess and never a crash. Scalars stay text: "true" is a string.
// A leading UTF-8 byte order mark is skipped. Reading is linear in the
// text and nests at most 64 levels (an error with file:line beyond).
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_YAML_H
#define KVLINT_TOOLS_YAML_H

#include <string>
#include <utility>
#include <vector>

namespace kvlint {
namespace yaml {

struct Node {
  enum Kind { Null, Scalar, Map, Seq } K = Null;
  std::string Text;                                ///< Scalar
  std::vector<std::pair<std::string, Node>> Items; ///< Map, in file order
  std::vector<Node> Elems;                         ///< Seq
  unsigned Line = 0;                               ///< 1-based, where it starts
  const Node *get(const std::string &Key) const;
};

/// Parses Text; on failure returns false and sets Err to "File:line: what".
/// An empty document gives a Null node.
bool parse(const std::string &Text, const std::string &File, Node &Out, std::string &Err);

} // namespace yaml
} // namespace kvlint

#endif
