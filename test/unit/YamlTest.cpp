//===- YamlTest.cpp - the strict YAML subset reader -----------------------===//
#include "Yaml.h"

#include <gtest/gtest.h>

using namespace kvlint;
using yaml::Node;

namespace {

Node ok(const std::string &T) {
  Node N;
  std::string Err;
  EXPECT_TRUE(yaml::parse(T, "f.yaml", N, Err)) << Err << "\n--- input:\n" << T;
  return N;
}

std::string bad(const std::string &T) {
  Node N;
  std::string Err;
  EXPECT_FALSE(yaml::parse(T, "f.yaml", N, Err)) << "accepted:\n" << T;
  return Err;
}

TEST(Yaml, ClangTidyListForm) {
  Node N = ok("---\n# comment\nChecks: '-*,kvlint-*'   # trailing\n"
              "CheckOptions:\n  - key: a.B\n    value: 'it''s'\n  - key: c.D\n    value: \"x\\ty\"\n...\n");
  ASSERT_EQ(N.K, Node::Map);
  EXPECT_EQ(N.get("Checks")->Text, "-*,kvlint-*");
  const Node *O = N.get("CheckOptions");
  ASSERT_EQ(O->K, Node::Seq);
  ASSERT_EQ(O->Elems.size(), 2u);
  EXPECT_EQ(O->Elems[0].get("key")->Text, "a.B");
  EXPECT_EQ(O->Elems[0].get("value")->Text, "it's");
  EXPECT_EQ(O->Elems[1].get("value")->Text, "x\ty");
  EXPECT_EQ(O->Elems[1].Line, 7u);
}

TEST(Yaml, MappingFlowAndBlockScalars) {
  Node N = ok("CheckOptions:\n  a.B: true\n  c.D: '1'\nFlow: {x: 1, y: [p, 'q, r'], z: }\n"
              "Checks: >\n  -*,\n  kvlint-*\nLit: |-\n  one\n   two\nSeq:\n- a\n- b\n"
              "Multi: -*,\n  kvlint-*\nQuoted: 'a\n  b'\n");
  EXPECT_EQ(N.get("CheckOptions")->get("a.B")->Text, "true");
  const Node *F = N.get("Flow");
  ASSERT_EQ(F->K, Node::Map);
  EXPECT_EQ(F->get("x")->Text, "1");
  EXPECT_EQ(F->get("y")->Elems[1].Text, "q, r");
  EXPECT_EQ(F->get("z")->K, Node::Null);
  EXPECT_EQ(N.get("Checks")->Text, "-*, kvlint-*\n");
  EXPECT_EQ(N.get("Lit")->Text, "one\n two");
  EXPECT_EQ(N.get("Seq")->Elems.size(), 2u);
  EXPECT_EQ(N.get("Multi")->Text, "-*, kvlint-*");
  EXPECT_EQ(N.get("Quoted")->Text, "a b");
}

TEST(Yaml, EmptyAndCommentOnly) {
  EXPECT_EQ(ok("").K, Node::Null);
  EXPECT_EQ(ok("# nothing\n\n---\n").K, Node::Null);
}

TEST(Yaml, ErrorsNameTheLine) {
  EXPECT_EQ(bad("a: 1\n\tb: 2\n"), "f.yaml:2: tab in indentation (YAML indents with spaces)");
  EXPECT_EQ(bad("a: 'x\nb: 2\n"), "f.yaml:1: unterminated single-quoted scalar");
  EXPECT_EQ(bad("a: 1\na: 2\n"), "f.yaml:2: duplicate key 'a'");
  EXPECT_EQ(bad("a: {x: 1\n"), "f.yaml:1: unterminated flow collection (no '}')");
  EXPECT_NE(bad("a: &x 1\n").find("anchors"), std::string::npos);
  EXPECT_NE(bad("a: *x\n").find("aliases"), std::string::npos);
  EXPECT_NE(bad("a: !!str 1\n").find("tags"), std::string::npos);
  EXPECT_NE(bad("a: 1\n---\nb: 2\n").find("one YAML document"), std::string::npos);
  EXPECT_NE(bad("a: b: c\n").find("f.yaml:1:"), std::string::npos);
  EXPECT_NE(bad("a:\n  b: 1\n c: 2\n").find("f.yaml:3:"), std::string::npos);
  EXPECT_NE(bad("a: \"\\q\"\n").find("unknown escape"), std::string::npos);
  EXPECT_NE(bad("- a\nb: 1\n").find("f.yaml:2:"), std::string::npos);
}

TEST(Yaml, DeepNestingIsAnErrorNotACrash) {
  std::string Deep(100000, '[');
  EXPECT_NE(bad(Deep).find("nesting deeper"), std::string::npos);
  std::string Blocks;
  for (int I = 0; I < 200; ++I)
    Blocks += std::string(I, ' ') + "k:\n";
  EXPECT_NE(bad(Blocks).find("nesting deeper"), std::string::npos);
}

} // namespace
