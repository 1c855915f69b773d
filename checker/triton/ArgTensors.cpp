//===- ArgTensors.cpp - what a call passes as a tensor --------------------===//
//
// CallSite::ArgTensors of a Python function body's calls (the summary's
// half of ProjectModel::callerTensor, checker/project/Callers.cpp): for each
// argument, whether the caller passes a contiguous tensor it allocates, with
// its sizes (`torch.empty((heads, tokens))`, `x.new_zeros(n, d)`,
// `self.alloc_tensor((h, t), dtype)`, `.view(...)`, `.contiguous()` and
// `.cuda()` of one), or one of its own parameters unchanged (a wrapper
// passing it on).
//
// A name is read through the one binding that reaches the argument: the
// last plain `name = expr` before it, in a block that encloses the call
// (so it runs on every path to it), with no later binding in a loop around
// the call. A name bound any other way (a loop target, `+=`, unpacking,
// `as`, `:=`) or in a branch the call is not in tells nothing.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"
#include "project/Summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string_view>

namespace kvlint {
namespace triton {
namespace {

struct Span {
  uint32_t Lo = 0, Hi = 0;
  explicit Span(TSNode N) : Lo(ts_node_start_byte(N)), Hi(ts_node_end_byte(N)) {}
  bool holds(const Span &In) const { return Lo <= In.Lo && In.Hi <= Hi; }
};

struct Bind {
  Span Stmt; ///< the binding
  TSNode R;  ///< the value of a plain `name = expr`; null otherwise
  Span Blk;  ///< the block it runs in
};


class ArgTensors {
public:
  ArgTensors(const std::string &Src, TSNode Body, const std::vector<std::string> &Ps)
      : Src(Src), Body(Body) {
    for (const std::string &P : Ps)
      if (P != "*")
        Params.insert(P.substr(0, P.find('=')));
    bindings(Body, 0, Body);
    for (auto &[Name, Bs] : B) // in source order (the walk's, made sure of)
      std::stable_sort(Bs.begin(), Bs.end(),
                       [](const Bind &X, const Bind &Y) { return X.Stmt.Lo < Y.Stmt.Lo; });
  }

  /// What the expression E (an argument) is as a tensor.
  std::string of(TSNode E) { return tensorOf(E, E, 0); }

private:
  const std::string &Src;
  TSNode Body;
  std::set<std::string> Params;
  std::map<std::string, std::vector<Bind>> B;
  std::vector<Span> Loops;  ///< the body's for and while statements
  std::vector<Span> Nested; ///< the body's nested functions and lambdas

  // Names and constants: short texts, never cut.
  std::string text(TSNode N) const { return sourceText(Src, N); }
  std::string dotted(TSNode N) const { return dottedText(Src, N); }

  /// Calls F on each named child of N (a cursor: no quadratic indexing).
  template <typename Fn> static void eachChild(TSNode N, Fn &&F) {
    TSTreeCursor C = ts_tree_cursor_new(N);
    if (ts_tree_cursor_goto_first_child(&C))
      do {
        TSNode K = ts_tree_cursor_current_node(&C);
        if (ts_node_is_named(K))
          F(K);
      } while (ts_tree_cursor_goto_next_sibling(&C));
    ts_tree_cursor_delete(&C);
  }

  static bool endsWith(std::string_view S, std::string_view E) {
    return S.size() >= E.size() && S.substr(S.size() - E.size()) == E;
  }

  /// Whether an expression's text can hold a binding (`:=`) or a scope
  /// that shadows a name (a lambda, a comprehension).
  bool mayBind(TSNode N) const {
    uint32_t Lo = ts_node_start_byte(N), Hi = ts_node_end_byte(N);
    if (Hi > Src.size() || Hi <= Lo)
      return false;
    std::string_view V(Src.data() + Lo, Hi - Lo);
    return V.find(":=") != V.npos || V.find("lambda") != V.npos || V.find("for") != V.npos ||
           V.find("_(") != V.npos || V.find(" as ") != V.npos;
  }

  void bindings(TSNode N, unsigned Dp, TSNode Blk) {
    if (ts_node_is_null(N) || Dp > 200)
      return;
    auto Other = [&](TSNode T) {
      walk(T, [&](TSNode X) {
        if (is(X, "identifier"))
          B[text(X)].push_back({Span(N), TSNode{}, Span(Blk)});
      });
    };
    const std::string_view T = ts_node_type(N);
    if (T == "with_statement") { // its body always runs: the block around it holds
      eachChild(N, [&](TSNode K) {
        if (is(K, "block"))
          eachChild(K, [&](TSNode S) { bindings(S, Dp + 2, Blk); });
        else
          bindings(K, Dp + 1, Blk);
      });
      return;
    }
    if (T == "block") {
      Blk = N;
    } else if (T == "assignment") {
      TSNode L = field(N, "left"), R = field(N, "right");
      if (is(L, "identifier") && !ts_node_is_null(R))
        B[text(L)].push_back({Span(N), R, Span(Blk)});
      else if (is(L, "attribute") && is(field(L, "object"), "identifier") &&
               text(field(L, "attribute")) == "data") // `x.data = y.t()`
        B[text(field(L, "object"))].push_back({Span(N), TSNode{}, Span(Blk)});
      else if (!is(L, "subscript") && !is(L, "attribute"))
        Other(L);
    } else if (T == "augmented_assignment") {
      if (is(field(N, "left"), "identifier"))
        Other(field(N, "left"));
    } else if (T == "for_statement" || T == "while_statement" || T == "for_in_clause") {
      if (T != "for_in_clause")
        Loops.push_back(Span(N));
      if (T != "while_statement")
        Other(field(N, "left"));
    } else if (T == "named_expression") {
      Other(field(N, "name"));
    } else if (T == "as_pattern_target" || T.find("pattern") != T.npos) {
      Other(N); // `with f() as x`, `except E as x`, a `case` capture
      return;
    } else if (T == "function_definition" || T == "lambda") {
      // A nested scope's parameters shadow the outer names from where they
      // are declared; its body reads the outer names when it runs.
      TSNode Ps = field(N, "parameters");
      walk(Ps, [&](TSNode X) {
        if (is(X, "identifier"))
          B[text(X)].push_back({Span(Ps), TSNode{}, Span(Blk)});
      });
      Nested.push_back(Span(N));
    } else if (T == "list_comprehension" || T == "set_comprehension" ||
               T == "dictionary_comprehension" || T == "generator_expression") {
      // Its loop variables bind inside it, before any use in its body.
      Span At(N);
      At.Hi = At.Lo + 1;
      eachChild(N, [&](TSNode K) {
        if (is(K, "for_in_clause"))
          walk(field(K, "left"), [&](TSNode X) {
            if (is(X, "identifier"))
              B[text(X)].push_back({At, TSNode{}, Span(Blk)});
          });
      });
    } else if (T == "call") {
      // An in-place change of layout (`x.t_()`, `x.transpose_(0, 1)`,
      // `x.as_strided_(...)`, `x.resize_(...)`) rebinds what x is.
      static const std::set<std::string_view> InPlace = {
          "t_", "transpose_", "as_strided_", "resize_", "resize_as_", "unsqueeze_",
          "squeeze_", "set_", "swapdims_", "swapaxes_", "unflatten_", "share_memory_"};
      TSNode Fn = field(N, "function");
      if (is(Fn, "attribute") && InPlace.count(text(field(Fn, "attribute"))) &&
          is(stripParens(field(Fn, "object")), "identifier"))
        B[text(stripParens(field(Fn, "object")))].push_back({Span(N), TSNode{}, Span(Blk)});
      if (!mayBind(N))
        return;
    } else if (T != "module" && T != "decorated_definition" && T != "class_definition" &&
               T != "augmented_assignment" && !endsWith(T, "_statement") &&
               !endsWith(T, "_clause") && !mayBind(N)) {
      return; // an expression that binds nothing
    }
    eachChild(N, [&](TSNode K) { bindings(K, Dp + 1, Blk); });
  }

  /// The value of the one binding of Name that reaches Use; false when
  /// none does (it is a parameter, or unknown).
  bool reaching(const std::string &Name, TSNode UseN, TSNode &R, bool &Param) const {
    Param = false;
    const Span Use(UseN);
    uint32_t LoopEnd = 0; // the end of the outermost loop around the use
    for (const Span &L : Loops)
      if (L.holds(Use))
        LoopEnd = std::max(LoopEnd, L.Hi);
    const Bind *Last = nullptr;
    auto It = B.find(Name);
    if (It != B.end()) {
      const std::vector<Bind> &V = It->second;
      size_t K = size_t(std::lower_bound(V.begin(), V.end(), Use.Lo,
                                         [](const Bind &X, uint32_t U) { return X.Stmt.Lo < U; }) -
                        V.begin());
      // A later binding in a loop around the use reaches it on the next turn;
      // a nested function's body runs after any later binding of its name.
      if (K < V.size() && V[K].Stmt.Lo < LoopEnd)
        return false;
      if (K < V.size() && std::any_of(Nested.begin(), Nested.end(),
                                      [&](const Span &F) { return F.holds(Use); }))
        return false;
      for (size_t J = K; J-- > 0;) {
        if (!V[J].Stmt.holds(Use)) {
          Last = &V[J];
          break;
        }
        if (LoopEnd) // `x = f(x)` in a loop: its binding reaches the next turn
          return false;
      }
    }
    if (!Last) {
      Param = Params.count(Name) > 0;
      return false;
    }
    if (ts_node_is_null(Last->R) || !Last->Blk.holds(Use))
      return false;
    R = Last->R;
    return true;
  }

  /// One size as the launcher's extents spell it (Bounds::extentOf): a
  /// constant, a name (the last part of `self.num_heads`), `n/C` for
  /// `n // C`, `(n + C - 1) // C` and `triton.cdiv(n, C)`, a product of
  /// those, a size of another allocation (`y.shape[0]`, `y.size(0)`);
  /// "?" for anything else.
  std::string term(TSNode E, unsigned Dp) {
    E = stripParens(E);
    if (Dp > 6 || ts_node_is_null(E))
      return "?";
    int64_t V;
    if (is(E, "integer"))
      return parseInt(text(E), V) && V >= 1 ? std::to_string(V) : "?";
    if (is(E, "identifier")) {
      TSNode R;
      bool P;
      if (reaching(text(E), E, R, P)) {
        std::string T = term(R, Dp + 1);
        if (T != "?")
          return T;
      }
      return text(E);
    }
    if (is(E, "attribute")) {
      std::string A = text(field(E, "attribute"));
      return dotted(E).empty() || A == "shape" || A == "T" ? "?" : A;
    }
    auto Ratio = [&](TSNode Num, TSNode Den) -> std::string {
      Num = stripParens(Num);
      if (is(Num, "binary_operator") && text(field(Num, "operator")) == "+")
        Num = field(Num, "left"); // (n + C - 1) // C
      std::string N = term(Num, Dp + 1);
      int64_t C;
      if (N == "?" || N.find_first_of("*/") != std::string::npos ||
          !is(stripParens(Den), "integer") || !parseInt(text(stripParens(Den)), C) || C < 1)
        return "?";
      return N + "/" + std::to_string(C);
    };
    if (is(E, "binary_operator")) {
      std::string Op = text(field(E, "operator"));
      if (Op == "//")
        return Ratio(field(E, "left"), field(E, "right"));
      if (Op != "*")
        return "?";
      std::string L = term(field(E, "left"), Dp + 1), R = term(field(E, "right"), Dp + 1);
      return L == "?" || R == "?" ? "?" : L + "*" + R;
    }
    if (is(E, "call")) {
      std::vector<TSNode> As = kids(field(E, "arguments"));
      TSNode Fn = field(E, "function");
      std::string F = dotted(Fn);
      if ((F == "triton.cdiv" || F == "cdiv") && As.size() == 2)
        return Ratio(As[0], As[1]);
      if (is(Fn, "attribute") && text(field(Fn, "attribute")) == "size" && As.size() == 1)
        return sizeOf(field(Fn, "object"), As[0], Dp);
      return "?";
    }
    if (is(E, "subscript")) {
      TSNode O = field(E, "value");
      std::vector<TSNode> Ix = fieldKids(E, "subscript");
      if (is(O, "attribute") && text(field(O, "attribute")) == "shape" && Ix.size() == 1)
        return sizeOf(field(O, "object"), Ix[0], Dp);
    }
    return "?";
  }

  /// Size I of the allocation Obj names, or "?".
  std::string sizeOf(TSNode Obj, TSNode I, unsigned Dp) {
    int64_t K;
    if (!is(stripParens(I), "integer") || !parseInt(text(stripParens(I)), K))
      return "?";
    std::string T = tensorOf(Obj, Obj, Dp + 1);
    if (!fresh(T))
      return "?";
    std::vector<std::string> Zs = project::tabFields(T, 4);
    int64_t N = int64_t(Zs.size());
    if (K < 0)
      K += N;
    return K >= 0 && K < N ? Zs[size_t(K)] : "?";
  }

  std::string sizes(const std::vector<TSNode> &Es, unsigned Dp) {
    if (Es.empty() || Es.size() > 8)
      return "";
    std::string Out = "new";
    for (TSNode S : Es) {
      if (is(S, "list_splat") || is(S, "keyword_argument"))
        return "";
      Out += "\t" + term(S, Dp + 1);
    }
    return Out;
  }

  /// A lone argument that is a size, not a shape: `n * d`, `8`,
  /// `x.shape[0]`, `x.size(0)`, `x.numel()`, `len(y)` (a bare name may be
  /// either).
  bool oneSize(TSNode S) const {
    S = stripParens(S);
    if (is(S, "integer"))
      return true;
    if (is(S, "binary_operator")) { // `n * d`, `n // c`; never `x.shape[:-1] + (n,)`
      std::string Op = text(field(S, "operator"));
      auto Part = [&](TSNode X) { return oneSize(X) || isName(X); };
      return (Op == "*" || Op == "//") && Part(field(S, "left")) && Part(field(S, "right"));
    }
    if (is(S, "subscript")) { // `x.shape[0]`: an integer index into a shape
      TSNode V = field(S, "value");
      std::vector<TSNode> Ix = fieldKids(S, "subscript");
      return is(V, "attribute") && text(field(V, "attribute")) == "shape" && Ix.size() == 1 &&
             (is(Ix[0], "integer") || is(Ix[0], "unary_operator"));
    }
    if (!is(S, "call"))
      return false;
    TSNode Fn = field(S, "function");
    std::string M = is(Fn, "attribute") ? text(field(Fn, "attribute")) : text(Fn);
    return (M == "size" && !kids(field(S, "arguments")).empty()) || M == "numel" || M == "len";
  }

  static bool isName(TSNode N) {
    N = stripParens(N);
    return is(N, "identifier") || is(N, "attribute");
  }

  static bool fresh(const std::string &T) { return T.rfind("new", 0) == 0; }

  /// The sizes of a shape argument: a tuple or list (or a name bound to
  /// one), `y.shape` or `y.size()` of another allocation.
  std::string shapeArg(TSNode S, unsigned Dp) {
    S = stripParens(S);
    if (is(S, "identifier")) { // a name bound to a tuple (a list may grow)
      TSNode R;
      bool P;
      if (!reaching(text(S), S, R, P) || !is(stripParens(R), "tuple"))
        return "";
      S = stripParens(R);
    }
    if (is(S, "tuple") || is(S, "list"))
      return sizes(kids(S), Dp);
    TSNode Obj{};
    if (is(S, "attribute") && text(field(S, "attribute")) == "shape")
      Obj = field(S, "object");
    else if (is(S, "call") && is(field(S, "function"), "attribute") &&
             text(field(field(S, "function"), "attribute")) == "size" &&
             kids(field(S, "arguments")).empty())
      Obj = field(field(S, "function"), "object");
    if (ts_node_is_null(Obj))
      return "";
    std::string T = tensorOf(Obj, Obj, Dp + 1);
    return fresh(T) ? T : "";
  }

  std::string tensorOf(TSNode E, TSNode Use, unsigned Dp) {
    E = stripParens(E);
    if (Dp > 6 || ts_node_is_null(E))
      return "";
    if (is(E, "identifier")) {
      TSNode R;
      bool P;
      if (reaching(text(E), Use, R, P))
        return tensorOf(R, R, Dp + 1);
      return P ? "=" + text(E) : "";
    }
    if (!is(E, "call"))
      return "";
    TSNode Fn = field(E, "function");
    std::string Callee = dotted(Fn);
    bool Method = is(Fn, "attribute");
    std::string Meth = Method ? text(field(Fn, "attribute")) : Callee;
    std::vector<TSNode> Pos;
    bool Keywords = false;
    for (TSNode A : kids(field(E, "arguments"))) {
      if (is(A, "list_splat") || is(A, "dictionary_splat"))
        return "";
      if (is(A, "keyword_argument")) {
        Keywords = true;
        // A layout other than row-major (channels_last), or a size view
        // (`x.view(dtype=...)`): no contiguous sizes.
        std::string K = text(field(A, "name"));
        if (K == "memory_format" || K == "layout" || K == "dtype" && Meth == "view")
          return "";
      } else {
        Pos.push_back(A);
      }
    }
    // The same layout as the object, when that is a fresh allocation.
    auto Same = [&]() {
      std::string T = tensorOf(field(Fn, "object"), field(Fn, "object"), Dp + 1);
      return fresh(T) ? T : std::string();
    };
    static const std::set<std::string> Torch = {"torch.empty", "torch.zeros", "torch.ones",
                                                "torch.rand", "torch.randn"};
    static const std::set<std::string> New = {"new_empty", "new_zeros", "new_ones"};
    static const std::set<std::string> Like = {"torch.empty_like", "torch.zeros_like",
                                               "torch.ones_like"};
    if (Torch.count(Callee) || (Method && New.count(Meth))) {
      if (Pos.size() == 1 && oneSize(Pos[0]))
        return sizes(Pos, Dp); // torch.empty(n * d)
      return Pos.size() == 1 ? shapeArg(Pos[0], Dp) : sizes(Pos, Dp); // torch.empty(a, b)
    }
    if (Callee == "torch.full" || (Method && Meth == "new_full"))
      return Pos.size() == 2 ? shapeArg(Pos[0], Dp) : "";
    if (Like.count(Callee) && Pos.size() == 1 && !Keywords) {
      // empty_like keeps its argument's layout: contiguous when that is.
      std::string T = tensorOf(Pos[0], Pos[0], Dp + 1);
      return fresh(T) ? T : "";
    }
    if (Method && (Meth == "contiguous" || Meth == "cuda") && Pos.empty() && !Keywords)
      return Same();
    if (Method && Meth == "to" && !Keywords) // a device or a dtype, never a memory format
      return Same();
    if (Method && (Meth == "view" || Meth == "reshape") && !Pos.empty()) {
      if (Same().empty())
        return "";
      if (Pos.size() == 1 && is(stripParens(Pos[0]), "attribute")) // x.view(torch.int8)
        return "";
      return Pos.size() == 1 ? shapeArg(Pos[0], Dp) : sizes(Pos, Dp);
    }
    // An engine's tensor allocator (lightllm's `self.alloc_tensor(shape,
    // dtype)`, `alloc_tensor_func(shape, dtype=...)`), given the shape
    // first; not a pool's `alloc_kv(...)`, which may hand out a view.
    std::string Low = Meth;
    std::transform(Low.begin(), Low.end(), Low.begin(), ::tolower);
    if (Low.find("alloc_tensor") != std::string::npos && !Pos.empty())
      return shapeArg(Pos[0], Dp);
    return "";
  }
};

} // namespace

void argTensors(const std::string &Src, TSNode Body, const std::vector<std::string> &Params,
                const std::vector<std::vector<TSNode>> &Args, std::vector<project::CallSite> &Calls,
                size_t First) {
  if (First >= Calls.size() || ts_node_is_null(Body))
    return;
  std::unique_ptr<ArgTensors> T;
  for (size_t K = First; K < Calls.size() && K < Args.size(); ++K) {
    project::CallSite &C = Calls[K];
    if (C.Launch)
      continue;
    if (!T)
      T = std::make_unique<ArgTensors>(Src, Body, Params);
    std::vector<std::string> Ts;
    bool Any = false;
    for (TSNode A : Args[K]) {
      std::string V;
      if (!is(A, "list_splat") && !is(A, "dictionary_splat"))
        V = T->of(is(A, "keyword_argument") ? field(A, "value") : A);
      Any |= !V.empty();
      Ts.push_back(V);
    }
    if (Any)
      C.ArgTensors = std::move(Ts);
  }
}

} // namespace triton
} // namespace kvlint
