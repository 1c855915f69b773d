//===- Module.cpp - module scan of a Triton source file -------------------===//
//
// Module-level facts: imports and aliases, module constants, @triton.jit
// functions (decorated or wrapped by a triton.jit(fn) call), the helpers they
// call, the parameters that are visibly pointers, and the constexpr flags a
// kernel is specialised on.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <cstring>

namespace kvlint {
namespace triton {

/// The triton.language member a dotted name denotes, or "".
std::string tlMember(const std::string &Q) {
  static const char *Prefixes[] = {"triton.language.core.", "triton.language.math.",
                                   "triton.language.standard.", "triton.language.",
                                   "triton.experimental.gluon.language.",
                                   "triton.experimental.gluon.", "triton."};
  for (const char *P : Prefixes)
    if (Q.rfind(P, 0) == 0) {
      std::string M = Q.substr(strlen(P));
      // Gluon's target namespaces: gl.amd.cdna4.async_copy.buffer_load_to_shared
      size_t Dot = M.rfind('.');
      if (Dot != std::string::npos && M.find("buffer_", Dot) == Dot + 1) return M.substr(Dot + 1);
      return M;
    }
  return "";
}

namespace {

void scanImports(Module &M, TSNode S) {
  if (is(S, "import_statement")) {
    for (TSNode K : kids(S)) {
      if (is(K, "aliased_import")) {
        M.Alias[M.text(field(K, "alias"))] = M.text(field(K, "name"));
      } else if (is(K, "dotted_name")) {
        std::string N = M.text(K);
        std::string First = N.substr(0, N.find('.'));
        M.Alias[First] = First;
      }
    }
  } else if (is(S, "import_from_statement")) {
    std::string Mod = M.text(field(S, "module_name"));
    for (TSNode K : fieldKids(S, "name")) {
      std::string Name, Local;
      if (is(K, "aliased_import")) {
        Name = M.text(field(K, "name"));
        Local = M.text(field(K, "alias"));
      } else {
        Name = Local = M.text(K);
      }
      std::string Full = Mod + "." + Name;
      // `from <anything> import tl, triton` (vllm.triton_utils and friends)
      if (Name == "tl" || (Mod == "triton" && Name == "language")) Full = "triton.language";
      else if (Name == "triton") Full = "triton";
      else if (Name == "jit" && Mod.find("gluon") != std::string::npos)
        Full = "triton.experimental.gluon.jit";
      else if (Name == "jit" && Mod.find("triton") != std::string::npos) Full = "triton.jit";
      M.Alias[Local] = Full;
    }
  }
}

bool isJitName(const std::string &Q) {
  return Q == "triton.jit" || Q == "triton.language.jit" || Q == "triton.runtime.jit.jit" ||
         Q == "triton.experimental.gluon.jit";
}

bool isJitDecorator(const Module &M, TSNode Dec) {
  std::vector<TSNode> Ks = kids(Dec);
  if (Ks.empty()) return false;
  TSNode E = Ks[0];
  if (is(E, "call")) E = field(E, "function");
  return isJitName(M.qualify(E, nullptr));
}

} // namespace

void addJit(Module &M, const std::string &Name, TSNode Def) {
  if (!M.Jit.count(Name)) M.JitOrder.push_back(Name);
  M.Jit[Name] = JitFn{Name, Def, false};
}

void scanModule(Module &M, TSNode Block, unsigned Depth) {
  if (Depth > 8) return;
  for (TSNode S : kids(Block)) {
    if (is(S, "import_statement") || is(S, "import_from_statement")) {
      scanImports(M, S);
    } else if (is(S, "decorated_definition")) {
      TSNode Def = field(S, "definition");
      bool Jit = false;
      for (TSNode K : kids(S))
        if (is(K, "decorator") && isJitDecorator(M, K)) Jit = true;
      if (Jit && is(Def, "function_definition")) {
        addJit(M, M.text(field(Def, "name")), Def);
      } else if (is(Def, "function_definition")) {
        M.PlainDefs[M.text(field(Def, "name"))] = Def;
        M.PlainAll.push_back(Def);
      } else if (is(Def, "class_definition")) {
        scanModule(M, field(Def, "body"), Depth + 1);
      }
    } else if (is(S, "expression_statement")) {
      for (TSNode A : kids(S)) {
        if (!is(A, "assignment")) continue;
        TSNode L = field(A, "left"), R = field(A, "right");
        if (is(L, "identifier") && !ts_node_is_null(R) && !is(R, "assignment"))
          M.GlobalExprs[M.text(L)] = R;
        // kernel = triton.jit(fn) / triton.jit(...)(fn)
        if (is(L, "identifier") && is(R, "call")) {
          TSNode Fn = field(R, "function");
          if (is(Fn, "call")) Fn = field(Fn, "function");
          std::vector<TSNode> Args = kids(field(R, "arguments"));
          if (isJitName(M.qualify(Fn, nullptr)) && !Args.empty() && is(Args[0], "identifier"))
            M.JitWraps.push_back({M.text(L), M.text(Args[0])});
        }
      }
    } else if (is(S, "function_definition")) {
      M.PlainDefs[M.text(field(S, "name"))] = S;
      M.PlainAll.push_back(S);
    } else if (is(S, "if_statement") || is(S, "try_statement") || is(S, "with_statement")) {
      for (TSNode K : kids(S)) {
        if (is(K, "block")) scanModule(M, K, Depth + 1);
        else if (is(K, "else_clause") || is(K, "elif_clause") || is(K, "except_clause") ||
                 is(K, "finally_clause"))
          for (TSNode KK : kids(K))
            if (is(KK, "block")) scanModule(M, KK, Depth + 1);
      }
    } else if (is(S, "class_definition")) {
      scanModule(M, field(S, "body"), Depth + 1);
    }
  }
}

/// Marks jit functions called from other jit functions (helpers).
void markHelpers(Module &M) {
  for (auto &KV : M.Jit) {
    walk(field(KV.second.Def, "body"), [&](TSNode N) {
      if (!is(N, "call")) return;
      TSNode Fn = field(N, "function");
      if (!is(Fn, "identifier")) return;
      auto It = M.Jit.find(M.text(Fn));
      if (It != M.Jit.end() && It->first != KV.first) It->second.Called = true;
    });
  }
}

namespace {

bool ptrLikeName(const std::string &N) {
  return N == "ptr" || endsWith(N, "_ptr") || endsWith(N, "Ptr") || endsWith(N, "_ptrs") || endsWith(N, "_pointer") ||
         N.rfind("ptr_", 0) == 0;
}

} // namespace

/// Parameters that are visibly pointers: named like one, or the leftmost
/// operand of a sum passed as the pointer of tl.load/store/atomic_*/
/// make_block_ptr (`tl.load(pos + offs)`). Lowering finds the rest.
std::set<std::string> pointerParams(const Module &M, const JitFn &J) {
  std::set<std::string> Params, Ptrs;
  for (TSNode P : kids(field(J.Def, "parameters"))) {
    TSNode N = is(P, "identifier") ? P : field(P, "name");
    if (ts_node_is_null(N))
      for (TSNode K : kids(P))
        if (is(K, "identifier")) { N = K; break; }
    if (!is(N, "identifier")) continue;
    Params.insert(M.text(N));
    if (ptrLikeName(M.text(N))) Ptrs.insert(M.text(N));
  }
  walk(field(J.Def, "body"), [&](TSNode C) {
    if (!is(C, "call")) return;
    std::string Mem = tlMember(M.qualify(field(C, "function"), nullptr));
    if (Mem != "load" && Mem != "store" && Mem != "make_block_ptr" &&
        Mem.rfind("atomic_", 0) != 0)
      return;
    TSNode Arg{};
    for (TSNode A : kids(field(C, "arguments"))) {
      if (is(A, "keyword_argument")) {
        std::string K = M.text(field(A, "name"));
        if (K == "pointer" || K == "base") { Arg = field(A, "value"); break; }
        continue;
      }
      Arg = A;
      break;
    }
    // Identifiers in additive position; the leftmost one is the pointer
    // unless another is named like a pointer.
    std::vector<std::string> Ids;
    std::vector<TSNode> Work = {Arg};
    while (!Work.empty() && Ids.size() < 16) {
      TSNode E = Work.back();
      Work.pop_back();
      if (is(E, "parenthesized_expression") && !kids(E).empty()) Work.push_back(kids(E)[0]);
      else if (is(E, "subscript")) Work.push_back(field(E, "value"));
      else if (is(E, "binary_operator") && (M.text(field(E, "operator")) == "+" ||
                                            M.text(field(E, "operator")) == "-")) {
        Work.push_back(field(E, "right"));
        Work.push_back(field(E, "left"));
      } else if (is(E, "identifier")) Ids.push_back(M.text(E));
    }
    for (const std::string &I : Ids)
      if (ptrLikeName(I)) return;
    if (!Ids.empty() && Params.count(Ids[0])) Ptrs.insert(Ids[0]);
  });
  return Ptrs;
}

FlagPlan planFlags(const Module &M, const JitFn &J) {
  std::set<std::string> Constexprs;
  for (TSNode P : kids(field(J.Def, "parameters"))) {
    TSNode T = field(P, "type");
    if (ts_node_is_null(T) || kids(T).empty()) continue;
    if (tlMember(M.qualify(kids(T)[0], nullptr)) != "constexpr") continue;
    TSNode N = field(P, "name");
    if (ts_node_is_null(N))
      for (TSNode K : kids(P))
        if (is(K, "identifier")) { N = K; break; }
    if (is(N, "identifier")) Constexprs.insert(M.text(N));
  }
  FlagPlan Plan;
  std::set<std::string> Seen;
  // A flag the launcher decides by an overflow check (LaunchFacts::FlagGuards)
  // is enumerated first, whatever the body does with it (`tl.int64 if FLAG
  // else tl.int32`, `if A_LARGE or B_LARGE:`): the check caps the tensors
  // only in the lowering where the flag says it passed (Calls.cpp), and a
  // lowering that joins both sides would mix the 64-bit values of one with
  // the 32-bit code of the other.
  auto L = M.Launches.find(ts_node_start_byte(J.Def));
  if (L != M.Launches.end())
    for (const auto &G : L->second.FlagGuards)
      if (Constexprs.count(G.first) && Plan.Value.size() < MaxValueFlags &&
          Seen.insert(G.first).second)
        Plan.Value.push_back(G.first);
  // A flag every launch passes as one constant is that constant (Calls.cpp):
  // enumerating it would lower a specialisation no launch compiles.
  if (L != M.Launches.end())
    for (const auto &[P, H] : L->second.Params)
      if (pinnedHint(H)) Constexprs.erase(P);
  walk(field(J.Def, "body"), [&](TSNode N) {
    if (!is(N, "if_statement") && !is(N, "elif_clause")) return;
    TSNode C = field(N, "condition");
    while (is(C, "parenthesized_expression") && !kids(C).empty()) C = kids(C)[0];
    if (is(C, "not_operator")) C = field(C, "argument");
    if (!is(C, "identifier") || !Constexprs.count(M.text(C))) return;
    std::string Flag = M.text(C);
    bool Assigns = false, WidenOnly = true;
    TSNode Body = field(N, "consequence");
    for (TSNode S : kids(Body)) {
      TSNode A = kids(S).empty() ? S : kids(S)[0];
      if (!is(S, "expression_statement") || !is(A, "assignment") ||
          M.text(field(A, "right")).find("int64") == std::string::npos)
        WidenOnly = false;
    }
    walk(N, [&](TSNode X) {
      if (is(X, "assignment") || is(X, "augmented_assignment")) Assigns = true;
    });
    bool HasElse = false;
    for (TSNode K : kids(N))
      if (is(K, "elif_clause") || is(K, "else_clause")) HasElse = true;
    if (!Assigns) return;
    if (WidenOnly && !HasElse && is(N, "if_statement")) {
      Plan.Widen.insert(Flag);
      return;
    }
    if (Seen.insert(Flag).second && Plan.Value.size() < MaxValueFlags)
      Plan.Value.push_back(Flag);
  });
  for (const std::string &V : Plan.Value) Plan.Widen.erase(V);
  return Plan;
}

} // namespace triton
} // namespace kvlint
