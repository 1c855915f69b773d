//===- Diff.cpp - lines changed since a git revision ----------------------===//
#include "Diff.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <set>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
namespace fs = std::filesystem;

namespace kvlint {

std::string normalPath(const std::string &P) {
  std::error_code EC;
  fs::path Abs = fs::absolute(fs::path(P), EC).lexically_normal();
  // Symlinks resolved: git names the repository by its real path.
  fs::path Real = fs::weakly_canonical(Abs, EC);
  return (EC ? Abs : Real).string();
}

bool ChangedLines::hasFile(const std::string &Path) const {
  return ByFile.count(normalPath(Path)) != 0;
}

bool ChangedLines::touches(const std::string &Path, unsigned First, unsigned Last) const {
  auto It = ByFile.find(normalPath(Path));
  if (It == ByFile.end())
    return false;
  if (Last < First)
    Last = First;
  for (const auto &[A, B] : It->second)
    if (A <= Last && First <= B)
      return true;
  return false;
}

namespace {

bool parseNum(const std::string &S, size_t &I, unsigned &Out) {
  if (I >= S.size() || !std::isdigit((unsigned char)S[I]))
    return false;
  unsigned long V = 0;
  while (I < S.size() && std::isdigit((unsigned char)S[I])) {
    V = V * 10 + unsigned(S[I++] - '0');
    if (V > 0xffffffffu)
      return false;
  }
  Out = unsigned(V);
  return true;
}

/// "-a[,b] +c[,d]" of an @@ line.
bool parseHunk(const std::string &S, unsigned &OldN, unsigned &NewStart, unsigned &NewN) {
  size_t I = 3; // "@@ "
  unsigned OldStart = 0;
  OldN = 1, NewN = 1;
  if (S.compare(0, 4, "@@ -") != 0)
    return false;
  I = 4;
  if (!parseNum(S, I, OldStart))
    return false;
  if (I < S.size() && S[I] == ',' && !parseNum(S, ++I, OldN))
    return false;
  if (S.compare(I, 2, " +") != 0)
    return false;
  I += 2;
  if (!parseNum(S, I, NewStart))
    return false;
  if (I < S.size() && S[I] == ',' && !parseNum(S, ++I, NewN))
    return false;
  return S.compare(I, 3, " @@") == 0;
}

/// The path of a "+++ " line: git's C-quoted form unquoted, "b/" dropped,
/// a trailing tab and timestamp (diff -u) dropped. "" for /dev/null.
bool newPath(std::string P, std::string &Out) {
  if (!P.empty() && P[0] == '"') {
    std::string U;
    size_t I = 1;
    for (; I < P.size() && P[I] != '"'; ++I) {
      if (P[I] != '\\') {
        U += P[I];
        continue;
      }
      if (++I >= P.size())
        return false;
      char E = P[I];
      if (E >= '0' && E <= '7') { // octal byte
        int V = 0;
        for (int K = 0; K < 3 && I < P.size() && P[I] >= '0' && P[I] <= '7'; ++K, ++I)
          V = V * 8 + (P[I] - '0');
        --I;
        U += char(V);
      } else {
        U += E == 'n' ? '\n' : E == 't' ? '\t' : E;
      }
    }
    if (I >= P.size())
      return false;
    P = U;
  } else {
    size_t Tab = P.find('\t');
    if (Tab != std::string::npos)
      P = P.substr(0, Tab);
  }
  if (P == "/dev/null") {
    Out.clear();
    return true;
  }
  if (P.compare(0, 2, "b/") == 0)
    P = P.substr(2);
  Out = P;
  return !P.empty();
}

} // namespace

bool parseUnifiedDiff(const std::string &Text, const std::string &Root, ChangedLines &Out,
                      std::string &Err) {
  std::istringstream In(Text);
  std::string S, File;
  bool HaveFile = false;
  unsigned N = 0, OldLeft = 0, NewLeft = 0, NewLine = 0;
  auto Fail = [&](const std::string &Msg) {
    Err = "diff:" + std::to_string(N) + ": " + Msg;
    return false;
  };
  while (std::getline(In, S)) {
    ++N;
    if (!S.empty() && S.back() == '\r')
      S.pop_back();
    if (OldLeft || NewLeft) { // inside a hunk: content lines only
      char C = S.empty() ? ' ' : S[0];
      if (C == '\\')
        continue; // "\ No newline at end of file"
      if (C == ' ' && OldLeft && NewLeft)
        --OldLeft, --NewLeft, ++NewLine;
      else if (C == '-' && OldLeft)
        --OldLeft;
      else if (C == '+' && NewLeft)
        --NewLeft, ++NewLine;
      else
        return Fail("hunk shorter than its @@ header says");
      continue;
    }
    if (S.compare(0, 4, "+++ ") == 0) {
      std::string P;
      if (!newPath(S.substr(4), P))
        return Fail("cannot read the file name in '" + S + "'");
      HaveFile = true;
      File = P.empty() ? "" : (fs::path(P).is_absolute() ? P : (fs::path(Root) / P).string());
      if (!File.empty()) {
        File = normalPath(File);
        Out.ByFile[File]; // a file with only deletions is still "changed"
      }
      continue;
    }
    if (S.compare(0, 2, "@@") == 0) {
      unsigned OldN, Start, NewN;
      if (!parseHunk(S, OldN, Start, NewN))
        return Fail("malformed hunk header '" + S + "'");
      if (!HaveFile)
        return Fail("hunk before any '+++ ' file header");
      if (!File.empty() && NewN > 0)
        Out.ByFile[File].push_back({Start, Start + NewN - 1});
      OldLeft = OldN, NewLeft = NewN, NewLine = Start;
      continue;
    }
    // "diff --git", "index", "--- ", "new file mode", ...: headers.
  }
  if (OldLeft || NewLeft)
    return Fail("diff ends inside a hunk");
  return true;
}

namespace {

/// The environment git runs in: kvlint's own, less every GIT_* variable
/// (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS, ...), with no system
/// or global configuration, no pager, no prompt and no optional locks (a
/// diff must not write the repository's index).
/// Config overrides for git, as (key, value) pairs.
using GitConfig = std::vector<std::pair<std::string, std::string>>;

/// The environment git runs in: none of the caller's GIT_* variables, no
/// system or global config, and Safe's overrides through GIT_CONFIG_COUNT,
/// which outrank every config file and keep the key apart from the value
/// (`-c filter.x=y.clean=` would set the key `filter.x`: a filter named
/// `x=y` stayed on).
std::vector<std::string> gitEnvironment(const GitConfig &Safe) {
  std::vector<std::string> Env;
  for (char **E = environ; E && *E; ++E)
    if (std::strncmp(*E, "GIT_", 4) != 0)
      Env.push_back(*E);
  for (const char *V : {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_PAGER=cat",
                        "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_ATTR_NOSYSTEM=1",
                        "GIT_NO_REPLACE_OBJECTS=1"})
    Env.push_back(V);
  Env.push_back("GIT_CONFIG_COUNT=" + std::to_string(Safe.size()));
  for (size_t I = 0; I < Safe.size(); ++I) {
    Env.push_back("GIT_CONFIG_KEY_" + std::to_string(I) + "=" + Safe[I].first);
    Env.push_back("GIT_CONFIG_VALUE_" + std::to_string(I) + "=" + Safe[I].second);
  }
  return Env;
}

/// Runs `git <Safe...> -C Dir Args...` (no shell), capturing stdout; on
/// failure Err carries what git said. The scanned repository is hostile
/// (DESIGN.md §8): its own config may name programs (core.fsmonitor, a
/// filter's clean command, an external diff, textconv), so every such key is
/// switched off in the environment (GIT_CONFIG_COUNT), which outranks any
/// config file.
bool runGit(const std::string &Dir, const std::vector<std::string> &Args, std::string &Out,
            std::string &Err, const GitConfig &Safe);

/// The overrides that switch off what a repository's config could run.
GitConfig baseSafety() {
  return {{"core.fsmonitor", "false"},  {"core.attributesFile", "/dev/null"},
          {"core.hooksPath", "/dev/null"}, {"diff.external", ""},
          {"core.pager", "cat"},        {"core.sshCommand", "false"},
          {"protocol.allow", "never"},  {"submodule.recurse", "false"},
          {"core.alternateRefsCommand", "false"}, {"core.untrackedCache", "false"}};
}

/// Every filter driver the repository's configuration defines, switched
/// off: an empty clean/smudge/process command runs nothing, and a filter
/// marked required no longer fails the diff.
bool filterSafety(const std::string &Dir, GitConfig &Safe, std::string &Err) {
  std::string Keys, E;
  GitConfig Probe = baseSafety();
  // --name-only lists keys, NUL-terminated (-z: a name may hold a newline);
  // `git config` exits 1 when none match.
  if (!runGit(Dir, {"config", "-z", "--name-only", "--get-regexp", "^filter\\."}, Keys, E,
              Probe) &&
      !Keys.empty()) {
    Err = E;
    return false;
  }
  std::set<std::string> Names;
  std::istringstream In(Keys);
  for (std::string K; std::getline(In, K, '\0');) {
    // filter.<name>.<key>; <name> may itself hold dots.
    size_t Last = K.rfind('.');
    if (K.compare(0, 7, "filter.") != 0 || Last == std::string::npos || Last <= 7)
      continue;
    Names.insert(K.substr(7, Last - 7));
  }
  for (const std::string &N : Names)
    for (auto [Key, Value] : {std::pair<const char *, const char *>{"clean", ""},
                              {"smudge", ""}, {"process", ""}, {"required", "false"}})
      Safe.push_back({"filter." + N + "." + Key, Value});
  return true;
}

bool runGit(const std::string &Dir, const std::vector<std::string> &Args, std::string &Out,
            std::string &Err, const GitConfig &Safe) {
  int OutP[2], ErrP[2];
  if (pipe(OutP) || pipe(ErrP)) {
    Err = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_adddup2(&FA, OutP[1], 1);
  posix_spawn_file_actions_adddup2(&FA, ErrP[1], 2);
  posix_spawn_file_actions_addclose(&FA, OutP[0]);
  posix_spawn_file_actions_addclose(&FA, ErrP[0]);
  posix_spawn_file_actions_addopen(&FA, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char *> Argv;
  std::vector<std::string> Full = {"git", "--no-pager"};
  Full.insert(Full.end(), {"-C", Dir});
  Full.insert(Full.end(), Args.begin(), Args.end());
  std::vector<std::string> Env = gitEnvironment(Safe);
  std::vector<char *> Envp;
  for (std::string &E : Env)
    Envp.push_back(E.data());
  Envp.push_back(nullptr);
  for (std::string &A : Full)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  pid_t Pid;
  int Rc = posix_spawnp(&Pid, "git", &FA, nullptr, Argv.data(), Envp.data());
  posix_spawn_file_actions_destroy(&FA);
  close(OutP[1]);
  close(ErrP[1]);
  if (Rc != 0) {
    close(OutP[0]);
    close(ErrP[0]);
    Err = std::string("cannot run git: ") + std::strerror(Rc);
    return false;
  }
  std::string ErrText;
  pollfd Fds[2] = {{OutP[0], POLLIN, 0}, {ErrP[0], POLLIN, 0}};
  int Open = 2;
  char Buf[65536];
  while (Open) {
    if (poll(Fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int K = 0; K < 2; ++K) {
      if (Fds[K].fd < 0 || !(Fds[K].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t R = read(Fds[K].fd, Buf, sizeof Buf);
      if (R > 0) {
        (K ? ErrText : Out).append(Buf, size_t(R));
      } else if (R == 0 || errno != EINTR) {
        close(Fds[K].fd);
        Fds[K].fd = -1;
        --Open;
      }
    }
  }
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0) {
    while (!ErrText.empty() && (ErrText.back() == '\n' || ErrText.back() == '\r'))
      ErrText.pop_back();
    Err = "git " + Args[0] + " failed" + (ErrText.empty() ? "" : ": " + ErrText);
    return false;
  }
  return true;
}

} // namespace

bool gitDiff(const std::string &Dir, const std::string &Ref, ChangedLines &Out,
             std::string &Err) {
  if (Ref.empty() || Ref[0] == '-') {
    Err = "--diff: '" + Ref + "' is not a git revision";
    return false;
  }
  GitConfig Safe = baseSafety();
  std::string Root;
  if (!runGit(Dir, {"rev-parse", "--show-toplevel"}, Root, Err, Safe))
    return false;
  while (!Root.empty() && (Root.back() == '\n' || Root.back() == '\r'))
    Root.pop_back();
  if (!filterSafety(Root, Safe, Err))
    return false;
  // A repository without commits has no HEAD yet: every line is new, so
  // diff against the empty tree.
  std::string Base = Ref, Ignored, NoErr;
  if (Ref == "HEAD" &&
      !runGit(Root, {"rev-parse", "--verify", "--quiet", "HEAD"}, Ignored, NoErr, Safe)) {
    Base = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"; // git's empty tree
    Out.Notes.push_back("the repository has no commit yet: every line of its files is new");
  }
  std::string Text;
  if (!runGit(Root,
              {"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
               "--ignore-submodules=all", "--src-prefix=a/", "--dst-prefix=b/", "-U0", Base,
               "--"},
              Text, Err, Safe))
    return false;
  if (!parseUnifiedDiff(Text, Root, Out, Err))
    return false;
  Out.Root = Root;
  // Untracked files (not ignored) are not in git diff: they are new, whole.
  std::string Untracked;
  if (!runGit(Root, {"ls-files", "--others", "--exclude-standard", "-z", "--"}, Untracked, Err, Safe))
    return false;
  for (size_t P = 0; P < Untracked.size();) {
    size_t E = Untracked.find('\0', P);
    if (E == std::string::npos)
      E = Untracked.size();
    std::string F = normalPath((fs::path(Root) / Untracked.substr(P, E - P)).string());
    if (!Out.ByFile.count(F)) {
      Out.ByFile[F].push_back({1, ~0u});
      Out.Untracked.push_back(F);
    }
    P = E + 1;
  }
  return true;
}

} // namespace kvlint
