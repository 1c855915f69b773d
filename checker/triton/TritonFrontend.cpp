//===- TritonFrontend.cpp - lowers @triton.jit functions to the kernel IR -===//
//
// Parses a Python file with tree-sitter-python and lowers every @triton.jit
// function into kvlint's kernel IR, following Triton's integer semantics:
//
//  * tl.program_id / tl.arange are int32 (arange bounded); unannotated integer
//    arguments are int32 scalars; `tl.constexpr` arguments are Python ints of
//    unknown magnitude (Kind::Symbolic, typed int32 so that promotion follows
//    Triton: a Python scalar never widens a tensor).
//  * Python scalars (literals, constexprs, module constants) are "weak": an
//    operation between a tensor and a weak scalar has the tensor's type; an
//    operation between two weak scalars happens in Python at compile time
//    (exact) and is typed int64.
//  * Everything else promotes like Triton's integer_promote_impl.
//
// The frontend never decides whether something is a bug; see IR.h.
// The lowering is split over several files; Lowering.h lists them.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <algorithm>
#include <memory>

namespace kvlint {
namespace triton {

namespace {

/// ERROR and MISSING nodes in document order (at most Max), where the
/// mistake starts. An ERROR that begins with a complete statement wraps valid
/// code (tree-sitter may wrap a whole file): it is not recorded, only
/// searched. Only subtrees that contain an error are visited.
std::vector<TSNode> errorNodes(TSNode Root, size_t Max) {
  std::vector<TSNode> Out;
  TSTreeCursor C = ts_tree_cursor_new(Root);
  for (;;) {
    TSNode N = ts_tree_cursor_current_node(&C);
    bool Record = ts_node_is_missing(N);
    if (ts_node_is_error(N)) {
      TSNode F = ts_node_named_child(N, 0);
      std::string T = ts_node_is_null(F) ? "" : ts_node_type(F);
      bool Wraps = !ts_node_is_null(F) && !ts_node_has_error(F) &&
                   (T.find("statement") != std::string::npos ||
                    T.find("definition") != std::string::npos);
      Record = !Wraps;
    }
    if (Record) {
      Out.push_back(N);
      if (Out.size() >= Max) break;
    }
    if (ts_node_has_error(N) && ts_tree_cursor_goto_first_child(&C)) continue;
    bool Done = false;
    while (!ts_tree_cursor_goto_next_sibling(&C))
      if (!ts_tree_cursor_goto_parent(&C)) { Done = true; break; }
    if (Done) break;
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

std::unique_ptr<Function> lowerFunction(Module &M, const JitFn &J,
                                        const std::map<std::string, bool> &Fixed,
                                        std::vector<std::string> &Notes) {
  std::set<std::string> Ptrs = pointerParams(M, J);
  std::unique_ptr<Function> F;
  // Parameters used as pointers are found by lowering; re-lower until stable.
  for (int Round = 0; Round < 4; ++Round) {
    F = std::make_unique<Function>();
    F->Name = J.Name;
    F->Lang = Language::Triton;
    F->IsKernel = true;
    SrcRange R;
    TSNode NameN = field(J.Def, "name");
    TSPoint S = ts_node_start_point(NameN), E = ts_node_end_point(NameN);
    R.Begin = {M.Path, S.row + 1, S.column + 1, ts_node_start_byte(NameN)};
    R.End = {M.Path, E.row + 1, E.column + 1, ts_node_end_byte(NameN)};
    F->Range = R;
    std::vector<std::string> RoundNotes;
    FnLowerer L(M, *F, Ptrs, RoundNotes);
    L.Fixed = Fixed;
    auto LI = M.Launches.find(ts_node_start_byte(J.Def));
    if (LI != M.Launches.end()) {
      L.Launch = &LI->second;
      F->Checked = LI->second.Checked;
    }
    L.lowerEntry(J);
    size_t Before = Ptrs.size();
    Ptrs.insert(L.WantPtr.begin(), L.WantPtr.end());
    if (Ptrs.size() == Before || Round == 3) {
      Notes.insert(Notes.end(), RoundNotes.begin(), RoundNotes.end());
      break;
    }
  }
  return F;
}

} // namespace

} // namespace triton

using namespace triton;

LoweredFile lowerTritonSource(const std::string &Path, const std::string &Source,
                              const Options &Opts, const TreeDtypes *Tree) {
  LoweredFile Out;
  // Fast path: a file without "jit" has no @triton.jit function.
  if (Source.find("jit") == std::string::npos) return Out;
  if (Source.size() > (64u << 20)) {
    Out.Notes.push_back("file larger than 64 MiB; not analysed");
    Out.Failed = true;
    return Out;
  }
  if (Source.find('\0') != std::string::npos) {
    Out.Notes.push_back("binary file (NUL bytes); not analysed");
    Out.Failed = true;
    return Out;
  }
  TSParser *P = ts_parser_new();
  if (!ts_parser_set_language(P, tree_sitter_python())) {
    ts_parser_delete(P);
    Out.Notes.push_back("tree-sitter-python ABI mismatch; Python not analysed");
    Out.Failed = true;
    return Out;
  }
  // Syntax errors: tree-sitter's recovery lets one unclosed bracket swallow
  // the rest of the file. Blank the first line in error (same length, so
  // every position stays exact) and reparse, a bounded number of times.
  std::string Work = Source;
  std::vector<unsigned> Skipped;
  bool HadErrors = false;
  TSTree *T = ts_parser_parse_string(P, nullptr, Work.data(), (uint32_t)Work.size());
  for (unsigned Round = 0; T && Round < MaxRecoveryRounds; ++Round) {
    TSNode Root = ts_tree_root_node(T);
    if (!ts_node_has_error(Root)) break;
    HadErrors = true;
    // The first line in error that is not a definition: blanking a `def` or
    // decorator line would lose the whole function.
    size_t LB = 0, LE = 0, First = std::string::npos;
    for (TSNode Err : errorNodes(Root, 64)) {
      // An ERROR may begin with the token before the mistake (the `:` of a
      // def line); its first named child is where the faulty code starts.
      TSNode At = ts_node_is_error(Err) && !ts_node_is_null(ts_node_named_child(Err, 0))
                      ? ts_node_named_child(Err, 0)
                      : Err;
      size_t B = ts_node_start_byte(At);
      if (ts_node_is_missing(Err) && B > 0) --B; // a missing token sits after the line
      size_t NL = B == 0 ? std::string::npos : Work.rfind('\n', B - 1);
      LB = NL == std::string::npos ? 0 : NL + 1;
      LE = Work.find('\n', LB);
      if (LE == std::string::npos) LE = Work.size();
      size_t F = Work.find_first_not_of(" \t\r", LB);
      if (F == std::string::npos || F >= LE) continue;
      std::string Head = Work.substr(F, std::min<size_t>(LE - F, 10));
      if (Head[0] == '@' || Head.rfind("def ", 0) == 0 || Head.rfind("async ", 0) == 0 ||
          Head.rfind("class ", 0) == 0)
        continue;
      First = F;
      break;
    }
    if (First == std::string::npos) break;
    for (size_t I = First; I < LE; ++I)
      if (Work[I] != '\r') Work[I] = ' ';
    unsigned Row = (unsigned)std::count(Work.begin(), Work.begin() + LB, '\n');
    Skipped.push_back(Row + 1);
    // Same length: an in-place edit, reparsed incrementally.
    TSInputEdit Edit;
    Edit.start_byte = (uint32_t)First;
    Edit.old_end_byte = Edit.new_end_byte = (uint32_t)LE;
    Edit.start_point = {Row, (uint32_t)(First - LB)};
    Edit.old_end_point = Edit.new_end_point = {Row, (uint32_t)(LE - LB)};
    ts_tree_edit(T, &Edit);
    TSTree *T2 = ts_parser_parse_string(P, T, Work.data(), (uint32_t)Work.size());
    ts_tree_delete(T);
    T = T2;
  }
  if (!T) {
    ts_parser_delete(P);
    Out.Notes.push_back("could not parse");
    Out.Failed = true;
    return Out;
  }
  TSNode Root = ts_tree_root_node(T);
  if (HadErrors) {
    std::string Note = "syntax errors; analysed what could be parsed";
    if (!Skipped.empty()) {
      std::sort(Skipped.begin(), Skipped.end());
      Note += " (skipped line";
      Note += Skipped.size() > 1 ? "s " : " ";
      for (size_t I = 0; I < Skipped.size(); ++I)
        Note += (I ? ", " : "") + std::to_string(Skipped[I]);
      Note += ")";
    }
    Out.Notes.push_back(Note);
  }

  Module M(Path, Work, Opts);
  M.Tree = Tree;
  int64_t Bits = Opts.getInt("triton.UnknownLoadBits", 32);
  M.LoadBits = (Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64) ? unsigned(Bits) : 32;
  // Names most Triton code uses without importing them from triton directly.
  M.Alias["tl"] = "triton.language";
  M.Alias["triton"] = "triton";
  scanModule(M, Root, 0);
  for (auto &W : M.JitWraps) {
    auto D = M.PlainDefs.find(W.second);
    if (D == M.PlainDefs.end() || M.Jit.count(W.second)) continue;
    addJit(M, W.second, D->second);
    if (W.first != W.second && !M.Jit.count(W.first))
      M.Jit[W.first] = JitFn{W.first, D->second, true}; // callable by its new name
  }
  markHelpers(M);
  collectLaunchFacts(M);
  for (const std::string &N : M.JitOrder) {
    const JitFn &J = M.Jit[N];
    // Helpers called from another jit function are analysed inlined, with
    // their callers' argument facts; lowering them alone would judge their
    // parameters without those facts.
    if (J.Called) continue;
    FlagPlan Plan = planFlags(M, J);
    for (unsigned Combo = 0; Combo < (1u << Plan.Value.size()); ++Combo) {
      std::map<std::string, bool> Fixed;
      for (const std::string &W : Plan.Widen) Fixed[W] = true;
      for (size_t I = 0; I < Plan.Value.size(); ++I) Fixed[Plan.Value[I]] = (Combo >> I) & 1;
      Out.Functions.push_back(lowerFunction(M, J, Fixed, Out.Notes));
      Out.Functions.back()->Prof = kernelProfile(M, J.Name, Out.Functions.back()->ProfileWhy);
    }
  }
  shareFileFacts(Out.Functions, Tree ? &Tree->padWritten() : nullptr);
  // Specialisations repeat the same notes.
  std::vector<std::string> Unique;
  for (const std::string &N : Out.Notes)
    if (std::find(Unique.begin(), Unique.end(), N) == Unique.end()) Unique.push_back(N);
  Out.Notes = Unique;
  ts_tree_delete(T);
  ts_parser_delete(P);
  return Out;
}

} // namespace kvlint
