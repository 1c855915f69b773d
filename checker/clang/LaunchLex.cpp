//===- LaunchLex.cpp - Launches read from tokens --------------------------===//
//
// Part of the launch-facts pre-pass (LaunchScanner.h, LaunchFacts.cpp): the
// launches clang dropped from the AST, read from the tokens of a function
// body, of a whole file, or of a macro whose body launches, with the grid
// and the arguments the tokens spell.
//
//===----------------------------------------------------------------------===//
#include "LaunchScanner.h"

#include "clang/Lex/Lexer.h"

namespace kvlint {
namespace launchfacts {

// ---- launches clang dropped ----------------------------------------------
//
// A launch whose statement did not type-check is not in the AST: the
// commonest case is a launch inside a dispatch macro whose definition is in
// a missing header (VLLM_DISPATCH_FLOATING_TYPES(..., [&] {
// k<scalar_t><<<grid, block>>>(...); })), where scalar_t is undeclared.
// The launch is then read from the tokens of the function body: the
// kernel's name, the grid (a name, a constant, dim3(...), a ceil-div call)
// and the arguments (names, members, constants). Names of the function's
// locals resolve through the AST, which still has their declarations.

void LaunchScanner::lexLaunches(const FunctionDecl *FD) {
  SourceRange R = FD->getBody()->getSourceRange();
  SourceLocation B = SM.getExpansionLoc(R.getBegin()), E = SM.getExpansionLoc(R.getEnd());
  FileID FID = SM.getFileID(B);
  if (FID != SM.getFileID(E))
    return;
  for (const Launch &L : Launches)
    SeenLaunches.insert({L.File, L.Offset});
  std::vector<Tok> Ts;
  if (!lexRange(FID, SM.getFileOffset(B), SM.getFileOffset(E), Ts))
    return;
  for (size_t I = 0; I < Ts.size(); ++I)
    if (Ts[I].K == tok::lesslessless)
      lexLaunch(Ts, 0, I, FID);
}

/// The launches in a file that no function the AST has holds: a host
/// function whose signature names a type from a missing header
/// (torch::Tensor) is parsed as a variable and its body dropped. Its
/// locals are read from the tokens too (dim3 grid(...); int n = ...;).
/// Checks in such functions are not read.
void LaunchScanner::scanFileTokens(FileID FID) {
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid || Buf.find("<<<") == StringRef::npos)
    return;
  std::vector<Tok> Ts;
  if (!lexRange(FID, 0, Buf.size(), Ts))
    return;
  // The body each token is in: the outermost brace that is not a
  // namespace's or an extern "C" block's.
  std::vector<size_t> Region(Ts.size(), 0);
  std::vector<std::pair<size_t, bool>> Braces; // open index, transparent
  size_t Open = 0;
  bool InBody = false;
  for (size_t I = 0; I < Ts.size(); ++I) {
    if (Ts[I].K == tok::l_brace) {
      bool Transparent =
          !InBody && ((I >= 1 && Ts[I - 1].S == "namespace") ||
                      (I >= 2 && Ts[I - 2].S == "namespace") ||
                      (I >= 1 && Ts[I - 1].K == tok::string_literal) ||
                      (I >= 1 && (Ts[I - 1].S == "struct" || Ts[I - 1].S == "class")) ||
                      (I >= 2 && (Ts[I - 2].S == "struct" || Ts[I - 2].S == "class")));
      Braces.push_back({I, Transparent});
      if (!Transparent && !InBody) {
        InBody = true;
        Open = I;
      }
    } else if (Ts[I].K == tok::r_brace && !Braces.empty()) {
      Braces.pop_back();
      InBody = false;
      for (auto &Br : Braces)
        if (!Br.second) {
          InBody = true;
          break;
        }
    }
    Region[I] = InBody ? Open : I;
  }
  std::map<std::string, LaunchMacro> Macros = launchMacros(FID);
  for (size_t I = 0; I < Ts.size(); ++I) {
    if (Ts[I].K == tok::lesslessless) {
      Launches.clear();
      Assigned.clear();
      Locals.clear();
      lexLaunch(Ts, Region[I], I, FID);
      for (const Launch &L : Launches)
        record(L);
      continue;
    }
    // LAUNCH_KERNEL(T, 128) where the macro's body launches: the body,
    // with the arguments put in, read like the function's own tokens.
    if (Ts[I].K != tok::raw_identifier || Region[I] == I || I + 1 >= Ts.size() ||
        Ts[I + 1].K != tok::l_paren)
      continue;
    auto M = Macros.find(Ts[I].S);
    if (M == Macros.end())
      continue;
    M->second.Read = true;
    if (SeenLaunches.count({FID, Ts[I].Offset}))
      continue; // the AST has this invocation's launches
    std::vector<std::vector<Tok>> Actual;
    if (split(Ts, I + 2, tok::r_paren, Actual) >= Ts.size())
      continue;
    if (Actual.size() == 1 && Actual[0].empty())
      Actual.clear();
    std::vector<Tok> Body;
    for (const Tok &T : M->second.Body) {
      auto P = std::find(M->second.Params.begin(), M->second.Params.end(), T.S);
      if (T.K == tok::raw_identifier && T.S == "__VA_ARGS__") {
        for (size_t A = M->second.Params.size(); A < Actual.size(); ++A) {
          if (A > M->second.Params.size())
            Body.push_back({tok::comma, ",", T.Offset});
          Body.insert(Body.end(), Actual[A].begin(), Actual[A].end());
        }
      } else if (T.K == tok::raw_identifier && P != M->second.Params.end()) {
        size_t A = size_t(P - M->second.Params.begin());
        if (A < Actual.size())
          Body.insert(Body.end(), Actual[A].begin(), Actual[A].end());
      } else {
        Body.push_back(T);
      }
    }
    Launches.clear();
    Assigned.clear();
    Locals.clear();
    LexToks = &Ts;
    LexBegin = Region[I];
    LexAt = I;
    for (size_t B = 0; B < Body.size(); ++B)
      if (Body[B].K == tok::lesslessless)
        parseLaunch(Body, B, FID, Ts[I].Offset);
    SeenLaunches.insert({FID, Ts[I].Offset});
    for (const Launch &L : Launches)
      record(L);
  }
  // A macro invoked only from other macros (or not at all here): its body
  // is still the launch, with the macro's parameters unknown and no local
  // resolvable. Constants and the caller's names it spells are facts.
  for (auto &[Name, M] : Macros) {
    if (M.Read)
      continue;
    std::vector<Tok> Body = M.Body;
    for (Tok &T : Body)
      if (T.K == tok::raw_identifier &&
          (T.S == "__VA_ARGS__" ||
           std::find(M.Params.begin(), M.Params.end(), T.S) != M.Params.end()))
        T = {tok::unknown, "?", T.Offset};
    Launches.clear();
    Assigned.clear();
    Locals.clear();
    LexToks = nullptr;
    LexBegin = LexAt = 0;
    for (size_t B = 0; B < Body.size(); ++B)
      if (Body[B].K == tok::lesslessless)
        parseLaunch(Body, B, FID, std::nullopt);
    for (const Launch &L : Launches) {
      // Expanded inside another macro's invocation, the AST may have read
      // this very launch: its spelling is in this body.
      bool Had = false;
      auto It = Out.find(factsKey(L.Kernel));
      if (It != Out.end())
        for (const LaunchSite &S : It->second.Sites)
          Had |= S.SpellFile == L.SpellFile && S.Spelling == L.Spelling;
      if (!Had)
        record(L);
    }
  }
}

std::map<std::string, LaunchScanner::LaunchMacro> LaunchScanner::launchMacros(FileID FID) {
  std::map<std::string, LaunchMacro> Out;
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid)
    return Out;
  Lexer Lx(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(), Buf.begin(),
           Buf.end());
  Token T;
  Lx.LexFromRawLexer(T);
  while (T.isNot(tok::eof)) {
    if (!(T.is(tok::hash) && T.isAtStartOfLine())) {
      Lx.LexFromRawLexer(T);
      continue;
    }
    // One directive: # define NAME ( params ) body
    std::vector<Tok> Line;
    Lx.LexFromRawLexer(T);
    while (T.isNot(tok::eof) && !T.isAtStartOfLine()) {
      std::string S = T.is(tok::raw_identifier) ? T.getRawIdentifier().str()
                                                 : Lexer::getSpelling(T, SM, Ctx.getLangOpts());
      Line.push_back({T.getKind(), S, SM.getFileOffset(T.getLocation())});
      Lx.LexFromRawLexer(T);
    }
    if (Line.size() < 4 || Line[0].S != "define" || Line[2].K != tok::l_paren ||
        Line[2].Offset != Line[1].Offset + Line[1].S.size())
      continue;
    LaunchMacro M;
    size_t I = 3;
    for (; I < Line.size() && Line[I].K != tok::r_paren; ++I)
      if (Line[I].K == tok::raw_identifier)
        M.Params.push_back(Line[I].S);
      else if (Line[I].K == tok::ellipsis)
        M.Params.push_back("...");
    if (!M.Params.empty() && M.Params.back() == "...")
      M.Params.pop_back();
    bool Launches = false, Pastes = false;
    for (size_t J = I + 1; J < Line.size(); ++J) {
      Launches |= Line[J].K == tok::lesslessless;
      Pastes |= Line[J].K == tok::hashhash || Line[J].K == tok::hash;
      M.Body.push_back(Line[J]);
    }
    if (Launches && !Pastes)
      Out[Line[1].S] = std::move(M);
  }
  return Out;
}

bool LaunchScanner::lexRange(FileID FID, unsigned BO, unsigned EO, std::vector<Tok> &Ts) {
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid || EO <= BO || EO > Buf.size() ||
      Buf.substr(BO, EO - BO).find("<<<") == StringRef::npos)
    return false;
  Lexer Lx(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(), Buf.begin() + BO,
           Buf.end());
  Token T;
  while (true) {
    Lx.LexFromRawLexer(T);
    if (T.is(tok::eof))
      break;
    unsigned Off = SM.getFileOffset(T.getLocation());
    if (Off > EO)
      break;
    while (T.is(tok::hash) && T.isAtStartOfLine()) { // skip directive lines
      do
        Lx.LexFromRawLexer(T);
      while (T.isNot(tok::eof) && !T.isAtStartOfLine());
    }
    if (T.is(tok::eof))
      break;
    Off = SM.getFileOffset(T.getLocation());
    if (Off > EO)
      break;
    std::string S = T.is(tok::raw_identifier) ? T.getRawIdentifier().str()
                                               : Lexer::getSpelling(T, SM, Ctx.getLangOpts());
    Ts.push_back({T.getKind(), S, Off});
  }
  return true;
}

std::optional<LaunchScanner::LexLocal> LaunchScanner::lexDecl(const std::string &N) {
  if (!LexToks || N.empty())
    return std::nullopt;
  const std::vector<Tok> &Ts = *LexToks;
  int Closed = 0; // blocks closed between a token and the launch
  std::optional<LexLocal> Found;
  for (size_t J = LexAt; J-- > LexBegin + 1;) {
    if (Ts[J].K == tok::r_brace)
      ++Closed;
    else if (Ts[J].K == tok::l_brace && Closed > 0)
      --Closed;
    if (Closed > 0) // a declaration in a block that ended is out of scope
      continue;
    if (Ts[J].K != tok::raw_identifier || Ts[J].S != N || J + 1 >= Ts.size())
      continue;
    tok::TokenKind Next = Ts[J + 1].K;
    bool TypeBefore = Ts[J - 1].K == tok::raw_identifier || Ts[J - 1].K == tok::greater;
    static const std::set<std::string> NotTypes = {"return", "case", "else", "do",
                                                    "throw", "goto", "co_return"};
    if (!TypeBefore || NotTypes.count(Ts[J - 1].S) ||
        (Next != tok::l_paren && Next != tok::l_brace && Next != tok::equal)) {
      // A write after the declaration: n = ..., grid.x = ..., n += ...
      continue;
    }
    // Two declarations in scope are the branches of an #if: either may
    // be the one compiled.
    if (Found)
      return std::nullopt;
    // Writes between the declaration and the launch.
    for (size_t K = J + 2; K + 1 < LexAt; ++K) {
      if (Ts[K].K != tok::raw_identifier || Ts[K].S != N)
        continue;
      size_t W = K + 1;
      if (W + 1 < LexAt && Ts[W].K == tok::period && Ts[W + 1].K == tok::raw_identifier)
        W += 2;
      tok::TokenKind WK = Ts[W].K;
      if (WK == tok::equal || WK == tok::plusequal || WK == tok::minusequal ||
          WK == tok::starequal || WK == tok::slashequal || WK == tok::plusplus ||
          WK == tok::minusminus || (K > 0 && Ts[K - 1].K == tok::amp))
        return std::nullopt;
    }
    LexLocal L;
    for (size_t B = J; B-- > LexBegin && B + 4 > J;)
      L.Dim3 |= Ts[B].S == "dim3";
    if (Next == tok::equal) {
      for (size_t K = J + 2; K < Ts.size() && Ts[K].K != tok::semi; ++K)
        L.Init.push_back(Ts[K]);
    } else {
      L.Ctor = true;
      if (split(Ts, J + 2, Next == tok::l_paren ? tok::r_paren : tok::r_brace, L.Parts) >=
          Ts.size())
        return std::nullopt;
      if (L.Parts.size() == 1 && L.Parts[0].empty())
        L.Parts.clear();
    }
    Found = std::move(L);
  }
  return Found;
}

/// Splits Ts[From..] at top-level commas until the closing token Close at
/// depth 0; returns the index of Close (or Ts.size()).
size_t LaunchScanner::split(const std::vector<Tok> &Ts, size_t From, tok::TokenKind Close,
                            std::vector<std::vector<Tok>> &Groups) {
  int Depth = 0;
  Groups.emplace_back();
  for (size_t I = From; I < Ts.size(); ++I) {
    tok::TokenKind K = Ts[I].K;
    if (Depth == 0 && K == Close)
      return I;
    if (K == tok::l_paren || K == tok::l_square || K == tok::l_brace)
      ++Depth;
    if (K == tok::r_paren || K == tok::r_square || K == tok::r_brace)
      if (--Depth < 0)
        return Ts.size();
    if (K == tok::semi)
      return Ts.size();
    if (Depth == 0 && K == tok::comma) {
      Groups.emplace_back();
      continue;
    }
    Groups.back().push_back(Ts[I]);
  }
  return Ts.size();
}

void LaunchScanner::lexLaunch(const std::vector<Tok> &Ts, size_t Begin, size_t At, FileID FID) {
  LexToks = &Ts;
  LexBegin = Begin;
  LexAt = At;
  parseLaunch(Ts, At, FID, std::nullopt);
}

/// The launch whose `<<<` is Ts[At]. Names resolve in LexToks before
/// LexAt. Invocation: the offset of the macro invocation whose expansion
/// Ts is (the launch's location), or none when Ts are the file's tokens.
void LaunchScanner::parseLaunch(const std::vector<Tok> &Ts, size_t At, FileID FID,
                                std::optional<unsigned> Invocation) {
  // The kernel's name, before its template arguments.
  size_t J = At;
  if (J == 0)
    return;
  --J;
  if (Ts[J].K == tok::greater || Ts[J].K == tok::greatergreater) {
    int Depth = 0;
    for (;; --J) {
      tok::TokenKind K = Ts[J].K;
      Depth += K == tok::greater ? 1 : K == tok::greatergreater ? 2 : K == tok::less ? -1 : 0;
      if (Depth == 0 || J == 0)
        break;
    }
    if (Depth != 0 || J == 0)
      return;
    --J;
  }
  if (Ts[J].K != tok::raw_identifier)
    return;
  std::string Name = Ts[J].S;
  while (J >= 2 && Ts[J - 1].K == tok::coloncolon && Ts[J - 2].K == tok::raw_identifier)
    J -= 2;
  if (!Invocation && !SeenLaunches.insert({FID, Ts[J].Offset}).second)
    return; // the AST or a function's tokens had this launch
  std::vector<std::vector<Tok>> Cfg, Args;
  size_t End = split(Ts, At + 1, tok::greatergreatergreater, Cfg);
  if (End + 1 >= Ts.size() || Ts[End + 1].K != tok::l_paren)
    return;
  size_t Close = split(Ts, End + 2, tok::r_paren, Args);
  if (Close >= Ts.size())
    return;
  if (Args.size() == 1 && Args[0].empty())
    Args.clear();
  const FunctionDecl *K = kernelNamed(Name, Args.size());
  if (!K)
    return;
  Launch L;
  L.Kernel = K;
  L.Lexical = true;
  L.Loc = SM.getComposedLoc(FID, Invocation ? *Invocation : Ts[J].Offset);
  L.Offset = Invocation ? *Invocation : Ts[J].Offset;
  L.Spelling = Ts[J].Offset;
  L.SpellFile = FID;
  L.File = FID;
  if (!Cfg.empty())
    lexGrid(Cfg[0], L.LexAxis);
  for (const auto &A : Args) {
    L.ArgText.push_back(join(A));
    L.LexArgs.push_back(lexArg(A));
  }
  Launches.push_back(std::move(L));
}

std::string LaunchScanner::join(const std::vector<Tok> &Ts) {
  std::string S;
  for (const Tok &T : Ts)
    S += T.S;
  return S;
}

const FunctionDecl *LaunchScanner::kernelNamed(const std::string &Name, size_t NArgs) {
  auto [B, E] = Kernels.equal_range(Name);
  const FunctionDecl *Found = nullptr;
  for (auto It = B; It != E; ++It) {
    const FunctionDecl *FD = It->second;
    if (FD->getNumParams() != NArgs)
      continue;
    if (Found && factsKey(Found) != factsKey(FD))
      return nullptr; // overloads: ambiguous
    Found = FD;
  }
  return Found;
}

std::optional<int64_t> LaunchScanner::literal(const std::vector<Tok> &Ts) {
  if (Ts.size() != 1 || Ts[0].K != tok::numeric_constant)
    return std::nullopt;
  std::string S = Ts[0].S;
  while (!S.empty() && (S.back() == 'u' || S.back() == 'U' || S.back() == 'l' ||
                        S.back() == 'L'))
    S.pop_back();
  int64_t V = 0;
  if (StringRef(S).getAsInteger(0, V))
    return std::nullopt;
  return V;
}

/// A name the tokens spell: `n`, `p.n`, `p->n`, `static_cast<int>(n)`.
std::string LaunchScanner::lexName(const std::vector<Tok> &Ts) {
  if (Ts.size() == 1 && Ts[0].K == tok::raw_identifier)
    return Ts[0].S;
  if (Ts.size() == 3 && Ts[0].K == tok::raw_identifier &&
      (Ts[1].K == tok::period || Ts[1].K == tok::arrow) && Ts[2].K == tok::raw_identifier)
    return Ts[2].S;
  return "";
}

/// Drops a static_cast<T>(...) or (int) around the tokens.
std::vector<LaunchScanner::Tok> LaunchScanner::unwrap(std::vector<Tok> Ts) {
  for (int I = 0; I < 4; ++I) {
    if (Ts.size() > 5 && Ts[0].S == "static_cast" && Ts.back().K == tok::r_paren) {
      size_t P = 0;
      while (P < Ts.size() && Ts[P].K != tok::l_paren)
        ++P;
      Ts = std::vector<Tok>(Ts.begin() + P + 1, Ts.end() - 1);
      continue;
    }
    if (Ts.size() >= 4 && Ts[0].K == tok::l_paren && Ts[2].K == tok::r_paren &&
        Ts[1].K == tok::raw_identifier) { // (int)n, (int64_t)n
      Ts = std::vector<Tok>(Ts.begin() + 3, Ts.end());
      continue;
    }
    if (Ts.size() >= 3 && Ts[0].K == tok::l_paren && Ts.back().K == tok::r_paren) {
      std::vector<std::vector<Tok>> G;
      if (split(Ts, 1, tok::r_paren, G) == Ts.size() - 1 && G.size() == 1) {
        Ts = G[0];
        continue;
      }
    }
    break;
  }
  return Ts;
}

/// A constant the tokens spell: a literal, or a local initialised by one.
std::optional<int64_t> LaunchScanner::lexConst(const std::vector<Tok> &A, unsigned Depth) {
  std::vector<Tok> Ts = unwrap(A);
  if (auto V = literal(Ts))
    return V;
  std::string N = Ts.size() == 1 ? lexName(Ts) : "";
  if (N.empty() || Depth > 3)
    return std::nullopt;
  if (const VarDecl *VD = local(N)) {
    if (!isa<ParmVarDecl>(VD) && VD->getInit() && !Assigned.count(VD))
      return foldInt(strip(VD->getInit()), Ctx);
    return std::nullopt;
  }
  if (auto D = lexDecl(N)) {
    if (!D->Ctor)
      return lexConst(D->Init, Depth + 1);
    if (D->Parts.size() == 1)
      return lexConst(D->Parts[0], Depth + 1);
  }
  return std::nullopt;
}

SiteFact LaunchScanner::lexAxis(std::vector<Tok> Ts, unsigned Depth) {
  Ts = unwrap(std::move(Ts));
  SiteFact F;
  if (Depth > 4)
    return F;
  if (auto V = lexConst(Ts)) {
    if (*V >= 1) {
      F.Known = F.HasRange = true;
      F.Hi = *V - 1;
    }
    return F;
  }
  std::string N = lexName(Ts);
  if (!N.empty()) {
    if (Ts.size() == 1) {
      if (const VarDecl *VD = local(N)) {
        if (VD->getType()->isRecordType() || VD->getType()->isPointerType())
          return F;
        if (!isa<ParmVarDecl>(VD) && VD->getInit() && !Assigned.count(VD) &&
            !VD->getType()->isReferenceType())
          F = axis(VD->getInit());
        if (auto M = callerMaxOf(dyn_cast<ParmVarDecl>(VD)); M && *M >= 1) {
          F.Known = F.HasRange = true;
          F.Hi = *M - 1;
          return F;
        }
      } else if (auto D = lexDecl(N)) {
        if (D->Dim3)
          return F;
        if (!D->Ctor)
          F = lexAxis(D->Init, Depth + 1);
        else if (D->Parts.size() == 1)
          F = lexAxis(D->Parts[0], Depth + 1);
      }
    }
    if (!F.Known) {
      F.Known = true;
      F.BoundBy = N;
    }
    return F;
  }
  // std::min(a, b): below a constant, and below the first named.
  {
    size_t P = Ts.size() >= 3 && Ts[0].S == "std" && Ts[1].K == tok::coloncolon ? 2 : 0;
    if (Ts.size() >= P + 5 && (Ts[P].S == "min" || Ts[P].S == "__min" || Ts[P].S == "umin") &&
        Ts[P + 1].K == tok::l_paren && Ts.back().K == tok::r_paren) {
      std::vector<std::vector<Tok>> G;
      if (split(Ts, P + 2, tok::r_paren, G) == Ts.size() - 1 && G.size() == 2) {
        auto A = lexConst(G[0]), B = lexConst(G[1]);
        if (A && B)
          return lexAxis(*A < *B ? G[0] : G[1], Depth + 1);
        if (!A && !B) {
          F = lexAxis(G[0], Depth + 1);
          return F.Known ? F : lexAxis(G[1], Depth + 1);
        }
        F = lexAxis(A ? G[1] : G[0], Depth + 1);
        int64_t C = A ? *A : *B;
        if (C >= 1 && (!F.HasRange || F.Hi > C - 1)) {
          F.Known = F.HasRange = true;
          F.Lo = 0;
          F.Hi = C - 1;
        }
        return F;
      }
    }
  }
  // DIVUP(n, 128), ceil_div(n, BLOCK)
  if (Ts.size() >= 4 && Ts[0].K == tok::raw_identifier && ceilDivName(Ts[0].S) &&
      Ts[1].K == tok::l_paren && Ts.back().K == tok::r_paren) {
    std::vector<std::vector<Tok>> G;
    if (split(Ts, 2, tok::r_paren, G) == Ts.size() - 1 && G.size() == 2)
      return lexCeilDiv(G[0], G[1], true, Depth);
    return F;
  }
  // (n + B - 1) / B, n / B
  int Paren = 0;
  size_t Slash = Ts.size();
  for (size_t I = 0; I < Ts.size(); ++I) {
    Paren += Ts[I].K == tok::l_paren ? 1 : Ts[I].K == tok::r_paren ? -1 : 0;
    if (Paren == 0 && Ts[I].K == tok::slash)
      Slash = I;
    if (Paren == 0 && (Ts[I].K == tok::star || Ts[I].K == tok::question ||
                       Ts[I].K == tok::percent || Ts[I].K == tok::lessless))
      return F; // a product or a choice: no single quantity
  }
  if (Slash > 0 && Slash + 1 < Ts.size())
    return lexCeilDiv(std::vector<Tok>(Ts.begin(), Ts.begin() + Slash),
                      std::vector<Tok>(Ts.begin() + Slash + 1, Ts.end()), false, Depth);
  return F;
}

/// ceil(Num / Den) spelled by tokens; Exact for a ceil-div helper's call.
SiteFact LaunchScanner::lexCeilDiv(const std::vector<Tok> &NumT, const std::vector<Tok> &DenT,
                                   bool Exact, unsigned Depth) {
  SiteFact F;
  std::vector<Tok> Num = unwrap(NumT), Den = unwrap(DenT);
  auto B = lexConst(Den);
  if (B && *B <= 0)
    return F;
  std::string DenText = join(Den);
  // Additive terms at depth 0.
  std::vector<std::pair<std::vector<Tok>, bool>> Terms(1);
  int Paren = 0;
  for (const Tok &T : Num) {
    Paren += T.K == tok::l_paren ? 1 : T.K == tok::r_paren ? -1 : 0;
    if (Paren == 0 && (T.K == tok::plus || T.K == tok::minus) && !Terms.back().first.empty()) {
      Terms.push_back({{}, T.K == tok::minus});
      continue;
    }
    Terms.back().first.push_back(T);
  }
  const std::vector<Tok> *Main = nullptr;
  int64_t K = 0;
  int DenTerms = 0;
  for (auto &[T, Neg] : Terms) {
    if (auto V = lexConst(T)) {
      K += Neg ? -*V : *V;
      continue;
    }
    if (!B && !Neg && join(unwrap(T)) == DenText) {
      ++DenTerms;
      continue;
    }
    if (Main || Neg)
      return F;
    Main = &T;
  }
  if (!Main)
    return F;
  if (!roundsUpWithin(B, DenTerms, K, Exact))
    return F;
  return divided(lexAxis(*Main, Depth + 1), B, DenText);
}

void LaunchScanner::lexGrid(const std::vector<Tok> &G, SiteFact (&Axes)[3], unsigned Depth) {
  std::vector<Tok> Ts = unwrap(G);
  if (Depth > 3)
    return;
  // dim3(a, b, c), dim3{a, b}, {a, b}
  size_t Open = Ts.size();
  if (Ts.size() >= 3 && Ts[0].S == "dim3" &&
      (Ts[1].K == tok::l_paren || Ts[1].K == tok::l_brace))
    Open = 1;
  else if (Ts.size() >= 2 && Ts[0].K == tok::l_brace)
    Open = 0;
  if (Open < Ts.size()) {
    std::vector<std::vector<Tok>> Parts;
    tok::TokenKind Close = Ts[Open].K == tok::l_paren ? tok::r_paren : tok::r_brace;
    if (split(Ts, Open + 1, Close, Parts) != Ts.size() - 1)
      return;
    for (unsigned I = 0; I < 3; ++I)
      Axes[I] = I < Parts.size() ? lexAxis(Parts[I]) : axis1();
    return;
  }
  std::string N = Ts.size() == 1 ? lexName(Ts) : "";
  if (!N.empty()) {
    if (const VarDecl *VD = local(N)) {
      if (VD->getType()->isRecordType()) { // dim3 grid(...) declared outside the lambda
        if (!isa<ParmVarDecl>(VD) && VD->getInit() && !Assigned.count(VD))
          grid(VD->getInit(), Axes);
        return;
      }
    } else if (auto D = lexDecl(N)) {
      if (D->Dim3) {
        if (!D->Ctor)
          return lexGrid(D->Init, Axes, Depth + 1);
        for (unsigned I = 0; I < 3; ++I)
          Axes[I] = I < D->Parts.size() ? lexAxis(D->Parts[I]) : axis1();
        return;
      }
    } else if (!scalarParam(N)) {
      return; // a name we cannot type: it may be a dim3
    }
  }
  Axes[0] = lexAxis(Ts);
  Axes[1] = Axes[2] = axis1();
}

/// Whether N is a parameter of the function the launch is in, declared
/// with a type other than dim3 (read from the tokens of its signature).
bool LaunchScanner::scalarParam(const std::string &N) {
  if (!LexToks || LexBegin == 0)
    return false;
  const std::vector<Tok> &Ts = *LexToks;
  for (size_t J = LexBegin; J-- > 0 && J + 200 > LexBegin;) {
    if (Ts[J].K == tok::semi || Ts[J].K == tok::r_brace)
      return false;
    if (Ts[J].K == tok::raw_identifier && Ts[J].S == N) {
      for (size_t B = J; B-- > 0 && B + 4 > J;)
        if (Ts[B].S == "dim3")
          return false;
      return J + 1 < Ts.size() && (Ts[J + 1].K == tok::comma || Ts[J + 1].K == tok::r_paren);
    }
  }
  return false;
}

SiteFact LaunchScanner::lexArg(const std::vector<Tok> &A) {
  std::vector<Tok> Ts = unwrap(A);
  SiteFact F;
  if (auto V = lexConst(Ts)) {
    F.Known = F.HasRange = true;
    F.Lo = F.Hi = *V;
    return F;
  }
  std::string N = lexName(Ts);
  if (N.empty())
    return F;
  F.Known = true;
  F.BoundBy = N;
  return F;
}

} // namespace launchfacts
} // namespace kvlint
