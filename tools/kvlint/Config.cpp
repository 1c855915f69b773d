//===- Config.cpp - the --config options file -----------------------------===//
#include "Config.h"

#include <fstream>
#include <sstream>

namespace kvlint {

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\r\n");
  size_t E = S.find_last_not_of(" \t\r\n");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

std::vector<std::string> splitList(const std::string &S) {
  std::vector<std::string> Out;
  std::stringstream SS(S);
  std::string Item;
  while (std::getline(SS, Item, ','))
    if (!Item.empty())
      Out.push_back(Item);
  return Out;
}

bool readConfig(const std::string &Path, std::vector<std::string> &Checks, Options &Opts,
                std::string &Err) {
  std::ifstream In(Path);
  if (!In) {
    Err = "cannot read config file '" + Path + "'";
    return false;
  }
  std::string Line;
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    std::string T = trim(Line);
    if (T.empty() || T[0] == '#')
      continue;
    size_t Colon = T.find(':');
    if (Colon == std::string::npos) {
      Err = Path + ":" + std::to_string(N) + ": expected 'key: value'";
      return false;
    }
    std::string K = trim(T.substr(0, Colon)), V = trim(T.substr(Colon + 1));
    if (V.size() >= 2 && (V[0] == '"' || V[0] == '\'') && V.back() == V[0])
      V = V.substr(1, V.size() - 2);
    if (K == "checks" || K == "Checks")
      Checks = splitList(V);
    else
      Opts.set(K, V);
  }
  return true;
}

} // namespace kvlint
