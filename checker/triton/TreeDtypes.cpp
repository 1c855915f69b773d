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
//    the tensor another name holds (`attention_slot_mapping=md.slot_mapping`);
//    and `f(..., OTHER, ...)` for a function `f` the tree defines once, into
//    its parameter at that position, when no file makes that parameter's
//    name itself (a name the tree allocates is decided by its allocations).
//
// The same pass records the names the tree writes a negative pad into
// (KV003's evidence that a slot table can hold the pad): `x.fill_(-1)`,
// `x.masked_fill_(m, PAD_SLOT_ID)`, `x = torch.full(..., -1)` (and
// `new_full`, `full_like`), `x[i] = PAD_SLOT_ID`. A pad is `-1` or a name
// that says pad (`PAD_SLOT_ID`, `self.pad_slot_id`).
//
// Files are read with a small tokenizer (strings, comments, brackets,
// operators), not parsed: the index reads every Python file of the scan,
// and a full parse of them all cost more than the rest of the Python work.
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

#include <cctype>
#include <cstring>

namespace kvlint {

namespace {

using namespace triton;

/// The integer type a dtype expression names (`torch.int64`, `torch.long`,
/// `np.int32`), Other for a non-integer dtype of torch or numpy
/// (`torch.float16`, `torch.bool`) and Unknown for anything else (a
/// variable: `dtype=idx_dtype`).
enum class DK { Unknown, Int, Other };
DK dtypeText(const std::string &T, IntTy &Ty) {
  size_t Dot = T.rfind('.');
  std::string Mod = Dot == std::string::npos ? "" : T.substr(0, Dot);
  if (Mod != "torch" && Mod != "np" && Mod != "numpy") return DK::Unknown;
  Ty = triton::integerDtype(T);
  return Ty.known() ? DK::Int : DK::Other;
}

struct Tok {
  enum K : uint8_t { Name, Num, Op, Open, Close, Newline } Kind;
  uint32_t B, E; ///< bytes in the source
};

/// Python's tokens, without tree-sitter: the index reads every Python file
/// of a scan, and a full parse of them all cost more than the rest of the
/// Python analysis together. Only what `bind` needs is kept.
std::vector<Tok> tokenize(const std::string &S) {
  std::vector<Tok> T;
  size_t I = 0, N = S.size();
  int Depth = 0;
  auto IsId = [](unsigned char C) { return std::isalnum(C) || C == '_' || C >= 0x80; };
  while (I < N) {
    unsigned char C = S[I];
    if (C == '#') {
      while (I < N && S[I] != '\n') ++I;
      continue;
    }
    if (C == '\\' && I + 1 < N && (S[I + 1] == '\n' || S[I + 1] == '\r')) { // continuation
      I += 2;
      continue;
    }
    if (C == '\n') {
      if (Depth == 0 && !T.empty() && T.back().Kind != Tok::Newline)
        T.push_back({Tok::Newline, uint32_t(I), uint32_t(I + 1)});
      ++I;
      continue;
    }
    if (std::isspace(C)) {
      ++I;
      continue;
    }
    // Strings, with their prefixes (r, b, f, u, rb, ...); triple-quoted too.
    size_t Q = I;
    while (Q < N && Q - I < 2 && std::strchr("rRbBuUfF", S[Q])) ++Q;
    if (Q < N && (S[Q] == '\'' || S[Q] == '"') && (Q == I || !IsId(I > 0 ? S[I - 1] : ' '))) {
      char D = S[Q];
      bool Triple = Q + 2 < N && S[Q + 1] == D && S[Q + 2] == D;
      size_t J = Q + (Triple ? 3 : 1);
      while (J < N) {
        if (S[J] == '\\') {
          J += 2;
          continue;
        }
        if (S[J] == D && (!Triple || (J + 2 < N && S[J + 1] == D && S[J + 2] == D))) {
          J += Triple ? 3 : 1;
          break;
        }
        if (!Triple && S[J] == '\n')
          break; // unterminated: stop at the line
        ++J;
      }
      I = std::min(J, N);
      T.push_back({Tok::Num, uint32_t(Q), uint32_t(I)}); // a string is a value, like a number
      continue;
    }
    if (IsId(C) && !std::isdigit(C)) {
      size_t J = I;
      while (J < N && IsId(S[J])) ++J;
      T.push_back({Tok::Name, uint32_t(I), uint32_t(J)});
      I = J;
      continue;
    }
    if (std::isdigit(C) || (C == '.' && I + 1 < N && std::isdigit((unsigned char)S[I + 1]))) {
      size_t J = I;
      while (J < N && (IsId(S[J]) || S[J] == '.' ||
                       ((S[J] == '+' || S[J] == '-') && (S[J - 1] == 'e' || S[J - 1] == 'E'))))
        ++J;
      T.push_back({Tok::Num, uint32_t(I), uint32_t(J)});
      I = J;
      continue;
    }
    if (C == '(' || C == '[' || C == '{') {
      ++Depth;
      T.push_back({Tok::Open, uint32_t(I), uint32_t(I + 1)});
      ++I;
      continue;
    }
    if (C == ')' || C == ']' || C == '}') {
      Depth = std::max(0, Depth - 1);
      T.push_back({Tok::Close, uint32_t(I), uint32_t(I + 1)});
      ++I;
      continue;
    }
    // Operators: '=' alone is assignment or a keyword; '==', '<=', '+=', ...
    // are other operators, kept whole.
    size_t J = I + 1;
    static const char *Two[] = {"==", "!=", "<=", ">=", "->", ":=", "**", "//", "<<", ">>",
                                "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
    for (const char *O : Two)
      if (S.compare(I, 2, O) == 0) {
        J = I + 2;
        if (J < N && S[J] == '=' && (O[0] == '*' || O[0] == '/' || O[0] == '<' || O[0] == '>'))
          ++J; // **= //= <<= >>=
        break;
      }
    T.push_back({Tok::Op, uint32_t(I), uint32_t(J)});
    I = J;
  }
  T.push_back({Tok::Newline, uint32_t(N), uint32_t(N)});
  return T;
}

struct FileReader {
  const std::string &Src;
  TreeDtypes &Out;
  std::vector<Tok> T;

  std::string text(const Tok &K) const { return Src.substr(K.B, K.E - K.B); }
  bool isOp(size_t I, const char *O) const {
    return I < T.size() && T[I].Kind == Tok::Op && Src.compare(T[I].B, T[I].E - T[I].B, O) == 0 &&
           std::strlen(O) == T[I].E - T[I].B;
  }
  bool isName(size_t I) const { return I < T.size() && T[I].Kind == Tok::Name; }
  /// The token after the bracket that opens at I.
  size_t close(size_t I) const {
    int D = 0;
    for (size_t J = I; J < T.size(); ++J) {
      if (T[J].Kind == Tok::Open) ++D;
      else if (T[J].Kind == Tok::Close && --D == 0) return J + 1;
      else if (T[J].Kind == Tok::Newline && D <= 0) return J;
    }
    return T.size();
  }
  /// [B, E) split at the commas of its own depth.
  std::vector<std::pair<size_t, size_t>> split(size_t B, size_t E) const {
    std::vector<std::pair<size_t, size_t>> R;
    size_t Start = B;
    for (size_t J = B; J < E;) {
      if (T[J].Kind == Tok::Open) {
        J = close(J);
        continue;
      }
      if (isOp(J, ",")) {
        R.push_back({Start, J});
        Start = J + 1;
      }
      ++J;
    }
    if (Start < E) R.push_back({Start, E});
    return R;
  }
  std::string joined(size_t B, size_t E) const {
    return B < E ? Src.substr(T[B].B, T[E - 1].E - T[B].B) : "";
  }

  /// A target: `name`, `self.name`, `a.b.name` (an annotation after ':' is
  /// skipped). "" for anything else (a subscript, a call).
  std::string target(size_t B, size_t E) const {
    size_t End = B;
    while (End < E && !isOp(End, ":")) ++End;
    if (End == B || !isName(End - 1)) return "";
    for (size_t J = B; J < End; ++J)
      if (!(isName(J) && (J == B || isOp(J - 1, "."))) && !(isOp(J, ".") && J > B && isName(J - 1)))
        return "";
    return text(T[End - 1]);
  }

  /// What the value in [B, E) makes Name: the same rules as an expression
  /// tree would give (docs at the top of this file).
  void bind(const std::string &Name, size_t B, size_t E) {
    if (Name.empty() || Name == "dtype" || Name == "device" || B >= E) return;
    // A primary chain: a name, then `.name`, `(...)` and `[...]` trailers.
    if (!isName(B)) return;
    size_t LastCall = SIZE_MAX, LastTrailer = SIZE_MAX, J = B + 1;
    while (J < E) {
      if (isOp(J, ".") && isName(J + 1)) {
        LastTrailer = J;
        J += 2;
      } else if (T[J].Kind == Tok::Open) {
        LastTrailer = J;
        if (Src[T[J].B] == '(') LastCall = J;
        else if (Src[T[J].B] != '[') return;
        J = close(J);
      } else {
        return; // an operator: not a single value
      }
    }
    if (J != E) return;
    if (LastTrailer == SIZE_MAX || (isOp(LastTrailer, ".") && LastCall == SIZE_MAX) ||
        (isOp(LastTrailer, ".") && LastCall < LastTrailer)) {
      // `other`, `md.slot_mapping`: a pass-through (a subscript is none).
      if (T[E - 1].Kind == Tok::Name) {
        std::string From = text(T[E - 1]);
        if (From != Name) Out.passThrough(Name, From);
      }
      return;
    }
    if (LastTrailer != LastCall) return; // ends with a subscript
    std::string Callee = joined(B, LastCall);
    std::string Meth = isName(LastCall - 1) ? text(T[LastCall - 1]) : ""; // `.to`, `.long`
    size_t AE = close(LastCall) - 1; // the ')'
    std::string DType;
    std::vector<std::pair<size_t, size_t>> Pos;
    for (auto [AB, AEnd] : split(LastCall + 1, AE)) {
      if (isName(AB) && isOp(AB + 1, "=")) {
        if (text(T[AB]) == "dtype") DType = joined(AB + 2, AEnd);
      } else {
        Pos.push_back({AB, AEnd});
      }
    }
    IntTy Ty;
    if ((Callee == "torch.full" || Callee == "torch.full_like" || Meth == "new_full") &&
        padFill(LastCall) && !DType.empty())
      Out.pad(Name, "the tree's Python pads it ('" + Name + " = " + joined(B, E) + "')");
    if (!DType.empty()) {
      DK K = dtypeText(DType, Ty);
      Out.allocate(Name, K == DK::Int ? Ty : IntTy());
      return;
    }
    // Past `dtype=`, only a method or a dotted callee says anything: a plain
    // `f(...)` (`int(x)` included) is a value of unknown kind.
    if (LastCall < B + 2 || !isOp(LastCall - 2, ".")) return;
    if (Meth == "long") return Out.allocate(Name, IntTy::integer(64, true));
    if (Meth == "int") return Out.allocate(Name, IntTy::integer(32, true));
    if (Meth == "to" || Meth == "type") {
      for (auto [AB, AEnd] : Pos) {
        switch (dtypeText(joined(AB, AEnd), Ty)) {
        case DK::Int: Out.allocate(Name, Ty); return;
        case DK::Other: Out.allocate(Name, IntTy()); return;
        case DK::Unknown: break; // .to(device), .to(x.device)
        }
      }
      return;
    }
    if (Callee == "torch.arange" || Callee == "torch.randint") {
      for (auto [AB, AEnd] : Pos)
        for (size_t K = AB; K < AEnd; ++K)
          if (T[K].Kind == Tok::Num && text(T[K]).find_first_of(".eE") != std::string::npos &&
              text(T[K]).find_first_of("xX\"'") == std::string::npos)
            return Out.allocate(Name, IntTy());
      return Out.allocate(Name, IntTy::integer(64, true));
    }
    static const std::set<std::string> Makers = {
        "torch.empty", "torch.zeros", "torch.ones", "torch.full", "torch.tensor",
        "torch.as_tensor", "torch.empty_like", "torch.zeros_like", "torch.ones_like",
        "torch.full_like", "torch.empty_strided", "torch.rand", "torch.randn", "torch.randn_like",
        "torch.rand_like"};
    static const std::set<std::string> NewMakers = {"new_empty", "new_zeros", "new_ones",
                                                    "new_full", "new_tensor"};
    if ((Callee == "torch.full" || Callee == "torch.full_like" || Meth == "new_full" ||
         Callee == "torch.where") &&
        padFill(LastCall))
      Out.pad(Name, "the tree's Python pads it ('" + Name + " = " + joined(B, E) + "')");
    if (Makers.count(Callee) || NewMakers.count(Meth)) Out.allocate(Name, IntTy());
  }

  /// `-1`, or a name (chain) that says pad: PAD_SLOT_ID, self.pad_slot_id.
  bool padValue(size_t B, size_t E) const {
    if (E == B + 2 && isOp(B, "-") && text(T[B + 1]) == "1") return true;
    if (E <= B || !isName(E - 1)) return false;
    for (size_t J = B; J < E; ++J)
      if (!((J - B) % 2 == 0 ? isName(J) : isOp(J, "."))) return false;
    std::string L = text(T[E - 1]);
    for (char &C : L) C = char(std::tolower(static_cast<unsigned char>(C)));
    return L.find("pad") != std::string::npos;
  }

  /// A maker or method that fills with one of its arguments: is the fill a pad?
  bool padFill(size_t Open) const {
    size_t AE = close(Open) - 1;
    for (auto [AB, AEnd] : split(Open + 1, AE)) {
      if (isName(AB) && isOp(AB + 1, "=")) {
        if (text(T[AB]) == "fill_value" || text(T[AB]) == "value") {
          if (padValue(AB + 2, AEnd)) return true;
        }
        continue;
      }
      if (padValue(AB, AEnd)) return true;
    }
    return false;
  }

  void run() {
    T = tokenize(Src);
    size_t Line = 0; // where the logical line starts
    std::vector<size_t> Eq; // its '=' tokens at depth 0
    int Depth = 0;
    for (size_t I = 0; I < T.size(); ++I) {
      const Tok &K = T[I];
      if (K.Kind == Tok::Open) ++Depth;
      if (K.Kind == Tok::Close) Depth = std::max(0, Depth - 1);
      else if (K.Kind == Tok::Newline) {
        statement(Line, I, Eq);
        Line = I + 1;
        Eq.clear();
        Depth = 0;
      } else if (K.Kind == Tok::Open && Src[K.B] == '(' && I >= 1 && isName(I - 1)) {
        std::string M = text(T[I - 1]);
        if ((M == "fill_" || M == "masked_fill_" || M == "index_fill_") && I >= 3 &&
            isOp(I - 2, ".") && padFill(I)) {
          size_t K = I - 3; // x.fill_(-1), x[n:].fill_(-1)
          for (int D = 0; K > 0 && T[K].Kind == Tok::Close && Src[T[K].B] == ']';) {
            for (D = 0; K > 0; --K) {
              if (T[K].Kind == Tok::Close) ++D;
              else if (T[K].Kind == Tok::Open && --D == 0) break;
            }
            if (K > 0) --K;
          }
          if (isName(K))
            Out.pad(text(T[K]), "the tree's Python pads it ('" + joined(K, close(I)) + "')");
        }
        callOrDef(I);
      } else if (isOp(I, "=")) {
        if (Depth == 0) {
          Eq.push_back(I);
        } else if (I >= 2 && isName(I - 1) && (T[I - 2].Kind == Tok::Open || isOp(I - 2, ","))) {
          // A keyword argument NAME=VALUE, up to the next comma or bracket.
          size_t E = I + 1;
          while (E < T.size() && !isOp(E, ",") && T[E].Kind != Tok::Close &&
                 T[E].Kind != Tok::Newline) {
            if (T[E].Kind == Tok::Open) E = close(E);
            else ++E;
          }
          bind(text(T[I - 1]), I + 1, E);
        }
      }
    }
  }

  /// `def f(a, b=1, *c)`: f's positional parameters; `f(x, md.y)`: the
  /// names passed positionally, which the index binds to f's parameters
  /// once every file is read (a tensor handed to a launcher through a
  /// helper: `_run_tiled_kv(..., fa_md.slot_mapping, ...)`).
  void callOrDef(size_t Open) {
    static const std::set<std::string> NotCalls = {"if", "elif", "while", "for", "return",
                                                   "and", "or", "not", "in", "is", "print",
                                                   "assert", "with", "yield", "lambda", "class"};
    std::string Fn = text(T[Open - 1]);
    if (NotCalls.count(Fn)) return;
    size_t E = close(Open) - 1;
    if (E >= T.size() || T[E].Kind != Tok::Close) return;
    std::vector<std::pair<size_t, size_t>> Args = split(Open + 1, E);
    if (Open >= 2 && isName(Open - 2) && text(T[Open - 2]) == "def") {
      std::vector<std::string> Params;
      for (auto [B, AE] : Args) {
        if (!isName(B)) break; // *args, **kw, a bare * or /: no more positionals
        Params.push_back(text(T[B]));
      }
      Out.define(Fn, std::move(Params));
      return;
    }
    if (Open >= 2 && isName(Open - 2) && text(T[Open - 2]) == "class") return;
    bool Method = Open >= 2 && isOp(Open - 2, ".");
    unsigned Index = 0;
    for (auto [B, AE] : Args) {
      if (isName(B) && isOp(B + 1, "=")) break; // keywords follow
      if (isOp(B, "*") || isOp(B, "**")) break;   // f(*xs): positions unknown after it
      if (!isName(B) || (B + 1 < AE && !isOp(B + 1, "."))) {
        ++Index;
        continue;
      }
      bool Chain = true; // a name or an attribute chain
      for (size_t J = B; J < AE; ++J)
        Chain &= ((J - B) % 2 == 0) ? isName(J) : isOp(J, ".");
      if (Chain && isName(AE - 1)) Out.positional(Fn, Index, text(T[AE - 1]), Method);
      ++Index;
    }
  }

  /// `a = v`, `self.a = v`, `a: T = v`, `a = b = v`, `a, b = x, y`.
  void statement(size_t B, size_t E, const std::vector<size_t> &Eq) {
    if (Eq.empty()) return;
    size_t VB = Eq.back() + 1;
    // NAME[...] = PAD (also self.NAME[...]): a pad written into NAME.
    if (Eq.size() == 1 && padValue(VB, E)) {
      size_t J = B;
      while (J + 1 < Eq[0] && (isName(J) || isOp(J, "."))) ++J;
      if (J > B && isName(J - 1) && T[J].Kind == Tok::Open && Src[T[J].B] == '[' &&
          close(J) == Eq[0])
        Out.pad(text(T[J - 1]), "the tree's Python pads it ('" + joined(B, E) + "')");
    }
    std::vector<std::pair<size_t, size_t>> Vs = split(VB, E);
    size_t TB = B;
    for (size_t Q : Eq) {
      std::vector<std::pair<size_t, size_t>> Ts = split(TB, Q);
      if (Ts.size() == 1 && Vs.size() == 1) {
        bind(target(TB, Q), VB, E);
      } else if (Ts.size() == Vs.size()) {
        for (size_t K = 0; K < Ts.size(); ++K)
          bind(target(Ts[K].first, Ts[K].second), Vs[K].first, Vs[K].second);
      }
      TB = Q + 1;
    }
  }
};

} // namespace

IntTy triton::integerDtype(const std::string &Dotted) {
  size_t Dot = Dotted.rfind('.');
  if (Dot == std::string::npos) return IntTy();
  std::string Mod = Dotted.substr(0, Dot), Leaf = Dotted.substr(Dot + 1);
  if (Mod != "torch" && Mod != "np" && Mod != "numpy") return IntTy();
  // numpy's `np.int` is gone, and its `intc` is C's int; `torch.int` is int32.
  if (Leaf == "int" && Mod != "torch") return IntTy();
  static const std::map<std::string, IntTy> Ints = {
      {"int64", IntTy::integer(64, true)},  {"long", IntTy::integer(64, true)},
      {"int32", IntTy::integer(32, true)},  {"int", IntTy::integer(32, true)},
      {"intc", IntTy::integer(32, true)},   {"int16", IntTy::integer(16, true)},
      {"short", IntTy::integer(16, true)},  {"int8", IntTy::integer(8, true)},
      {"uint8", IntTy::integer(8, false)},  {"uint16", IntTy::integer(16, false)},
      {"uint32", IntTy::integer(32, false)}, {"uint64", IntTy::integer(64, false)}};
  auto It = Ints.find(Leaf);
  return It == Ints.end() ? IntTy() : It->second;
}

void TreeDtypes::allocate(const std::string &Name, IntTy Ty) {
  Entry &E = Names[Name];
  if (!Ty.known()) {
    E.Poisoned = true;
    return;
  }
  if (E.Ty.known() && (E.Ty.Bits != Ty.Bits || E.Ty.Signed != Ty.Signed)) E.Poisoned = true;
  E.Ty = Ty;
}

void TreeDtypes::pad(const std::string &Name, const std::string &Why) {
  Pads.emplace(Name, Why);
}

void TreeDtypes::passThrough(const std::string &Name, const std::string &From) {
  Names[Name].From.insert(From);
}

void TreeDtypes::define(const std::string &Fn, std::vector<std::string> Params) {
  if (Ambiguous.count(Fn)) return;
  auto [It, New] = Defs.emplace(Fn, Params);
  if (!New && It->second != Params) {
    Ambiguous.insert(Fn);
    Defs.erase(It);
  }
}

void TreeDtypes::positional(const std::string &Fn, unsigned Index, const std::string &Arg,
                            bool Method) {
  Calls.push_back({Fn, Arg, Index, Method});
}

bool TreeDtypes::addFile(const std::string &Source) {
  if (Source.size() > (64u << 20) || Source.find('\0') != std::string::npos) return false;
  if (Source.find('\r') != std::string::npos) {
    // CR-only line endings (old Mac) are newlines, as the Triton frontend
    // reads them; a CRLF's CR is blank space.
    std::string Lf = Source;
    for (size_t I = 0; I < Lf.size(); ++I)
      if (Lf[I] == '\r' && (I + 1 == Lf.size() || Lf[I + 1] != '\n')) Lf[I] = '\n';
    FileReader R{Lf, *this, {}};
    R.run();
    return true;
  }
  FileReader R{Source, *this, {}};
  R.run();
  return true;
}

void TreeDtypes::merge(const TreeDtypes &O) {
  for (const auto &[N, E] : O.Names) {
    Entry &Mine = Names[N];
    if (E.Poisoned) Mine.Poisoned = true;
    if (E.Ty.known()) allocate(N, E.Ty);
    Mine.From.insert(E.From.begin(), E.From.end());
  }
  for (const std::string &F : O.Ambiguous) {
    Ambiguous.insert(F);
    Defs.erase(F);
  }
  for (const auto &[F, P] : O.Defs) define(F, P);
  Calls.insert(Calls.end(), O.Calls.begin(), O.Calls.end());
  Pads.insert(O.Pads.begin(), O.Pads.end());
}

void TreeDtypes::finish() {
  PadFacts.clear();
  for (const auto &[N, Why] : Pads) {
    std::string K = ProjectFacts::norm(N);
    if (!K.empty() && !ProjectFacts::find(PadFacts, K)) PadFacts.push_back({K, Why});
  }
  // Positional arguments of calls to a function the tree defines once: the
  // argument is passed into that parameter (`self` first for `x.f(...)`).
  // Only into a parameter name nothing else in the tree makes (no
  // allocation, assignment or keyword under that name): a name the tree
  // allocates itself (`positions`) is decided by its allocations, not by
  // which helper a value is handed to positionally.
  std::vector<std::pair<std::string, std::string>> Edges;
  for (const Positional &C : Calls) {
    auto It = Defs.find(C.Fn);
    if (It == Defs.end()) continue;
    const std::vector<std::string> &P = It->second;
    size_t I = C.Index + (C.Method && !P.empty() && (P[0] == "self" || P[0] == "cls") ? 1 : 0);
    if (I >= P.size() || P[I] == C.Arg || P[I] == "self" || P[I] == "cls") continue;
    auto N = Names.find(P[I]);
    if (N != Names.end() &&
        (N->second.Ty.known() || N->second.Poisoned || !N->second.From.empty()))
      continue;
    Edges.push_back({P[I], C.Arg});
  }
  for (const auto &[To, From] : Edges) passThrough(To, From);
  Calls.clear();
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

std::string TreeDtypes::digest() const {
  std::string D;
  for (const auto &[K, E] : Names)
    if (E.State == 2 && E.Resolved.Ty.known()) {
      const IntTy &T = E.Resolved.Ty;
      D += std::to_string(K.size()) + ":" + K + "=" + std::to_string(T.Bits) +
           (T.Signed ? "s" : "u") + (T.Pointer ? "p" : "") + (T.Bool ? "b" : "") +
           (T.Float ? "f" : "") + "\n";
    }
  for (const NamedFact &F : PadFacts)
    D += "pad " + std::to_string(F.Name.size()) + ":" + F.Name + std::to_string(F.Why.size()) +
         ":" + F.Why + "\n";
  return D;
}

} // namespace kvlint
