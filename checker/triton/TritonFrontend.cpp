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
#include "project/Build.h"
#include "project/Project.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

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

/// PEP 263: the encoding a `coding[:=]name` comment on line 1, or on line
/// 2 after a comment or blank line 1, names; lower-cased, with `_` as `-`.
/// "" without one. Line is where it is.
std::string codingCookie(const std::string &S, unsigned &Line) {
  size_t B = 0;
  for (unsigned L = 1; L <= 2 && B < S.size(); ++L) {
    size_t E = S.find_first_of("\r\n", B);
    if (E == std::string::npos) E = S.size();
    std::string Ln = S.substr(B, E - B);
    size_t F = Ln.find_first_not_of(" \t\f");
    if (F != std::string::npos && Ln[F] != '#') return ""; // code: no cookie below it
    if (F != std::string::npos) {
      for (size_t C = Ln.find("coding", F); C != std::string::npos; C = Ln.find("coding", C + 1)) {
        if (C + 6 >= Ln.size() || (Ln[C + 6] != ':' && Ln[C + 6] != '=')) continue;
        size_t V = Ln.find_first_not_of(" \t", C + 7);
        std::string Name;
        for (; V != std::string::npos && V < Ln.size(); ++V) {
          unsigned char Ch = Ln[V];
          if (!std::isalnum(Ch) && Ch != '-' && Ch != '_' && Ch != '.') break;
          Name += Ch == '_' ? '-' : char(std::tolower(Ch));
        }
        if (Name.empty()) continue;
        Line = L;
        return Name;
      }
    }
    B = E + (E + 1 < S.size() && S[E] == '\r' && S[E + 1] == '\n' ? 2 : 1);
  }
  return "";
}

} // namespace

/// The text tree-sitter parses: the file as UTF-8, transcoded from latin-1
/// when its coding cookie says so (Back then maps each byte of Text to the
/// file's byte), with CR-only line endings read as newlines (same length).
/// False, with Why, for a file that cannot be decoded; Why set on success is
/// a note (bytes that are not UTF-8, read as they are).
bool decodeSource(const std::string &Src, std::string &Text, std::vector<uint32_t> &Back,
                  std::string &Why) {
  unsigned Line = 0;
  std::string Enc = codingCookie(Src, Line);
  static const std::set<std::string> Utf8 = {"utf-8", "utf8", "u8", "utf", "utf-8-sig",
                                             "ascii", "us-ascii", "646"};
  static const std::set<std::string> Latin1 = {"latin-1", "latin1", "iso-8859-1", "iso8859-1",
                                               "8859", "cp819", "latin", "l1", "iso-latin-1"};
  if (Enc.empty() || Utf8.count(Enc)) {
    size_t At = 0;
    if (!validUtf8(Src, At)) {
      // Python would refuse it; tree-sitter reads past bad bytes in strings
      // and comments, so the rest is still analysed, and the note says so.
      static const char *Hex = "0123456789abcdef";
      unsigned char C = Src[At];
      Why = std::string("not valid UTF-8 (byte 0x") + Hex[C >> 4] + Hex[C & 15] + " at line " +
            std::to_string(1 + std::count(Src.begin(), Src.begin() + At, '\n')) +
            (Enc.empty() ? ") and no coding cookie names another encoding"
                         : ") under its coding cookie '" + Enc + "'") +
            "; analysed as is";
    }
    Text = Src;
  } else if (Latin1.count(Enc)) {
    Text.reserve(Src.size() + Src.size() / 8);
    Back.reserve(Src.size() + Src.size() / 8 + 1);
    for (size_t I = 0; I < Src.size(); ++I) {
      unsigned char C = Src[I];
      if (C < 0x80) {
        Text += char(C);
        Back.push_back(uint32_t(I));
      } else {
        Text += char(0xC0 | (C >> 6));
        Text += char(0x80 | (C & 0x3F));
        Back.push_back(uint32_t(I));
        Back.push_back(uint32_t(I));
      }
    }
    Back.push_back(uint32_t(Src.size()));
  } else {
    Why = "source encoding '" + Enc + "' (coding cookie, line " + std::to_string(Line) +
          ") is not supported (UTF-8 and latin-1 are); not analysed";
    return false;
  }
  // Old Mac line endings: tree-sitter-python reads a lone CR as blank space,
  // which makes the whole file one line.
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\r' && (I + 1 == Text.size() || Text[I + 1] != '\n')) Text[I] = '\n';
  return true;
}

namespace {

/// The kernel's profile: what the project's callers show (the project
/// model, across files), else what its own file's launchers show
/// (kernelProfile), else Unknown (the rule's default). The model's
/// inference verdict is kept only where the file alone would say training
/// (elsewhere Unknown already means inference, and says nothing new).
Profile projectProfile(const Module &M, const std::string &Kernel, std::string &Why) {
  std::string Local;
  Profile P = kernelProfile(M, Kernel, Local);
  if (M.Project) {
    project::ProjectModel::ProfileVerdict V = M.Project->profile(M.ProjectPath, Kernel);
    if (V.Prof == Profile::Training) {
      Why = V.Why;
      return Profile::Training;
    }
    if (V.Prof == Profile::Inference && P == Profile::Training) {
      Why = V.Why + ", though in its own file " + Local;
      return Profile::Inference;
    }
  }
  Why = Local;
  return P;
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
    F->capDepth(); // no walk over the IR recurses past MaxNodeDepth
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
                              const Options &Opts, const TreeDtypes *Tree,
                              const project::ProjectModel *Project) {
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
  if (std::string Why = notSourceText(Source); !Why.empty()) {
    Out.Notes.push_back(Why);
    Out.Failed = true;
    return Out;
  }
  std::string Text, Why;
  std::vector<uint32_t> Back; // Text's bytes -> Source's, when transcoded
  if (!decodeSource(Source, Text, Back, Why)) {
    Out.Notes.push_back(Why);
    Out.Failed = true;
    return Out;
  }
  if (!Why.empty()) Out.Notes.push_back(Why);
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
  std::string Work = Text;
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
  if (Project && !Project->empty()) {
    M.Project = Project;
    M.ProjectPath = project::canonicalPath(Path);
  }
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
  joinForeignLaunches(M); // the kernels' launches in other files of the project
  for (const std::string &N : M.JitOrder) {
    const JitFn &J = M.Jit[N];
    // Helpers called from another jit function are analysed inlined, with
    // their callers' argument facts; lowering them alone would judge their
    // parameters without those facts.
    if (J.Called) continue;
    FlagPlan Plan = planFlags(M, J);
    std::string ProfWhy;
    Profile Prof = projectProfile(M, J.Name, ProfWhy); // the kernel's, whatever the flags
    for (unsigned Combo = 0; Combo < (1u << Plan.Value.size()); ++Combo) {
      std::map<std::string, bool> Fixed;
      for (const std::string &W : Plan.Widen) Fixed[W] = true;
      for (size_t I = 0; I < Plan.Value.size(); ++I) Fixed[Plan.Value[I]] = (Combo >> I) & 1;
      Out.Functions.push_back(lowerFunction(M, J, Fixed, Out.Notes));
      Out.Functions.back()->Prof = Prof;
      Out.Functions.back()->ProfileWhy = ProfWhy;
    }
  }
  if (!Back.empty()) {
    // Transcoded: positions back to the file's bytes (lines are the same).
    std::vector<uint32_t> Starts = {0};
    for (size_t I = 0; I < Source.size(); ++I)
      if (Source[I] == '\n') Starts.push_back(uint32_t(I + 1));
    for (auto &F : Out.Functions)
      F->forEachLoc([&](SrcLoc &L) {
        if (!L.valid() || L.Offset >= Back.size()) return;
        L.Offset = Back[L.Offset];
        if (L.Line <= Starts.size() && L.Offset >= Starts[L.Line - 1])
          L.Col = L.Offset - Starts[L.Line - 1] + 1;
      });
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
