//===- Fixes.cpp - --fix: apply fix-its in place --------------------------===//
#include "Fixes.h"
#include "SafeWrite.h"

#include "kvlint/Report.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace kvlint {
namespace {

struct Target {
  std::string Real;               ///< resolved path: what is read and written
  std::set<std::string> Names;    ///< the names the findings used
  std::string Hash;               ///< what the edits were computed from ("" unknown)
  bool HashConflict = false;      ///< two names saw different bytes
  std::vector<const FixIt *> Edits;
  std::set<size_t> Findings;      ///< indices of findings with an edit here
};

/// Waits up to 30 s for an exclusive lock: a second `kvlint --fix` on the
/// same file waits for the first, then finds the bytes changed and refuses.
bool lockFile(int Fd) {
  for (int Try = 0; Try < 300; ++Try) {
    if (::flock(Fd, LOCK_EX | LOCK_NB) == 0)
      return true;
    if (errno != EWOULDBLOCK && errno != EINTR)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

} // namespace

FixOutcome applyAllFixes(const std::vector<Finding> &Fs,
                         const std::map<std::string, std::string> &Hashes, bool Unsafe,
                         const std::vector<std::string> &Roots, std::ostream &Err) {
  FixOutcome Out;
  // The scanned roots, resolved: a file is written only below one of them.
  std::vector<std::string> Real;
  // A scanned file stands for its directory, taken before the file's own
  // link is followed: `kvlint --fix ext.cu` with ext.cu -> /elsewhere does
  // not make /elsewhere a root.
  for (const std::string &R : Roots) {
    struct stat St;
    std::string Dir = R;
    if (::lstat(R.c_str(), &St) == 0 && !S_ISDIR(St.st_mode)) {
      size_t Slash = R.rfind('/');
      Dir = Slash == std::string::npos ? "." : Slash == 0 ? "/" : R.substr(0, Slash);
    }
    char Buf[PATH_MAX];
    if (!::realpath(Dir.c_str(), Buf))
      continue;
    std::string P = Buf;
    Real.push_back(P == "/" ? P : P + "/");
  }
  auto Inside = [&](const std::string &File) {
    for (const std::string &R : Real)
      if (File.compare(0, R.size(), R) == 0)
        return true;
    return false;
  };
  std::map<std::pair<dev_t, ino_t>, Target> ByFile;
  std::vector<unsigned> EditsOf(Fs.size(), 0);
  std::vector<bool> Blocked(Fs.size(), false); // an edit of it was not applied
  for (size_t I = 0; I < Fs.size(); ++I) {
    const Finding &F = Fs[I];
    for (const FixIt &X : F.Fixes) {
      if (!X.Safe && !Unsafe) {
        ++Out.UnsafeSkipped;
        Blocked[I] = true;
        continue;
      }
      const std::string &Name = fixFile(F, X);
      char Buf[PATH_MAX];
      struct stat St;
      if (!::realpath(Name.c_str(), Buf) || ::stat(Buf, &St) != 0) {
        Err << "kvlint: error: cannot resolve '" << Name << "' to fix it: " << std::strerror(errno)
            << "\n";
        ++Out.Failures;
        Blocked[I] = true;
        continue;
      }
      Target &T = ByFile[{St.st_dev, St.st_ino}];
      T.Real = Buf;
      auto H = Hashes.find(Name);
      std::string Hash = H == Hashes.end() ? "" : H->second;
      if (T.Names.empty())
        T.Hash = Hash;
      else if (T.Hash != Hash)
        T.HashConflict = true;
      T.Names.insert(Name);
      T.Edits.push_back(&X);
      T.Findings.insert(I);
      ++EditsOf[I];
    }
  }
  for (auto &Entry : ByFile) {
    Target &T = Entry.second;
    auto Refuse = [&](const std::string &Why) {
      Err << "kvlint: error: '" << T.Real << "' not fixed: " << Why << "\n";
      ++Out.Failures;
      for (size_t I : T.Findings)
        Blocked[I] = true;
    };
    if (!Inside(T.Real)) {
      Refuse("it lies outside the scanned tree (reached as '" + *T.Names.begin() +
             "'); kvlint --fix writes only below the paths it scans");
      continue;
    }
    if (T.HashConflict || T.Hash.empty()) {
      Refuse("its bytes differ between the names that reach it; re-run kvlint");
      continue;
    }
    int Fd = ::open(T.Real.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    struct stat Open, Now;
    if (Fd < 0 || ::fstat(Fd, &Open) != 0 || !S_ISREG(Open.st_mode)) {
      Refuse(Fd < 0 ? std::strerror(errno) : "it is not a regular file");
      if (Fd >= 0)
        ::close(Fd);
      continue;
    }
    if (!lockFile(Fd)) {
      Refuse("another process holds its lock");
      ::close(Fd);
      continue;
    }
    // Locked: still the file at that path (not replaced while waiting), and
    // still the bytes the fix-its were computed from.
    std::string Text;
    if (::lstat(T.Real.c_str(), &Now) != 0 || Now.st_dev != Open.st_dev ||
        Now.st_ino != Open.st_ino) {
      Refuse("it was replaced since it was analysed; re-run kvlint");
    } else if (!readFd(Fd, Text) || contentHash(Text) != T.Hash) {
      Refuse("it changed since it was analysed; re-run kvlint");
    } else {
      // The same edit reached through two names, or two analyses of one
      // header, is one edit.
      std::vector<const FixIt *> Unique;
      std::set<std::tuple<unsigned, unsigned, std::string>> Seen;
      for (const FixIt *X : T.Edits)
        if (Seen.insert({X->Begin.Offset, X->Length, X->Text}).second)
          Unique.push_back(X);
      unsigned N = applyFixes(Text, Unique);
      std::string Why;
      if (N < Unique.size()) {
        // An overlapping edit was dropped: its finding is not fixed.
        for (size_t I : T.Findings)
          Blocked[I] = true;
      }
      if (!writeFileAtomically(T.Real, Text, Why)) {
        Refuse(Why);
      } else {
        Err << "kvlint: applied " << N << " edit(s) to " << T.Real << "\n";
      }
    }
    ::close(Fd); // releases the lock
  }
  for (size_t I = 0; I < Fs.size(); ++I)
    Out.FindingsFixed += EditsOf[I] > 0 && !Blocked[I];
  if (Out.UnsafeSkipped)
    Err << "kvlint: " << Out.UnsafeSkipped
        << " unsafe fix-it(s) not applied (--unsafe-fixes applies them; review the diff)\n";
  return Out;
}

} // namespace kvlint
