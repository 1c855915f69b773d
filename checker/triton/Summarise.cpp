//===- Summarise.cpp - a Python file's project-model summary --------------===//
//
// Fills a project::FileSummary (checker/project/Summary.h) from one Python
// file, with the tree-sitter parse and helpers the Triton lowering uses:
// top-level functions and classes (with their bases, decorators and
// methods), imports at any depth, call sites and launches `k[grid](...)`,
// the names each definition's body mentions, module-level constants,
// `__all__`, and `if __name__ == "__main__"`.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"
#include "project/Summary.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <set>
#include <string_view>

namespace kvlint {
namespace triton {
namespace {

using project::CallSite;
using project::Definition;
using project::FileSummary;
using project::Import;

constexpr size_t MaxText = 200;     // characters kept of a callee or argument
constexpr size_t MaxArgs = 64;      // arguments kept per call
constexpr unsigned MaxBlockDepth = 32;

/// What a scope's code mentions: names, and strings that read as modules.
struct Mentions {
  std::set<std::string> Refs, Strings;
};

/// A string literal's text that reads as a module path (`a.b`, `a.b:c`,
/// `.a`), or, for an f-string, its literal head when that ends in a dot.
bool modulePathLike(const std::string &S) {
  if (S.size() < 2 || S.size() > 200 || S.find('.') == std::string::npos)
    return false;
  for (char C : S)
    if (!(isalnum((unsigned char)C) || C == '_' || C == '.' || C == ':'))
      return false;
  return S.find("..", 1) == std::string::npos;
}

struct Summariser {
  const std::string &Src;
  FileSummary &Out;
  Mentions ModRefs;
  /// Each call site of Out.Calls with its node's arguments, while the file
  /// is summarised (argTensors reads them).
  std::vector<std::vector<TSNode>> CallArgs;

  std::string text(TSNode N) const { return sourceText(Src, N); }
  std::string shortText(TSNode N) const {
    std::string T = text(N);
    if (T.size() > MaxText)
      T = T.substr(0, MaxText);
    for (char &C : T)
      if (C == '\n' || C == '\r' || C == '\t')
        C = ' ';
    return T;
  }
  static unsigned line(TSNode N) { return ts_node_start_point(N).row + 1; }

  /// `a.b.c` of an identifier/attribute chain, or "".
  std::string dotted(TSNode N) const { return dottedText(Src, N); }

  static std::string noSpace(std::string S) {
    S.erase(std::remove_if(S.begin(), S.end(), [](char C) { return C == ' ' || C == '\\' ||
                                                               C == '\n' || C == '\r'; }),
            S.end());
    return S;
  }

  void addImport(TSNode S, int Scope) {
    if (is(S, "import_statement")) {
      for (TSNode K : kids(S)) {
        Import I;
        I.Scope = Scope;
        I.Line = line(S);
        if (is(K, "aliased_import")) {
          I.Module = noSpace(text(field(K, "name")));
          I.Local = text(field(K, "alias"));
        } else if (is(K, "dotted_name")) {
          I.Module = noSpace(text(K));
          I.Local = I.Module.substr(0, I.Module.find('.'));
        } else {
          continue;
        }
        Out.Imports.push_back(I);
      }
      return;
    }
    // from-import
    TSNode M = field(S, "module_name");
    Import Base;
    Base.Scope = Scope;
    Base.Line = line(S);
    if (is(M, "relative_import")) {
      for (TSNode K : kids(M)) {
        if (is(K, "import_prefix")) {
          std::string T = text(K);
          Base.Level = unsigned(std::count(T.begin(), T.end(), '.'));
        }
        else if (is(K, "dotted_name"))
          Base.Module = noSpace(text(K));
      }
      if (!Base.Level) {
        std::string T = text(M);
        Base.Level = unsigned(std::count(T.begin(), T.end(), '.') -
                              std::count(Base.Module.begin(), Base.Module.end(), '.'));
      }
    } else {
      Base.Module = noSpace(text(M));
    }
    bool Any = false;
    for (TSNode K : fieldKids(S, "name")) {
      Import I = Base;
      if (is(K, "aliased_import")) {
        I.Name = noSpace(text(field(K, "name")));
        I.Local = text(field(K, "alias"));
      } else {
        I.Name = I.Local = noSpace(text(K));
      }
      Out.Imports.push_back(I);
      Any = true;
    }
    if (!Any)
      for (TSNode K : kids(S))
        if (is(K, "wildcard_import")) {
          Import I = Base;
          I.Name = "*";
          Out.Imports.push_back(I);
        }
  }

  /// Names, calls and imports under N, attributed to Scope.
  void collect(TSNode N, int Scope, Mentions &Into) {
    if (ts_node_is_null(N))
      return;
    walk(N, [&](TSNode X) {
      if (!ts_node_is_named(X))
        return;
      const char *T = ts_node_type(X);
      if (!strcmp(T, "identifier")) {
        Into.Refs.insert(text(X));
      } else if (!strcmp(T, "attribute")) {
        std::string D = dotted(X);
        if (!D.empty())
          Into.Refs.insert(D);
      } else if (!strcmp(T, "string")) {
        std::string Lit;
        bool Interp = false, Name = false;
        for (TSNode K : kids(X)) {
          if (is(K, "interpolation")) {
            // f"{__name__}.ops", f"{__name__}.{m}": below the file's package.
            if (Lit.empty() && !Name && noSpace(text(K)) == "{__name__}") {
              Name = true;
              continue;
            }
            Interp = true;
            break;
          }
          if (is(K, "string_content"))
            Lit += text(K);
        }
        if (Name && (Lit.empty() || Lit[0] != '.'))
          Lit.clear();
        // A plain string names a module; an f-string's head `a.b.` (two
        // components at least) names every module below a.b.
        bool Prefix = !Lit.empty() && Lit.back() == '.';
        // `f".{name}"` with a package (importlib.import_module(f".{m}",
        // __name__)): every module of the file's package.
        bool Relative = Interp && !Lit.empty() && Lit.find_first_not_of('.') == std::string::npos;
        if (Relative)
          Into.Strings.insert(Lit);
        else if (Interp ? Prefix && std::count(Lit.begin(), Lit.end(), '.') >= 2 : !Prefix)
          if (modulePathLike(Lit))
            Into.Strings.insert(Lit);
      } else if (!strcmp(T, "call")) {
        CallSite C;
        C.Scope = Scope;
        C.Line = line(X);
        TSNode Fn = field(X, "function");
        if (is(Fn, "subscript")) {
          C.Launch = true;
          C.Callee = shortText(field(Fn, "value"));
          std::string G;
          for (TSNode K : fieldKids(Fn, "subscript"))
            G += (G.empty() ? "" : ", ") + shortText(K);
          C.Grid = G.substr(0, MaxText);
        } else {
          C.Callee = shortText(Fn);
        }
        std::vector<TSNode> As;
        for (TSNode A : kids(field(X, "arguments"))) {
          if (C.Args.size() >= MaxArgs)
            break;
          C.Args.push_back(shortText(A));
          As.push_back(A);
        }
        Out.Calls.push_back(std::move(C));
        CallArgs.push_back(std::move(As));
      } else if (!strcmp(T, "import_statement") || !strcmp(T, "import_from_statement")) {
        addImport(X, Scope);
      }
    });
  }

  static bool registers(const std::string &Dec) {
    for (const char *W : {"register", "custom_op", "library", "triton_op"})
      if (Dec.find(W) != std::string::npos)
        return true;
    return false;
  }

  // ---- what a @triton.jit helper returns (Definition::Ret) --------------

  /// Every `return` under N, not inside a nested function, class or lambda.
  static void returns(TSNode N, std::vector<TSNode> &Out, unsigned Depth) {
    if (Depth > 64 || Out.size() > 32)
      return;
    for (TSNode K : kids(N)) {
      if (is(K, "function_definition") || is(K, "class_definition") || is(K, "lambda") ||
          is(K, "decorated_definition"))
        continue;
      if (is(K, "return_statement")) {
        Out.push_back(K);
        continue;
      }
      returns(K, Out, Depth + 1);
    }
  }

  /// An integer literal's value, with a leading minus; false for anything
  /// else or past 62 bits.
  bool intLiteral(TSNode N, int64_t &V) const {
    N = stripParens(N);
    bool Neg = false;
    if (is(N, "unary_operator") && text(N).rfind("-", 0) == 0) {
      Neg = true;
      N = stripParens(field(N, "argument"));
    }
    int64_t X;
    if (!is(N, "integer") || !parseInt(text(N), X) || X > (int64_t(1) << 62))
      return false;
    V = Neg ? -X : X;
    return true;
  }

  /// The integer dtype a cast names: `tl.int64`, `triton.language.int64`,
  /// a bare `int64` (imported), also as a string.
  static bool castDtype(std::string T, unsigned &Bits, bool &Signed) {
    T.erase(std::remove_if(T.begin(), T.end(), [](char C) { return C == ' ' || C == '"' ||
                                                               C == '\'' ; }),
            T.end());
    for (const char *P : {"tl.", "triton.language.", "language."})
      if (T.rfind(P, 0) == 0) {
        T = T.substr(strlen(P));
        break;
      }
    IntTy Ty;
    bool IsFloat;
    if (!dtypeByName(T, Ty, IsFloat) || IsFloat || Ty.Bool)
      return false;
    Bits = Ty.Bits;
    Signed = Ty.Signed;
    return true;
  }

  static bool isProgramId(const std::string &Callee) {
    return Callee == "tl.program_id" || Callee == "triton.language.program_id" ||
           Callee == "program_id";
  }

  /// What one returned expression is, for Definition::Ret.
  Definition::Return returnOf(TSNode E, const std::vector<std::string> &Params) const {
    Definition::Return R;
    E = stripParens(E);
    int64_t V;
    if (intLiteral(E, V)) {
      R.Kind = Definition::Return::Const;
      R.Value = V;
      return R;
    }
    if (!is(E, "call"))
      return R;
    TSNode Fn = field(E, "function");
    std::vector<TSNode> Args;
    std::string DtypeKw;
    for (TSNode A : kids(field(E, "arguments"))) {
      if (is(A, "keyword_argument")) {
        if (text(field(A, "name")) == "dtype")
          DtypeKw = text(field(A, "value"));
        else if (text(field(A, "name")) == "axis")
          Args.insert(Args.begin(), field(A, "value"));
        continue;
      }
      Args.push_back(A);
    }
    TSNode Inner{};
    std::string Dt;
    if (dotted(Fn) == "tl.cast" || dotted(Fn) == "triton.language.cast") {
      if (Args.empty())
        return R;
      Inner = Args[0];
      Dt = Args.size() > 1 ? text(Args[1]) : DtypeKw;
    } else if (is(Fn, "attribute") && (text(field(Fn, "attribute")) == "to" ||
                                       text(field(Fn, "attribute")) == "cast")) {
      Inner = field(Fn, "object"); // x.to(dtype), x.cast(dtype)
      Dt = !Args.empty() ? text(Args[0]) : DtypeKw;
    } else if (isProgramId(dotted(Fn))) {
      if (Args.empty()) {
        R.Kind = Definition::Return::ProgramId; // axis 0
        return R;
      }
      TSNode Ax = stripParens(Args[0]);
      if (intLiteral(Ax, V)) {
        R.Kind = Definition::Return::ProgramId;
        R.Value = V;
      } else if (is(Ax, "identifier")) {
        auto It = std::find(Params.begin(), Params.end(), text(Ax));
        if (It == Params.end())
          return R;
        R.Kind = Definition::Return::ProgramId;
        R.Param = int(It - Params.begin());
        R.ParamName = *It;
      }
      return R;
    } else {
      return R;
    }
    unsigned Bits;
    bool Signed;
    if (Dt.empty() || !castDtype(Dt, Bits, Signed))
      return R;
    Definition::Return In = returnOf(Inner, Params);
    if (In.Kind == Definition::Return::ProgramId && In.Bits == 0) {
      R = In;
    } else {
      R = Definition::Return();
      R.Kind = Definition::Return::Cast;
    }
    R.Bits = Bits;
    R.Signed = Signed;
    return R;
  }

  /// Every return of a helper gives the same fact, or there is none.
  Definition::Return helperReturn(TSNode Def) const {
    std::vector<std::string> Params;
    for (TSNode P : kids(field(Def, "parameters"))) {
      TSNode N{};
      if (is(P, "identifier"))
        N = P;
      else if (is(P, "typed_parameter")) {
        for (TSNode K : kids(P))
          if (is(K, "identifier")) {
            N = K;
            break;
          }
      } else if (is(P, "default_parameter") || is(P, "typed_default_parameter"))
        N = field(P, "name");
      if (is(N, "identifier"))
        Params.push_back(text(N));
    }
    std::vector<TSNode> Rs;
    returns(field(Def, "body"), Rs, 0);
    Definition::Return Out;
    if (Rs.empty() || Rs.size() > 32)
      return Out;
    for (size_t I = 0; I < Rs.size(); ++I) {
      std::vector<TSNode> K = kids(Rs[I]);
      if (K.empty())
        return Definition::Return();
      Definition::Return R = returnOf(K[0], Params);
      if (R.Kind == Definition::Return::None)
        return Definition::Return();
      if (I && !R.sameFact(Out))
        return Definition::Return();
      Out = R;
    }
    return Out;
  }

  /// A function (Class empty: at top level) or a method.
  void addFunction(TSNode Def, const std::vector<TSNode> &Decs, const std::string &Class,
                   int ClassIdx) {
    Definition D;
    D.Kind = Class.empty() ? Definition::Function : Definition::Method;
    D.Owner = Class;
    D.Name = text(field(Def, "name"));
    D.Line = line(field(Def, "name"));
    D.EndLine = ts_node_end_point(Def).row + 1;
    for (TSNode Dec : Decs) {
      std::string T = shortText(Dec);
      D.Decorators.push_back(T);
      if (T.find("jit") != std::string::npos)
        D.Kernel = true;
      if (registers(T))
        D.Registered = true;
    }
    if (D.Kernel && Class.empty())
      D.Ret = helperReturn(Def);
    int Idx = int(Out.Defs.size());
    Out.Defs.push_back(D);
    Mentions Refs;
    for (TSNode Dec : Decs)
      collect(Dec, ClassIdx >= 0 ? ClassIdx : -1, ClassIdx >= 0 ? Refs : ModRefs);
    collect(field(Def, "parameters"), Idx, Refs);
    size_t FirstCall = Out.Calls.size();
    collect(field(Def, "body"), Idx, Refs);
    Out.Defs[Idx].Refs.assign(Refs.Refs.begin(), Refs.Refs.end());
    Out.Defs[Idx].Strings.assign(Refs.Strings.begin(), Refs.Strings.end());
    params(Def, Out.Defs[Idx]);
    guards(field(Def, "body"), Out.Defs[Idx]);
    argTensors(Src, field(Def, "body"), Out.Defs[Idx].Params, CallArgs, Out.Calls, FirstCall);
  }

  /// Definition::Params: `name` or `name=default`, up to a `*args`.
  void params(TSNode Def, Definition &D) {
    for (TSNode P : kids(field(Def, "parameters"))) {
      if (D.Params.size() >= 64)
        break;
      if (is(P, "identifier")) {
        D.Params.push_back(text(P));
      } else if (is(P, "typed_parameter")) {
        for (TSNode X : kids(P))
          if (is(X, "identifier")) {
            D.Params.push_back(text(X));
            break;
          }
      } else if (is(P, "default_parameter") || is(P, "typed_default_parameter")) {
        D.Params.push_back(text(field(P, "name")) + "=" + shortText(field(P, "value")));
      } else if (is(P, "list_splat_pattern") || is(P, "dictionary_splat_pattern")) {
        D.Params.push_back("*");
        break;
      }
    }
  }

  /// Definition::Guards: the names the body mentions only inside branches
  /// `if p == "lit":` / `elif p == "lit":` on a parameter p (outermost such
  /// branch; its else and the rest of the body are unguarded).
  void guards(TSNode Body, Definition &D) {
    // Most bodies compare nothing with `==`: no walk, no map of every name.
    if (D.Params.empty() || ts_node_is_null(Body)) return;
    uint32_t From = ts_node_start_byte(Body), To = ts_node_end_byte(Body);
    if (To > Src.size() || To < From ||
        std::string_view(Src).substr(From, To - From).find("==") == std::string_view::npos)
      return;
    std::set<std::string> Ps;
    for (const std::string &P : D.Params)
      Ps.insert(P.substr(0, P.find('=')));
    struct G {
      std::string Param, Value;
      unsigned Line = 0;
    };
    // name -> the guards of its occurrences (an empty Param: unguarded)
    std::map<std::string, std::vector<G>> Occ;
    auto Test = [&](TSNode C, G &Out) {
      C = stripParens(C);
      if (!is(C, "comparison_operator"))
        return false;
      std::vector<TSNode> Ks = kids(C);
      if (Ks.size() != 2)
        return false;
      bool Eq = false;
      for (uint32_t I = 0; I < ts_node_child_count(C); ++I) {
        TSNode K = ts_node_child(C, I);
        if (!ts_node_is_named(K))
          Eq |= text(K) == "==";
      }
      TSNode Id = is(Ks[0], "identifier") ? Ks[0] : Ks[1], Lit = is(Ks[0], "identifier") ? Ks[1] : Ks[0];
      if (!Eq || !is(Id, "identifier") || !is(Lit, "string") || !Ps.count(text(Id)))
        return false;
      Out.Param = text(Id);
      Out.Value = stringValue(Lit);
      Out.Line = line(C);
      return true;
    };
    std::function<void(TSNode, const G &, unsigned)> Walk = [&](TSNode N, const G &Cur, unsigned Dp) {
      if (ts_node_is_null(N) || Dp > 200)
        return;
      if (is(N, "identifier")) {
        Occ[text(N)].push_back(Cur);
        return;
      }
      if (is(N, "attribute")) {
        std::string Dd = dotted(N);
        if (!Dd.empty())
          Occ[Dd].push_back(Cur);
      }
      if (Cur.Param.empty() && (is(N, "if_statement") || is(N, "elif_clause"))) {
        G Br;
        TSNode C = field(N, "condition");
        Walk(C, Cur, Dp + 1);
        bool Guarded = Test(C, Br);
        for (uint32_t I = 0; I < ts_node_named_child_count(N); ++I) {
          TSNode K = ts_node_named_child(N, I);
          if (ts_node_eq(K, C))
            continue;
          if (is(K, "block"))
            Walk(K, Guarded ? Br : Cur, Dp + 1);
          else
            Walk(K, Cur, Dp + 1); // elif / else clauses
        }
        return;
      }
      for (uint32_t I = 0; I < ts_node_named_child_count(N); ++I)
        Walk(ts_node_named_child(N, I), Cur, Dp + 1);
    };
    Walk(Body, G{}, 0);
    for (const auto &[Name, Gs] : Occ) {
      if (D.Guards.size() >= 64)
        break;
      std::set<std::string> Values;
      bool Ok = !Gs.empty();
      for (const G &X : Gs) {
        Ok &= !X.Param.empty() && X.Param == Gs[0].Param;
        Values.insert(X.Value);
      }
      if (!Ok)
        continue;
      std::string E = Name + "\t" + Gs[0].Param + "\t" + std::to_string(Gs[0].Line);
      for (const std::string &V : Values)
        E += "\t" + V;
      D.Guards.push_back(E);
    }
  }

  void addClass(TSNode Def, const std::vector<TSNode> &Decs) {
    Definition D;
    D.Kind = Definition::Class;
    D.Name = text(field(Def, "name"));
    D.Line = line(field(Def, "name"));
    D.EndLine = ts_node_end_point(Def).row + 1;
    for (TSNode Dec : Decs) {
      std::string T = shortText(Dec);
      D.Decorators.push_back(T);
      if (registers(T))
        D.Registered = true;
    }
    TSNode Sup = field(Def, "superclasses");
    for (TSNode B : kids(Sup))
      D.Bases.push_back(shortText(B));
    int Idx = int(Out.Defs.size());
    Out.Defs.push_back(D);
    Mentions Refs;
    for (TSNode Dec : Decs)
      collect(Dec, -1, ModRefs);
    collect(Sup, Idx, Refs);
    for (TSNode S : kids(field(Def, "body"))) {
      TSNode F = S;
      std::vector<TSNode> MDecs;
      if (is(S, "decorated_definition")) {
        for (TSNode K : kids(S))
          if (is(K, "decorator"))
            MDecs.push_back(K);
        F = field(S, "definition");
      }
      if (is(F, "function_definition"))
        addFunction(F, MDecs, D.Name, Idx);
      else
        collect(S, Idx, Refs);
    }
    Out.Defs[Idx].Refs.assign(Refs.Refs.begin(), Refs.Refs.end());
    Out.Defs[Idx].Strings.assign(Refs.Strings.begin(), Refs.Strings.end());
  }

  std::string stringValue(TSNode S) const {
    std::string T = text(S);
    size_t Q = T.find_first_of("'\"");
    if (Q == std::string::npos)
      return "";
    char C = T[Q];
    size_t E = T.rfind(C);
    if (E <= Q)
      return "";
    std::string V = T.substr(Q + 1, E - Q - 1);
    while (!V.empty() && (V.front() == C))
      V.erase(V.begin());
    while (!V.empty() && (V.back() == C))
      V.pop_back();
    return V;
  }

  void assignment(TSNode A) {
    TSNode L = field(A, "left"), R = field(A, "right");
    if (!is(L, "identifier") || ts_node_is_null(R))
      return;
    std::string Name = text(L);
    if (Name == "__all__" && (is(R, "list") || is(R, "tuple"))) {
      Out.HasAll = true;
      for (TSNode K : kids(R))
        if (is(K, "string"))
          Out.All.push_back(stringValue(K));
      return;
    }
    if (is(R, "integer") || is(R, "float") || is(R, "string") || is(R, "true") ||
        is(R, "false") || is(R, "unary_operator") || is(R, "tuple"))
      Out.Constants.push_back({Name, shortText(R)});
  }

  void moduleBlock(TSNode Block, unsigned Depth) {
    if (Depth > MaxBlockDepth)
      return;
    for (TSNode S : kids(Block)) {
      if (is(S, "import_statement") || is(S, "import_from_statement")) {
        addImport(S, -1);
      } else if (is(S, "decorated_definition")) {
        std::vector<TSNode> Decs;
        for (TSNode K : kids(S))
          if (is(K, "decorator"))
            Decs.push_back(K);
        TSNode Def = field(S, "definition");
        if (is(Def, "function_definition"))
          addFunction(Def, Decs, "", -1);
        else if (is(Def, "class_definition"))
          addClass(Def, Decs);
      } else if (is(S, "function_definition")) {
        addFunction(S, {}, "", -1);
      } else if (is(S, "class_definition")) {
        addClass(S, {});
      } else if (is(S, "expression_statement")) {
        for (TSNode A : kids(S)) {
          if (is(A, "assignment"))
            assignment(A);
          else if (is(A, "augmented_assignment") && text(field(A, "left")) == "__all__")
            for (TSNode K : kids(field(A, "right")))
              if (is(K, "string"))
                Out.All.push_back(stringValue(K));
        }
        collect(S, -1, ModRefs);
      } else if (is(S, "if_statement") || is(S, "try_statement") || is(S, "with_statement") ||
                 is(S, "for_statement") || is(S, "while_statement")) {
        if (is(S, "if_statement")) {
          std::string C = text(field(S, "condition"));
          if (C.find("__name__") != std::string::npos && C.find("__main__") != std::string::npos)
            Out.HasMain = true;
        }
        compound(S, Depth + 1);
      } else {
        collect(S, -1, ModRefs);
      }
    }
  }

  /// A compound statement at module level: its blocks are module level too.
  void compound(TSNode S, unsigned Depth) {
    if (Depth > MaxBlockDepth)
      return;
    for (TSNode K : kids(S)) {
      if (is(K, "block"))
        moduleBlock(K, Depth + 1);
      else if (is(K, "elif_clause") || is(K, "else_clause") || is(K, "except_clause") ||
               is(K, "finally_clause") || is(K, "except_group_clause"))
        compound(K, Depth + 1);
      else
        collect(K, -1, ModRefs);
    }
  }
};

} // namespace
} // namespace triton

project::FileSummary summarisePython(const std::string &Path, const std::string &Source) {
  using namespace triton;
  project::FileSummary Out;
  Out.Path = Path;
  if (Source.size() > (16u << 20) || Source.find('\0') != std::string::npos)
    return Out;
  TSParser *P = ts_parser_new();
  if (!ts_parser_set_language(P, tree_sitter_python())) {
    ts_parser_delete(P);
    return Out;
  }
  TSTree *T = ts_parser_parse_string(P, nullptr, Source.data(), (uint32_t)Source.size());
  if (T) {
    Summariser S{Source, Out, {}};
    S.moduleBlock(ts_tree_root_node(T), 0);
    Out.ModuleRefs.assign(S.ModRefs.Refs.begin(), S.ModRefs.Refs.end());
    Out.ModuleStrings.assign(S.ModRefs.Strings.begin(), S.ModRefs.Strings.end());
    Out.Parsed = true;
    ts_tree_delete(T);
  }
  ts_parser_delete(P);
  return Out;
}

} // namespace kvlint
