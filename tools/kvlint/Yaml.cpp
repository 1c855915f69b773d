//===- Yaml.cpp - a small, strict reader for clang-tidy's YAML subset ----===//
//
// A recursive-descent reader over lines with a (line, column) cursor. Block
// structure is decided by columns; flow collections and quoted scalars may
// run over several lines. Every failure is a ParseError with the line it was
// found on; nesting is capped so no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//
#include "Yaml.h"

#include <algorithm>

#include <cstdint>
#include <string>
#include <unordered_set>

namespace kvlint {
namespace yaml {

const Node *Node::get(const std::string &Key) const {
  for (const auto &KV : Items)
    if (KV.first == Key)
      return &KV.second;
  return nullptr;
}

namespace {

constexpr unsigned MaxDepth = 64;

struct ParseError {
  size_t Line; // 0-based
  std::string Msg;
};

bool isSpace(char C) { return C == ' ' || C == '\t'; }

class Parser {
public:
  Parser(const std::string &Text) {
    size_t B = 0;
    for (size_t I = 0; I <= Text.size(); ++I)
      if (I == Text.size() || Text[I] == '\n') {
        std::string Ln = Text.substr(B, I - B);
        if (!Ln.empty() && Ln.back() == '\r')
          Ln.pop_back();
        Lines.push_back(Ln);
        B = I + 1;
      }
    for (size_t I = 0; I < Lines.size(); ++I)
      for (char Ch : Lines[I])
        if (Ch == '\0')
          throw ParseError{I, "NUL byte"};
  }

  Node document() {
    if (!Lines.empty())
      checkLineStart();
    if (!nextContent())
      return Node();
    Seen = true;
    Node N = parseNode(0);
    if (nextContent())
      fail("unexpected content at column " + std::to_string(C + 1) +
           " (a key or item at a wrong indentation?)");
    return N;
  }

private:
  std::vector<std::string> Lines;
  size_t L = 0, C = 0;
  unsigned Depth = 0;
  bool Seen = false;

  [[noreturn]] void fail(const std::string &Msg) { throw ParseError{L, Msg}; }
  [[noreturn]] void failAt(size_t Line, const std::string &Msg) { throw ParseError{Line, Msg}; }

  const std::string &line() const { return Lines[L]; }
  char at(size_t I) const { return I < line().size() ? line()[I] : '\0'; }
  char cur() const { return L < Lines.size() ? at(C) : '\0'; }

  struct DepthGuard {
    Parser &P;
    DepthGuard(Parser &P) : P(P) {
      if (++P.Depth > MaxDepth)
        P.fail("nesting deeper than " + std::to_string(MaxDepth) + " levels");
    }
    ~DepthGuard() { --P.Depth; }
  };

  /// True when line L from column C on holds only blanks or a comment.
  bool blankRest() const {
    size_t I = C;
    while (I < line().size() && isSpace(line()[I]))
      ++I;
    if (I >= line().size())
      return true;
    return line()[I] == '#' && (I == 0 || isSpace(line()[I - 1]));
  }

  /// Tabs in indentation and document markers, checked once per line.
  void checkLineStart() {
    const std::string &S = line();
    auto Marker = [&](const char *M) {
      return S.compare(0, 3, M) == 0 && (S.size() == 3 || isSpace(S[3]));
    };
    if (Marker("---")) {
      if (Seen)
        fail("only one YAML document is supported (second '---')");
      C = 3;
      if (!blankRest())
        fail("content after '---' is not supported; start it on the next line");
      C = S.size();
      return;
    }
    if (Marker("...")) {
      for (size_t I = L + 1; I < Lines.size(); ++I) {
        size_t Save = L;
        L = I, C = 0;
        if (!blankRest())
          fail("content after the end of the document ('...')");
        L = Save;
      }
      L = Lines.size();
      C = 0;
      return;
    }
    size_t I = 0;
    while (I < S.size() && isSpace(S[I])) {
      if (S[I] == '\t') {
        C = 0;
        if (!blankRest())
          fail("tab in indentation (YAML indents with spaces)");
        break;
      }
      ++I;
    }
  }

  /// Moves to the next non-blank, non-comment character; false at the end.
  bool nextContent() {
    while (L < Lines.size()) {
      if (!blankRest()) {
        while (isSpace(at(C)))
          ++C;
        return true;
      }
      ++L;
      C = 0;
      if (L < Lines.size())
        checkLineStart();
    }
    return false;
  }

  bool dashItem() const { return at(C) == '-' && (C + 1 >= line().size() || isSpace(at(C + 1))); }

  void rejectIndicator(char Ch) {
    switch (Ch) {
    case '&': fail("anchors ('&') are not supported");
    case '*': fail("aliases ('*') are not supported");
    case '!': fail("tags ('!') are not supported");
    case '%': fail("directives ('%') are not supported");
    case '@': case '`': fail(std::string("'") + Ch + "' cannot start a plain scalar");
    case '?':
      if (C + 1 >= line().size() || isSpace(at(C + 1)))
        fail("complex keys ('?') are not supported");
      break;
    default: break;
    }
  }

  /// Column of a ':' that ends a plain key on this line (followed by a blank
  /// or the line's end), or npos. Stops at a comment.
  size_t keyColon(size_t From) const {
    for (size_t I = From; I < line().size(); ++I) {
      char Ch = line()[I];
      if (Ch == '#' && I > 0 && isSpace(line()[I - 1]))
        return std::string::npos;
      if (Ch == ':' && (I + 1 >= line().size() || isSpace(line()[I + 1])))
        return I;
    }
    return std::string::npos;
  }

  Node scalar(std::string Text, size_t Line) {
    Node N;
    N.K = Node::Scalar;
    N.Text = std::move(Text);
    N.Line = unsigned(Line + 1);
    return N;
  }

  static std::string rtrim(std::string S) {
    while (!S.empty() && isSpace(S.back()))
      S.pop_back();
    return S;
  }

  // ---- block structure ----------------------------------------------------

  /// A node starting at the cursor (on content); its lines are indented at
  /// least MinIndent.
  Node parseNode(size_t MinIndent) {
    DepthGuard G(*this);
    char Ch = cur();
    if (dashItem())
      return parseSeq(C);
    if (Ch == '{' || Ch == '[') {
      size_t Start = L;
      Node N = parseFlow();
      while (isSpace(at(C)))
        ++C;
      if (at(C) == ':')
        failAt(Start, "flow collections as keys are not supported");
      if (!blankRest())
        fail("unexpected text after a flow collection");
      return N;
    }
    if (Ch == '|' || Ch == '>')
      return blockScalar(MinIndent == 0 ? 0 : MinIndent - 1, MinIndent == 0);
    rejectIndicator(Ch);
    if (Ch == '"' || Ch == '\'') {
      size_t Start = L, Col = C;
      std::string T = quoted();
      while (isSpace(at(C)))
        ++C;
      if (at(C) == ':' && L == Start && (C + 1 >= line().size() || isSpace(at(C + 1)))) {
        C = Col; // a quoted key: the node is a mapping
        return parseMap(Col);
      }
      if (!blankRest())
        fail("unexpected text after a quoted scalar");
      return scalar(T, Start);
    }
    if (keyColon(C) != std::string::npos)
      return parseMap(C);
    return plain(MinIndent == 0 ? 0 : MinIndent - 1, MinIndent == 0);
  }

  Node parseMap(size_t Col) {
    DepthGuard G(*this);
    Node M;
    M.K = Node::Map;
    M.Line = unsigned(L + 1);
    std::unordered_set<std::string> Keys; // duplicates in linear time
    while (true) {
      size_t KeyLine = L;
      if (dashItem())
        fail("expected a key, found a sequence item");
      std::string Key;
      char Ch = cur();
      if (Ch == '"' || Ch == '\'') {
        Key = quoted();
        if (L != KeyLine)
          failAt(KeyLine, "a key cannot span lines");
        while (isSpace(at(C)))
          ++C;
        if (at(C) != ':')
          fail("expected ':' after the key");
      } else {
        if (Ch == '{' || Ch == '[')
          fail("flow collections as keys are not supported");
        rejectIndicator(Ch);
        size_t Colon = keyColon(C);
        if (Colon == std::string::npos)
          fail("expected 'key: value'");
        Key = rtrim(line().substr(C, Colon - C));
        C = Colon;
      }
      ++C; // ':'
      if (Key.empty())
        fail("empty key");
      if (!Keys.insert(Key).second)
        failAt(KeyLine, "duplicate key '" + Key + "'");
      M.Items.emplace_back(Key, value(Col, KeyLine));
      if (!nextContent() || C < Col)
        break;
      if (C > Col)
        fail("bad indentation: expected a key at column " + std::to_string(Col + 1));
    }
    return M;
  }

  /// The value after "key:" of a mapping at column Col.
  Node value(size_t Col, size_t KeyLine) {
    while (isSpace(at(C)))
      ++C;
    if (blankRest()) {
      if (!nextContent())
        return Node();
      if (C > Col)
        return parseNode(Col + 1);
      if (C == Col && dashItem())
        return parseSeq(Col); // "key:\n- a\n- b"
      Node N;
      N.Line = unsigned(KeyLine + 1);
      return N;
    }
    char Ch = cur();
    if (Ch == '{' || Ch == '[') {
      Node N = parseFlow();
      if (!blankRest())
        fail("unexpected text after a flow collection");
      return N;
    }
    if (Ch == '|' || Ch == '>')
      return blockScalar(Col, false);
    if (dashItem())
      fail("a sequence cannot start on the line of its key; start it on the next line");
    rejectIndicator(Ch);
    if (Ch == '"' || Ch == '\'') {
      size_t Start = L;
      std::string T = quoted();
      if (!blankRest()) {
        while (isSpace(at(C)))
          ++C;
        fail(at(C) == ':' ? "a mapping cannot start on the line of its key"
                          : "unexpected text after a quoted scalar");
      }
      return scalar(T, Start);
    }
    if (keyColon(C) != std::string::npos)
      fail("a mapping cannot start on the line of its key; start it on the next line");
    return plain(Col, false);
  }

  Node parseSeq(size_t Col) {
    DepthGuard G(*this);
    Node S;
    S.K = Node::Seq;
    S.Line = unsigned(L + 1);
    while (true) {
      ++C; // '-'
      while (isSpace(at(C)))
        ++C;
      if (blankRest()) {
        size_t ItemLine = L;
        if (!nextContent() || C <= Col) {
          Node N;
          N.Line = unsigned(ItemLine + 1);
          S.Elems.push_back(N);
          if (L >= Lines.size() || C < Col || !dashItem())
            break;
          continue;
        }
        S.Elems.push_back(parseNode(Col + 1));
      } else {
        S.Elems.push_back(parseNode(Col + 1));
      }
      if (!nextContent() || C < Col)
        break;
      if (C > Col)
        fail("bad indentation: expected '-' at column " + std::to_string(Col + 1));
      if (!dashItem())
        break; // a key of the enclosing mapping at the same column
    }
    return S;
  }

  /// A plain scalar at the cursor; continuation lines must be indented more
  /// than Parent (any indentation at the top level).
  Node plain(size_t Parent, bool TopLevel) {
    size_t Start = L;
    std::string T;
    auto Take = [&] {
      size_t E = C;
      while (E < line().size() && !(line()[E] == '#' && E > 0 && isSpace(line()[E - 1])))
        ++E;
      std::string Part = rtrim(line().substr(C, E - C));
      if (keyColon(C) != std::string::npos)
        fail("unexpected ': ' in a plain scalar (quote the value)");
      C = E;
      return Part;
    };
    T = Take();
    while (true) {
      size_t SL = L, SC = C;
      size_t Empty = 0;
      // Blank lines inside a multi-line plain scalar become newlines.
      size_t I = L + 1;
      bool Cont = false;
      for (; I < Lines.size(); ++I) {
        const std::string &S = Lines[I];
        size_t F = S.find_first_not_of(" \t");
        if (F == std::string::npos) {
          ++Empty;
          continue;
        }
        if (S[F] == '#')
          break;
        if (S.find('\t') < F)
          failAt(I, "tab in indentation (YAML indents with spaces)");
        if ((TopLevel || F > Parent) && !(S.compare(0, 3, "---") == 0 && F == 0) &&
            !(S.compare(0, 3, "...") == 0 && F == 0))
          Cont = true;
        break;
      }
      if (!Cont) {
        L = SL, C = SC;
        break;
      }
      L = I;
      C = Lines[I].find_first_not_of(" \t");
      if (TopLevel && C == 0 && keyColon(0) != std::string::npos)
        fail("expected end of document");
      T += Empty ? std::string(Empty, '\n') : std::string(" ");
      T += Take();
    }
    return scalar(T, Start);
  }

  /// | or > at the cursor; content lines are indented more than Parent.
  Node blockScalar(size_t Parent, bool TopLevel) {
    size_t Start = L;
    bool Folded = cur() == '>';
    ++C;
    char Chomp = 'c';
    if (at(C) == '-' || at(C) == '+')
      Chomp = at(C++) == '-' ? 's' : 'k';
    if (at(C) >= '0' && at(C) <= '9')
      fail("indentation indicators in block scalars are not supported");
    if (!blankRest())
      fail("unexpected text after a block scalar indicator");
    std::vector<std::string> Body;
    size_t Indent = std::string::npos;
    size_t I = L + 1;
    for (; I < Lines.size(); ++I) {
      const std::string &S = Lines[I];
      size_t F = S.find_first_not_of(' ');
      if (F == std::string::npos || (Indent != std::string::npos && F >= S.size())) {
        Body.push_back("");
        continue;
      }
      if (Indent == std::string::npos) {
        if (!TopLevel && F <= Parent)
          break;
        if (S[F] == '\t')
          failAt(I, "tab in indentation (YAML indents with spaces)");
        Indent = F;
      }
      if (F < Indent) {
        if (S.find_first_not_of(" \t") == std::string::npos) {
          Body.push_back("");
          continue;
        }
        break;
      }
      Body.push_back(S.substr(Indent));
    }
    // Trailing blank lines belong to chomping, not to the next node.
    size_t Kept = Body.size();
    while (Kept && Body[Kept - 1].find_first_not_of(" \t") == std::string::npos)
      --Kept;
    size_t Trailing = Body.size() - Kept;
    Body.resize(Kept);
    std::string T;
    for (size_t K = 0; K < Body.size(); ++K) {
      if (K) {
        bool Fold = Folded && !Body[K - 1].empty() && !Body[K].empty() && Body[K][0] != ' ' &&
                    Body[K - 1][0] != ' ';
        T += Fold ? " " : "\n";
      }
      T += Body[K];
    }
    if (!Body.empty() && Chomp != 's')
      T += "\n";
    if (Chomp == 'k')
      T += std::string(Trailing, '\n');
    L = I - 1; // the last line consumed (blank trailing lines are harmless)
    C = line().size();
    return scalar(T, Start);
  }

  // ---- scalars and flow collections ---------------------------------------

  /// A 'single' or "double" quoted scalar at the cursor, possibly over
  /// several lines (a line break folds to a space, blank lines to newlines).
  std::string quoted() {
    char Q = cur();
    size_t Start = L;
    ++C;
    std::string T;
    while (true) {
      if (C >= line().size()) {
        // fold the line break
        size_t Empty = 0;
        T = rtrim(T);
        do {
          ++L;
          if (L >= Lines.size())
            failAt(Start, std::string("unterminated ") + (Q == '"' ? "double" : "single") +
                              "-quoted scalar");
          C = line().find_first_not_of(" \t");
          if (C == std::string::npos) {
            ++Empty;
            C = line().size();
          }
        } while (C >= line().size());
        T += Empty ? std::string(Empty, '\n') : std::string(" ");
        continue;
      }
      char Ch = line()[C];
      if (Q == '\'') {
        if (Ch == '\'') {
          if (at(C + 1) == '\'') {
            T += '\'';
            C += 2;
            continue;
          }
          ++C;
          return T;
        }
        T += Ch;
        ++C;
        continue;
      }
      if (Ch == '"') {
        ++C;
        return T;
      }
      if (Ch != '\\') {
        T += Ch;
        ++C;
        continue;
      }
      ++C;
      if (C >= line().size()) { // escaped line break: no space
        ++L;
        if (L >= Lines.size())
          failAt(Start, "unterminated double-quoted scalar");
        C = line().find_first_not_of(" \t");
        if (C == std::string::npos)
          C = line().size();
        continue;
      }
      char E = line()[C++];
      switch (E) {
      case '\\': T += '\\'; break;
      case '"': T += '"'; break;
      case '/': T += '/'; break;
      case ' ': T += ' '; break;
      case 't': case '\t': T += '\t'; break;
      case 'n': T += '\n'; break;
      case 'r': T += '\r'; break;
      case '0': fail("'\\0' in a string is not supported");
      case 'x': case 'u': {
        unsigned Digits = E == 'x' ? 2 : 4;
        uint32_t V = 0;
        for (unsigned K = 0; K < Digits; ++K) {
          char H = at(C++);
          int D = (H >= '0' && H <= '9') ? H - '0'
                  : (H >= 'a' && H <= 'f') ? H - 'a' + 10
                  : (H >= 'A' && H <= 'F') ? H - 'A' + 10
                                           : -1;
          if (D < 0)
            fail(std::string("bad '\\") + E + "' escape");
          V = V * 16 + unsigned(D);
        }
        if (V == 0)
          fail("'\\0' in a string is not supported");
        if (V < 0x80) {
          T += char(V);
        } else if (V < 0x800) {
          T += char(0xC0 | (V >> 6));
          T += char(0x80 | (V & 0x3F));
        } else {
          T += char(0xE0 | (V >> 12));
          T += char(0x80 | ((V >> 6) & 0x3F));
          T += char(0x80 | (V & 0x3F));
        }
        break;
      }
      default:
        fail(std::string("unknown escape '\\") + E + "'");
      }
    }
  }

  /// Skips blanks, line breaks and comments inside a flow collection.
  void flowSpace(size_t OpenLine, char Close) {
    while (true) {
      if (L >= Lines.size())
        failAt(OpenLine, std::string("unterminated flow collection (no '") + Close + "')");
      if (blankRest()) {
        ++L;
        C = 0;
        if (L < Lines.size()) {
          const std::string &S = line();
          if ((S.compare(0, 3, "---") == 0 || S.compare(0, 3, "...") == 0) &&
              (S.size() == 3 || isSpace(S[3])))
            fail("document marker inside a flow collection");
        }
        continue;
      }
      while (isSpace(at(C)))
        ++C;
      return;
    }
  }

  /// A scalar or collection inside a flow collection.
  Node flowItem(size_t OpenLine, char Close) {
    char Ch = cur();
    if (Ch == '{' || Ch == '[')
      return parseFlow();
    size_t Start = L;
    if (Ch == '"' || Ch == '\'')
      return scalar(quoted(), Start);
    rejectIndicator(Ch);
    if (Ch == '|' || Ch == '>')
      fail("block scalars inside a flow collection are not supported");
    size_t B = C;
    while (C < line().size()) {
      char X = line()[C];
      if (X == ',' || X == '[' || X == ']' || X == '{' || X == '}')
        break;
      if (X == ':' && (C + 1 >= line().size() || isSpace(at(C + 1)) || at(C + 1) == ',' ||
                       at(C + 1) == '}' || at(C + 1) == ']'))
        break;
      if (X == '#' && C > B && isSpace(line()[C - 1]))
        break;
      ++C;
    }
    (void)OpenLine, (void)Close;
    return scalar(rtrim(line().substr(B, C - B)), Start);
  }

  Node parseFlow() {
    DepthGuard G(*this);
    size_t Open = L;
    char Close = cur() == '{' ? '}' : ']';
    Node N;
    N.K = Close == '}' ? Node::Map : Node::Seq;
    N.Line = unsigned(L + 1);
    std::unordered_set<std::string> Keys;
    ++C;
    while (true) {
      flowSpace(Open, Close);
      if (cur() == Close) {
        ++C;
        return N;
      }
      if (cur() == ',')
        fail("empty entry in a flow collection");
      Node First = flowItem(Open, Close);
      flowSpace(Open, Close);
      if (N.K == Node::Map || cur() == ':') {
        if (First.K != Node::Scalar && First.K != Node::Null)
          fail("flow collections as keys are not supported");
        Node V;
        if (cur() == ':') {
          ++C;
          flowSpace(Open, Close);
          if (cur() != ',' && cur() != Close)
            V = flowItem(Open, Close);
        } else if (N.K == Node::Map) {
          fail("expected ':' after a key in a flow mapping");
        }
        if (First.Text.empty())
          fail("empty key");
        if (N.K == Node::Map) {
          if (!Keys.insert(First.Text).second)
            fail("duplicate key '" + First.Text + "'");
          N.Items.emplace_back(First.Text, V);
        } else { // [a: b] is a one-pair mapping
          Node Pair;
          Pair.K = Node::Map;
          Pair.Line = First.Line;
          Pair.Items.emplace_back(First.Text, V);
          N.Elems.push_back(Pair);
        }
      } else {
        N.Elems.push_back(First);
      }
      flowSpace(Open, Close);
      if (cur() == ',') {
        ++C;
        continue;
      }
      if (cur() == Close)
        continue;
      fail(std::string("expected ',' or '") + Close + "' in a flow collection");
    }
  }
};

} // namespace

bool parse(const std::string &Text, const std::string &File, Node &Out, std::string &Err) {
  try {
    // A UTF-8 byte order mark (editors on Windows write one) is not part of
    // the first key: without this, it would hide a .clang-tidy's Checks.
    static const std::string Bom = "\xEF\xBB\xBF";
    std::string Body = Text.compare(0, 3, Bom) == 0 ? Text.substr(3) : Text;
    // Any other mark would hide the key it precedes (two marks at the start
    // hid a .clang-tidy's Checks): an error at its line.
    if (size_t At = Body.find(Bom); At != std::string::npos) {
      Err = File + ":" + std::to_string(1 + std::count(Body.begin(), Body.begin() + At, '\n')) +
            ": a byte order mark inside the file (only one, at its very start, is allowed)";
      return false;
    }
    Parser P(Body);
    Out = P.document();
    return true;
  } catch (const ParseError &E) {
    Err = File + ":" + std::to_string(E.Line + 1) + ": " + E.Msg;
    return false;
  }
}

} // namespace yaml
} // namespace kvlint
