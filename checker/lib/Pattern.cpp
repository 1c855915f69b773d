//===- Pattern.cpp - name patterns that match in linear time ---------------===//
//
// The ECMAScript subset of Pattern.h is translated, character by character,
// into POSIX ERE for llvm::Regex. Searches never ask for groups except
// through search(Text, Groups), so the matcher runs its state-set pass only.
//
//===----------------------------------------------------------------------===//
#include "kvlint/Pattern.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cassert>
#include <cctype>

namespace kvlint {

namespace {

constexpr size_t MaxSource = 16384;
constexpr size_t MaxStates = 100000;
constexpr unsigned MaxRepeat = 255; // RE_DUP_MAX

bool ereSpecial(char C) { return std::string("^$.[]()|*+?{}\\").find(C) != std::string::npos; }

/// A rough count of the states a compiled ERE holds: each bounded
/// repetition {m,n} copies its atom n times, so nested bounds multiply.
class StateCount {
public:
  void atom(size_t N = 1) { add(N); Last = N; }
  void open() { Stack.push_back({Cur, Alts}); Cur = 0, Alts = 0, Last = 0; }
  void close() {
    size_t G = Alts + Cur;
    Cur = Stack.back().first, Alts = Stack.back().second;
    Stack.pop_back();
    atom(G);
  }
  void bar() { Alts += Cur, Cur = 0, Last = 0; }
  void repeat(unsigned Times) {
    if (Times > 1)
      add(Last * (Times - 1));
    Last *= std::max(1u, Times);
  }
  bool over() const { return Over; }

private:
  void add(size_t N) {
    Cur += N;
    if (Cur + Alts > MaxStates || N > MaxStates)
      Over = true;
    for (const auto &F : Stack)
      if (F.first + F.second + Cur + Alts > MaxStates)
        Over = true;
  }
  std::vector<std::pair<size_t, size_t>> Stack;
  size_t Cur = 0, Alts = 0, Last = 0;
  bool Over = false;
};

/// Where the bracket expression that opens at S[I] ('[') ends (the index of
/// its ']'), or npos. ECMAScript: ']' right after '[' or '[^' closes it.
size_t bracketEnd(const std::string &S, size_t I) {
  size_t J = I + 1;
  if (J < S.size() && S[J] == '^')
    ++J;
  for (; J < S.size(); ++J) {
    if (S[J] == '\\')
      ++J;
    else if (S[J] == ']')
      return J;
  }
  return std::string::npos;
}

/// Translates one bracket expression S[I..End] into Out.
bool bracket(const std::string &S, size_t I, size_t End, std::string &Out, std::string &Err) {
  size_t J = I + 1;
  bool Neg = J < End && S[J] == '^';
  if (Neg)
    ++J;
  if (J == End) {
    Err = "empty character class '[]'";
    return false;
  }
  std::string Items, Classes;
  bool RBracket = false, Dash = false, Caret = false, PrevClass = false;
  for (; J < End; ++J) {
    char C = S[J];
    bool AfterClass = PrevClass;
    PrevClass = false;
    if (C == '[' && J + 1 < End && (S[J + 1] == ':' || S[J + 1] == '.' || S[J + 1] == '=')) {
      Err = "POSIX classes ('[:alpha:]') are not supported; use \\w, \\d, \\s or a range";
      return false;
    }
    if (C == '-') {
      // A range a-z stays; a '-' at either end, or beside \w, is literal.
      bool Range = !AfterClass && !Items.empty() && J + 1 < End && S[J + 1] != '\\' &&
                   (Items.size() < 2 || Items[Items.size() - 2] != '-');
      if (Range)
        Items += C;
      else
        Dash = true;
      continue;
    }
    if (C != '\\') {
      Items += C;
      continue;
    }
    char E = S[++J];
    switch (E) {
    case 'd': Classes += "0-9", PrevClass = true; break;
    case 'w': Classes += "[:alnum:]_", PrevClass = true; break;
    case 's': Classes += "[:space:]", PrevClass = true; break;
    case 't': Items += '\t'; break;
    case 'n': Items += '\n'; break;
    case 'r': Items += '\r'; break;
    case ']': RBracket = true; break;
    case '-': Dash = true; break;
    case '^': Caret = true; break;
    default:
      if (std::isalnum((unsigned char)E)) {
        Err = std::string("'\\") + E + "' is not supported inside '[...]'";
        return false;
      }
      Items += E; // \. \\ \/ ...: the character itself (ERE brackets take it literally)
    }
  }
  if (!Neg && Items.empty() && Classes.empty() && !RBracket && Caret) {
    Out += Dash ? "[-^]" : "\\^";
    return true;
  }
  // ']' must come first, '-' last, '^' anywhere but first.
  Out += "[";
  Out += Neg ? "^" : "";
  Out += RBracket ? "]" : "";
  Out += Items + Classes;
  Out += Caret ? "^" : "";
  Out += Dash ? "-" : "";
  Out += "]";
  return true;
}

/// Translates a pattern without top-level lookahead into ERE.
bool translate(const std::string &S, std::string &Out, StateCount &States, std::string &Err) {
  unsigned Depth = 0;
  bool AfterRepeat = false; // a '?' here makes the quantifier lazy: dropped
  bool Empty = true;        // the current alternative is empty so far
  auto EmptyAlt = [&] {
    Err = "empty alternative ('|' at the start or end of a pattern or group, or '||')";
    return false;
  };
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C == '?' && AfterRepeat) {
      AfterRepeat = false;
      continue;
    }
    AfterRepeat = false;
    switch (C) {
    case '\\': {
      if (I + 1 >= S.size()) {
        Err = "pattern ends with '\\'";
        return false;
      }
      char E = S[++I];
      const char *Class = nullptr;
      switch (E) {
      case 'd': Class = "[0-9]"; break;
      case 'D': Class = "[^0-9]"; break;
      case 'w': Class = "[[:alnum:]_]"; break;
      case 'W': Class = "[^[:alnum:]_]"; break;
      case 's': Class = "[[:space:]]"; break;
      case 'S': Class = "[^[:space:]]"; break;
      case 't': Class = "\t"; break;
      case 'n': Class = "\n"; break;
      case 'r': Class = "\r"; break;
      default: break;
      }
      if (Class) {
        Out += Class;
      } else if (E >= '0' && E <= '9') {
        Err = std::string("back-references ('\\") + E + "') are not supported";
        return false;
      } else if (E == 'b' || E == 'B') {
        Err = std::string("word boundaries ('\\") + E + "') are not supported; use (^|_) or a class";
        return false;
      } else if (std::isalpha((unsigned char)E)) {
        Err = std::string("unknown escape '\\") + E + "'";
        return false;
      } else {
        Out += ereSpecial(E) ? std::string("\\") + E : std::string(1, E);
      }
      States.atom();
      Empty = false;
      break;
    }
    case '[': {
      size_t End = bracketEnd(S, I);
      if (End == std::string::npos) {
        Err = "unterminated '[' in the pattern";
        return false;
      }
      if (!bracket(S, I, End, Out, Err))
        return false;
      I = End;
      States.atom();
      Empty = false;
      break;
    }
    case '(':
      if (I + 1 < S.size() && S[I + 1] == '?') {
        if (I + 2 < S.size() && S[I + 2] == ':') {
          I += 2;
        } else {
          Err = "lookahead and lookbehind ('(?') are supported only as ^(?!...) at the start "
                "of a top-level alternative";
          return false;
        }
      }
      Out += '(';
      ++Depth;
      States.open();
      Empty = true;
      break;
    case ')':
      if (!Depth) {
        Err = "unmatched ')' in the pattern";
        return false;
      }
      if (Empty)
        return EmptyAlt();
      Out += ')';
      --Depth;
      States.close();
      Empty = false;
      break;
    case '|':
      if (Empty)
        return EmptyAlt();
      Out += '|';
      States.bar();
      Empty = true;
      break;
    case '*': case '+': case '?':
      Out += C;
      AfterRepeat = true;
      break;
    case '{': {
      // {m}, {m,}, {m,n} is a bound; any other '{' is literal (as in ECMAScript).
      size_t J = I + 1;
      auto Num = [&](unsigned &V) {
        size_t B = J;
        V = 0;
        while (J < S.size() && std::isdigit((unsigned char)S[J]) && J - B < 6)
          V = V * 10 + unsigned(S[J++] - '0');
        return J > B;
      };
      unsigned M = 0, N = 0;
      bool Bound = Num(M);
      bool Comma = Bound && J < S.size() && S[J] == ',';
      bool HasN = false;
      if (Comma) {
        ++J;
        HasN = Num(N);
      }
      Bound = Bound && J < S.size() && S[J] == '}';
      if (!Bound) {
        Out += "\\{";
        States.atom();
        Empty = false;
        break;
      }
      if (!HasN)
        N = Comma ? M + 1 : M;
      if (M > MaxRepeat || N > MaxRepeat + 1 || (HasN && N < M)) {
        Err = "bad repetition '" + S.substr(I, J - I + 1) + "' (counts up to 255, m <= n)";
        return false;
      }
      Out += S.substr(I, J - I + 1);
      States.repeat(N);
      I = J;
      AfterRepeat = true;
      break;
    }
    case '}':
      Out += "\\}";
      States.atom();
      Empty = false;
      break;
    default:
      Out += C;
      if (C != '^' && C != '$')
        States.atom();
      Empty = false;
    }
  }
  if (Depth) {
    Err = "unmatched '(' in the pattern";
    return false;
  }
  if (Empty)
    return EmptyAlt();
  if (States.over()) {
    Err = "the pattern's repetitions expand past " + std::to_string(MaxStates) + " states";
    return false;
  }
  return true;
}

/// The top-level alternatives of S (split at '|' outside groups and brackets).
std::vector<std::string> alternatives(const std::string &S) {
  std::vector<std::string> Out;
  size_t Start = 0;
  unsigned Depth = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C == '\\') {
      ++I;
    } else if (C == '[') {
      size_t E = bracketEnd(S, I);
      if (E == std::string::npos)
        break; // translate() reports it
      I = E;
    } else if (C == '(') {
      ++Depth;
    } else if (C == ')' && Depth) {
      --Depth;
    } else if (C == '|' && !Depth) {
      Out.push_back(S.substr(Start, I - Start));
      Start = I + 1;
    }
  }
  Out.push_back(S.substr(Start));
  return Out;
}

/// The index of the ')' that closes the group opening at S[I], or npos.
size_t groupEnd(const std::string &S, size_t I) {
  unsigned Depth = 0;
  for (; I < S.size(); ++I) {
    char C = S[I];
    if (C == '\\') {
      ++I;
    } else if (C == '[') {
      size_t E = bracketEnd(S, I);
      if (E == std::string::npos)
        return E;
      I = E;
    } else if (C == '(') {
      ++Depth;
    } else if (C == ')' && --Depth == 0) {
      return I;
    }
  }
  return std::string::npos;
}

} // namespace

struct Pattern::Impl {
  std::string Source;
  bool All = false;                    ///< the empty pattern
  std::unique_ptr<llvm::Regex> Plain;  ///< the alternatives without lookahead
  struct Look {
    std::unique_ptr<llvm::Regex> Pos;             ///< ^Y
    std::vector<std::unique_ptr<llvm::Regex>> Neg; ///< ^(X), for each (?!X)
  };
  std::vector<Look> Looks;
};

Pattern::Pattern() = default;

const std::string &Pattern::source() const {
  static const std::string None;
  return P ? P->Source : None;
}

bool Pattern::compile(const std::string &Source, Pattern &Out, std::string &Err, Flags F) {
  auto I = std::make_shared<Impl>();
  I->Source = Source;
  if (Source.empty()) {
    I->All = true;
    Out.P = std::move(I);
    return true;
  }
  if (Source.size() > MaxSource) {
    Err = "pattern longer than " + std::to_string(MaxSource) + " characters";
    return false;
  }
  unsigned RFlags = F == IgnoreCase ? llvm::Regex::IgnoreCase : 0;
  StateCount States;
  auto Make = [&](const std::string &Ecma, std::unique_ptr<llvm::Regex> &R) {
    std::string Ere;
    if (!translate(Ecma, Ere, States, Err))
      return false;
    R = std::make_unique<llvm::Regex>(llvm::StringRef(Ere), RFlags);
    std::string Why;
    if (!R->isValid(Why)) {
      Err = "invalid pattern: " + Why;
      return false;
    }
    return true;
  };
  std::string PlainSrc;
  for (const std::string &A : alternatives(Source)) {
    if (A.empty()) {
      Err = "empty alternative ('|' at the start or end of a pattern, or '||')";
      return false;
    }
    if (A.compare(0, 4, "^(?!") != 0) {
      PlainSrc += (PlainSrc.empty() ? "" : "|") + A;
      continue;
    }
    Impl::Look L;
    size_t At = 1;
    while (A.compare(At, 3, "(?!") == 0) {
      size_t E = groupEnd(A, At);
      if (E == std::string::npos) {
        Err = "unmatched '(' in the pattern";
        return false;
      }
      std::unique_ptr<llvm::Regex> N;
      if (!Make("^(" + A.substr(At + 3, E - At - 3) + ")", N))
        return false;
      L.Neg.push_back(std::move(N));
      At = E + 1;
    }
    if (!Make("^" + A.substr(At), L.Pos))
      return false;
    I->Looks.push_back(std::move(L));
  }
  if (!PlainSrc.empty() && !Make(PlainSrc, I->Plain))
    return false;
  Out.P = std::move(I);
  return true;
}

Pattern Pattern::builtin(const std::string &Source, Flags F) {
  Pattern Out;
  std::string Err;
  bool Ok = compile(Source, Out, Err, F);
  assert(Ok && "a built-in pattern does not compile");
  (void)Ok;
  return Out;
}

bool Pattern::search(const std::string &Text) const {
  if (!P)
    return false;
  if (P->All)
    return true;
  if (P->Plain && P->Plain->match(llvm::StringRef(Text.data(), Text.size())))
    return true;
  for (const Impl::Look &L : P->Looks) {
    if (!L.Pos->match(llvm::StringRef(Text.data(), Text.size())))
      continue;
    bool Excluded = false;
    for (const auto &N : L.Neg)
      Excluded = Excluded || N->match(llvm::StringRef(Text.data(), Text.size()));
    if (!Excluded)
      return true;
  }
  return false;
}

bool Pattern::search(const std::string &Text, std::vector<std::string> &Groups) const {
  Groups.clear();
  if (!P || (!P->All && !P->Plain))
    return false;
  if (P->All) {
    Groups.push_back("");
    return true;
  }
  llvm::SmallVector<llvm::StringRef, 8> M;
  if (!P->Plain->match(llvm::StringRef(Text.data(), Text.size()), &M))
    return false;
  for (llvm::StringRef S : M)
    Groups.push_back(S.str());
  return true;
}

} // namespace kvlint
