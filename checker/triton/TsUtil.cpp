//===- TsUtil.cpp - tree-sitter helpers for the Triton frontend -----------===//
//
// Children and fields of tree-sitter nodes, read with cursors.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace kvlint {
namespace triton {

/// Named children (comments skipped), iterated with a cursor: O(n).
std::vector<TSNode> kids(TSNode N) {
  std::vector<TSNode> Out;
  if (ts_node_is_null(N))
    return Out;
  TSTreeCursor C = ts_tree_cursor_new(N);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      TSNode K = ts_tree_cursor_current_node(&C);
      if (ts_node_is_named(K) && !is(K, "comment"))
        Out.push_back(K);
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

/// A field of N. Field names are string literals: their ids are cached per
/// literal (per thread: files are lowered in parallel).
TSNode field(TSNode N, const char *F) {
  thread_local std::unordered_map<const char *, TSFieldId> Ids;
  auto It = Ids.find(F);
  if (It == Ids.end())
    It = Ids.emplace(F, ts_language_field_id_for_name(tree_sitter_python(), F,
                                                      (uint32_t)strlen(F))).first;
  return ts_node_child_by_field_id(N, It->second);
}

/// The children of N in field F (a field can repeat: subscripts, imports).
std::vector<TSNode> fieldKids(TSNode N, const char *F) {
  std::vector<TSNode> Out;
  if (ts_node_is_null(N))
    return Out;
  TSTreeCursor C = ts_tree_cursor_new(N);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      const char *FN = ts_tree_cursor_current_field_name(&C);
      if (FN && !strcmp(FN, F)) Out.push_back(ts_tree_cursor_current_node(&C));
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

std::string sourceText(const std::string &Src, TSNode N) {
  if (ts_node_is_null(N))
    return "";
  uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
  if (B > Src.size() || E > Src.size() || E < B)
    return "";
  return Src.substr(B, E - B);
}

std::string dottedText(const std::string &Src, TSNode N, unsigned Depth) {
  if (Depth > 32)
    return "";
  if (is(N, "identifier"))
    return sourceText(Src, N);
  if (is(N, "attribute")) {
    std::string O = dottedText(Src, field(N, "object"), Depth + 1);
    return O.empty() ? "" : O + "." + sourceText(Src, field(N, "attribute"));
  }
  return "";
}

/// N without the parentheses around it: `((x))` is `x`.
TSNode stripParens(TSNode N) {
  for (unsigned I = 0; I < 64 && is(N, "parenthesized_expression"); ++I) {
    std::vector<TSNode> Ks = kids(N);
    if (Ks.size() != 1) break;
    N = Ks[0];
  }
  return N;
}

/// The value of a Python integer literal's text (`1_024`, `0x400`, `0o17`,
/// `0b11`); false when it is not one or does not fit 64 bits.
bool parseInt(const std::string &Text, int64_t &V) {
  std::string T = Text;
  T.erase(std::remove(T.begin(), T.end(), '_'), T.end());
  if (T.empty() || T.size() > 40) return false;
  errno = 0;
  char *End = nullptr;
  long long R;
  if (T.size() > 2 && T[0] == '0' && (T[1] == 'b' || T[1] == 'B'))
    R = strtoll(T.c_str() + 2, &End, 2);
  else if (T.size() > 2 && T[0] == '0' && (T[1] == 'o' || T[1] == 'O'))
    R = strtoll(T.c_str() + 2, &End, 8);
  else
    R = strtoll(T.c_str(), &End, 0);
  if (errno || !End || *End) return false;
  V = R;
  return true;
}

} // namespace triton
} // namespace kvlint
