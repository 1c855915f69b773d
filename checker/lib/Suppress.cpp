//===- Suppress.cpp - NOLINT and kvlint: ignore comments --------------------===//
#include "kvlint/Report.h"

namespace kvlint {

// Does the comment text in Line name this finding? "NOLINT" alone, or with a
// list naming the check / code / a glob "kvlint-*".
static bool names(const std::string &Line, const std::string &Marker, const Finding &F) {
  size_t P = Line.find(Marker);
  while (P != std::string::npos) {
    size_t After = P + Marker.size();
    // NOLINT must not match NOLINTNEXTLINE and vice versa.
    if (Marker == "NOLINT" && Line.compare(After, 8, "NEXTLINE") == 0) {
      P = Line.find(Marker, After);
      continue;
    }
    if (After >= Line.size() || Line[After] != '(')
      return true;
    size_t Close = Line.find(')', After);
    std::string List = Line.substr(After + 1, Close == std::string::npos ? std::string::npos
                                                                         : Close - After - 1);
    size_t S = 0;
    while (S <= List.size()) {
      size_t C = List.find(',', S);
      std::string Item = List.substr(S, C == std::string::npos ? std::string::npos : C - S);
      size_t B = Item.find_first_not_of(" \t"), E = Item.find_last_not_of(" \t");
      Item = B == std::string::npos ? "" : Item.substr(B, E - B + 1);
      if (Item == "*" || Item == F.Check || Item == F.Code ||
          (!Item.empty() && Item.back() == '*' &&
           F.Check.compare(0, Item.size() - 1, Item, 0, Item.size() - 1) == 0))
        return true;
      if (C == std::string::npos)
        break;
      S = C + 1;
    }
    return false;
  }
  return false;
}

static bool ignoreComment(const std::string &Line, const Finding &F) {
  size_t P = Line.find("kvlint: ignore");
  if (P == std::string::npos)
    return false;
  size_t After = P + 14;
  if (After >= Line.size() || Line[After] != '[')
    return true;
  size_t Close = Line.find(']', After);
  std::string List = Line.substr(After + 1, Close == std::string::npos ? std::string::npos
                                                                       : Close - After - 1);
  return List.find(F.Code) != std::string::npos || List.find(F.Check) != std::string::npos;
}

bool isSuppressed(const Finding &F, SourceCache &Src) {
  unsigned L = F.Range.Begin.Line;
  std::string Here = Src.line(F.Range.Begin.File, L);
  if (names(Here, "NOLINT", F) || ignoreComment(Here, F))
    return true;
  if (L > 1) {
    std::string Above = Src.line(F.Range.Begin.File, L - 1);
    if (names(Above, "NOLINTNEXTLINE", F))
      return true;
  }
  return false;
}

} // namespace kvlint
