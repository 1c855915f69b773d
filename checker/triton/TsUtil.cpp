//===- TsUtil.cpp - tree-sitter helpers for the Triton frontend -----------===//
//
// Children and fields of tree-sitter nodes, read with cursors.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

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

} // namespace triton
} // namespace kvlint
