//===- TreeDtypes.cpp - integer tensor dtypes the scanned tree allocates --===//
//
// A Triton kernel loads an index from a table whose element type the
// kernel's signature does not say; only the host code that allocated the
// table does. A launcher in the kernel's own file shows it sometimes
// (Launcher.cpp, dtypeOf); most often the table is allocated by a model
// runner in another file (vLLM's `self.slot_mapping =
// self._make_buffer(n, dtype=torch.int64)`) and reaches the launcher through
// a metadata object (`attn_metadata.slot_mapping`).
//
// This index reads every Python file of a scan once and records, per name,
// what a tensor of that name is made as:
//
//  * an allocation: any call with `dtype=` (`torch.empty(..., dtype=...)`,
//    `self._make_buffer(..., dtype=...)`, `np.zeros(..., dtype=...)`),
//    `x.long()`, `x.int()`, `x.to(torch.int64)`, `torch.arange(n)` (int64);
//    a torch maker without `dtype=` (`torch.empty(n)`, `torch.empty_like(x)`)
//    is an allocation of a type the index does not know;
//  * a pass-through: `NAME = other.OTHER` or `f(NAME=OTHER)`, a name given
//    the tensor another name holds (`attention_slot_mapping=md.slot_mapping`).
//
// under the name it is bound to: an assignment's target (an identifier, or
// an attribute's last name: `self.slot_mapping`), or a call's keyword
// (`slot_mapping=torch.zeros(...)` in a constructor). A name's dtype is
// known only when every allocation of that name, and every pass-through
// from a name whose type is known, agree on one integer type; two types, a
// float, or an allocation of a type the index cannot read make it unknown,
// and so does a pass-through from such a name. A pass-through from a name
// nothing is known of (a parameter no scanned file allocates, a dict of
// tensors) adds nothing. The launcher asks the index last, for a name whose own
// file does not show it.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

namespace kvlint {

namespace {

using namespace triton;

/// The integer type a dtype expression names (`torch.int64`, `torch.long`,
/// `np.int32`), Other for a non-integer dtype (`torch.float16`, `torch.bool`)
/// and Unknown for anything else (a variable: `dtype=idx_dtype`).
enum class DK { Unknown, Int, Other };
DK dtypeText(const std::string &T, IntTy &Ty) {
  size_t Dot = T.rfind('.');
  std::string Mod = Dot == std::string::npos ? "" : T.substr(0, Dot);
  std::string Leaf = Dot == std::string::npos ? T : T.substr(Dot + 1);
  if (Mod != "torch" && Mod != "np" && Mod != "numpy") return DK::Unknown;
  static const std::map<std::string, IntTy> Ints = {
      {"int64", IntTy::integer(64, true)},  {"long", IntTy::integer(64, true)},
      {"int32", IntTy::integer(32, true)},  {"int", IntTy::integer(32, true)},
      {"intc", IntTy::integer(32, true)},   {"int16", IntTy::integer(16, true)},
      {"short", IntTy::integer(16, true)},  {"int8", IntTy::integer(8, true)},
      {"uint8", IntTy::integer(8, false)},  {"uint16", IntTy::integer(16, false)},
      {"uint32", IntTy::integer(32, false)}, {"uint64", IntTy::integer(64, false)}};
  auto It = Ints.find(Leaf);
  if (It != Ints.end()) {
    // numpy's `np.int` is gone; `torch.int` is int32.
    if (Leaf == "int" && Mod != "torch") return DK::Unknown;
    Ty = It->second;
    return DK::Int;
  }
  return DK::Other;
}

struct FileReader {
  const std::string &Src;
  TreeDtypes &Out;

  std::string text(TSNode N) const {
    uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
    if (B > Src.size() || E > Src.size() || E < B) return "";
    return Src.substr(B, E - B);
  }

  /// The name a value is bound to or read from: an identifier, or an
  /// attribute's last name. "" for anything else.
  std::string nameOf(TSNode N) const {
    if (is(N, "identifier")) return text(N);
    if (is(N, "attribute")) return text(field(N, "attribute"));
    return "";
  }

  /// What Value makes Name: an allocation (Alloc with its type, or Other),
  /// a pass-through from another name, or nothing the index reads.
  void bind(const std::string &Name, TSNode Value) {
    if (Name.empty() || Name == "dtype" || Name == "device") return;
    Value = stripParensTs(Value);
    if (is(Value, "identifier") || is(Value, "attribute")) {
      std::string From = nameOf(Value);
      if (!From.empty() && From != Name) Out.passThrough(Name, From);
      return;
    }
    if (!is(Value, "call")) return;
    TSNode Fn = field(Value, "function");
    TSNode DTypeKw{};
    std::vector<TSNode> Pos;
    for (TSNode A : kids(field(Value, "arguments"))) {
      if (is(A, "keyword_argument")) {
        if (text(field(A, "name")) == "dtype") DTypeKw = field(A, "value");
      } else {
        Pos.push_back(A);
      }
    }
    IntTy Ty;
    if (!ts_node_is_null(DTypeKw)) {
      switch (dtypeText(text(DTypeKw), Ty)) {
      case DK::Int: Out.allocate(Name, Ty); return;
      case DK::Other: Out.allocate(Name, IntTy()); return;
      case DK::Unknown: Out.allocate(Name, IntTy()); return;
      }
    }
    if (!is(Fn, "attribute")) return;
    std::string Meth = text(field(Fn, "attribute"));
    std::string Callee = text(Fn);
    if (Meth == "long") return Out.allocate(Name, IntTy::integer(64, true));
    if (Meth == "int") return Out.allocate(Name, IntTy::integer(32, true));
    if (Meth == "to" || Meth == "type") {
      for (TSNode A : Pos) {
        switch (dtypeText(text(A), Ty)) {
        case DK::Int: Out.allocate(Name, Ty); return;
        case DK::Other: Out.allocate(Name, IntTy()); return;
        case DK::Unknown: break; // .to(device), .to(x.device)
        }
      }
      return;
    }
    if (Callee == "torch.arange" || Callee == "torch.randint") {
      for (TSNode A : Pos)
        if (is(stripParensTs(A), "float")) return Out.allocate(Name, IntTy());
      return Out.allocate(Name, IntTy::integer(64, true));
    }
    static const std::set<std::string> Makers = {
        "torch.empty",      "torch.zeros",      "torch.ones",      "torch.full",
        "torch.tensor",     "torch.as_tensor",  "torch.empty_like", "torch.zeros_like",
        "torch.ones_like",  "torch.full_like",  "torch.empty_strided", "torch.rand",
        "torch.randn",      "torch.randn_like", "torch.rand_like"};
    static const std::set<std::string> NewMakers = {"new_empty", "new_zeros", "new_ones",
                                                    "new_full", "new_tensor"};
    if (Makers.count(Callee) || NewMakers.count(Meth)) Out.allocate(Name, IntTy());
  }

  static TSNode stripParensTs(TSNode N) {
    while (is(N, "parenthesized_expression") && ts_node_named_child_count(N) == 1)
      N = ts_node_named_child(N, 0);
    return N;
  }

  void run(TSNode Root) {
    walk(Root, [&](TSNode N) {
      if (is(N, "assignment")) {
        TSNode L = field(N, "left"), R = field(N, "right");
        if (ts_node_is_null(R)) return; // `x: T` alone
        if ((is(L, "pattern_list") || is(L, "tuple_pattern")) &&
            (is(R, "expression_list") || is(R, "tuple"))) {
          std::vector<TSNode> Ls = kids(L), Rs = kids(R);
          if (Ls.size() == Rs.size())
            for (size_t I = 0; I < Ls.size(); ++I) bind(nameOf(Ls[I]), Rs[I]);
          return;
        }
        bind(nameOf(L), R);
      } else if (is(N, "keyword_argument")) {
        bind(text(field(N, "name")), field(N, "value"));
      }
    });
  }
};

} // namespace

void TreeDtypes::allocate(const std::string &Name, IntTy Ty) {
  Entry &E = Names[Name];
  if (!Ty.known()) {
    E.Poisoned = true;
    return;
  }
  if (E.Ty.known() && (E.Ty.Bits != Ty.Bits || E.Ty.Signed != Ty.Signed)) E.Poisoned = true;
  E.Ty = Ty;
}

void TreeDtypes::passThrough(const std::string &Name, const std::string &From) {
  Names[Name].From.insert(From);
}

bool TreeDtypes::addFile(const std::string &Source) {
  // Only a file that names an integer dtype, or converts to one, can
  // allocate an integer table; the rest can still pass one through, but a
  // pass-through alone decides nothing.
  if (Source.find("dtype") == std::string::npos && Source.find(".long()") == std::string::npos &&
      Source.find(".int()") == std::string::npos && Source.find("arange") == std::string::npos)
    return false;
  if (Source.size() > (64u << 20) || Source.find('\0') != std::string::npos) return false;
  TSParser *P = ts_parser_new();
  if (!ts_parser_set_language(P, tree_sitter_python())) {
    ts_parser_delete(P);
    return false;
  }
  TSTree *T = ts_parser_parse_string(P, nullptr, Source.data(), (uint32_t)Source.size());
  if (T) {
    FileReader R{Source, *this};
    R.run(ts_tree_root_node(T));
    ts_tree_delete(T);
  }
  ts_parser_delete(P);
  return T != nullptr;
}

void TreeDtypes::merge(const TreeDtypes &O) {
  for (const auto &[N, E] : O.Names) {
    Entry &Mine = Names[N];
    if (E.Poisoned) Mine.Poisoned = true;
    if (E.Ty.known()) allocate(N, E.Ty);
    Mine.From.insert(E.From.begin(), E.From.end());
  }
}

void TreeDtypes::finish() {
  for (auto &[N, E] : Names) E.State = 0;
  for (auto &[N, E] : Names) resolve(N, 0);
}

/// A name's type: its allocations' and, through each pass-through, the type
/// of the name it is given from. Dead (unknown, and said so) when they are
/// not one integer type, or a source is dead; a source nothing is known of
/// (a dict of tensors, a parameter no file allocates) adds nothing, nor does
/// a pass-through back into a name being resolved (a cycle).
TreeDtypes::Resolution TreeDtypes::resolve(const std::string &Name, unsigned Depth) {
  auto It = Names.find(Name);
  if (It == Names.end()) return {};
  Entry &E = It->second;
  if (E.State == 2) return E.Resolved;
  if (E.State == 1) return {}; // a cycle
  E.State = 1;
  Resolution R;
  if (E.Poisoned || Depth > 32) R.Dead = true;
  else R.Ty = E.Ty;
  for (const std::string &F : E.From) {
    if (R.Dead) break;
    Resolution X = resolve(F, Depth + 1);
    if (X.Dead || (X.Ty.known() && R.Ty.known() &&
                   (X.Ty.Bits != R.Ty.Bits || X.Ty.Signed != R.Ty.Signed)))
      R = {IntTy(), true};
    else if (X.Ty.known())
      R.Ty = X.Ty;
  }
  if (R.Dead) R.Ty = IntTy();
  E.State = 2;
  E.Resolved = R;
  return R;
}

IntTy TreeDtypes::dtypeOf(const std::string &Name) const {
  auto It = Names.find(Name);
  if (It == Names.end() || It->second.State != 2) return IntTy();
  return It->second.Resolved.Ty;
}

size_t TreeDtypes::knownNames() const {
  size_t N = 0;
  for (const auto &[K, E] : Names) N += E.State == 2 && E.Resolved.Ty.known();
  return N;
}

} // namespace kvlint
