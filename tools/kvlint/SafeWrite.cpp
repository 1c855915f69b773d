//===- SafeWrite.cpp - writing files that a hostile tree cannot redirect ---===//
#include "SafeWrite.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <cerrno>
#include <cstdio>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kvlint {
namespace {

std::string kindOf(mode_t M) {
  if (S_ISFIFO(M))
    return "a FIFO";
  if (S_ISCHR(M))
    return "a character device";
  if (S_ISBLK(M))
    return "a block device";
  if (S_ISSOCK(M))
    return "a socket";
  if (S_ISDIR(M))
    return "a directory";
  if (S_ISLNK(M))
    return "a symlink";
  return "not a regular file";
}

std::string dirOf(const std::string &Path) {
  size_t Slash = Path.find_last_of('/');
  if (Slash == std::string::npos)
    return ".";
  return Slash == 0 ? "/" : Path.substr(0, Slash);
}

std::string baseOf(const std::string &Path) {
  size_t Slash = Path.find_last_of('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

} // namespace

bool writeFd(int Fd, const char *P, size_t N) {
  while (N) {
    ssize_t W = ::write(Fd, P, N);
    if (W < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    P += W, N -= size_t(W);
  }
  return true;
}

bool readFd(int Fd, std::string &Out, size_t MaxBytes) {
  Out.clear();
  char Buf[65536];
  for (;;) {
    ssize_t N = ::read(Fd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return false;
    if (N == 0)
      return true;
    if (Out.size() + size_t(N) > MaxBytes) {
      errno = EFBIG;
      return false;
    }
    Out.append(Buf, size_t(N));
  }
}

std::string specialKind(const std::string &Path) {
  struct stat L, S;
  if (::lstat(Path.c_str(), &L) != 0)
    return "";
  if (S_ISLNK(L.st_mode)) {
    if (::stat(Path.c_str(), &S) != 0)
      return "a dangling symlink";
  } else {
    S = L;
  }
  if (S_ISREG(S.st_mode) || S_ISDIR(S.st_mode))
    return "";
  return kindOf(S.st_mode);
}

bool readRegularFile(const std::string &Path, std::string &Out, std::string &Err,
                     size_t MaxBytes) {
  Out.clear();
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer. The
  // descriptor's kind is checked before a single byte is read.
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (Fd < 0) {
    Err = "cannot read '" + Path + "': " + std::strerror(errno);
    return false;
  }
  struct stat St;
  if (::fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    Err = "'" + Path + "' is " + (::fstat(Fd, &St) == 0 ? kindOf(St.st_mode) : "unreadable") +
          ", not a regular file";
    ::close(Fd);
    return false;
  }
  if (size_t(St.st_size) > MaxBytes) {
    Err = "'" + Path + "' is larger than " + std::to_string(MaxBytes >> 20) + " MiB";
    ::close(Fd);
    return false;
  }
  Out.reserve(size_t(St.st_size));
  bool Ok = readFd(Fd, Out, MaxBytes);
  int E = errno;
  ::close(Fd);
  if (!Ok) // EFBIG: it grew while being read
    Err = E == EFBIG ? "'" + Path + "' is larger than " + std::to_string(MaxBytes >> 20) + " MiB"
                     : "cannot read '" + Path + "': " + std::strerror(E);
  return Ok;
}

bool writeFileAtomically(const std::string &Path, const std::string &Text, std::string &Err) {
  if (Path.empty()) {
    Err = "cannot write to an empty path";
    return false;
  }
  struct stat Before;
  bool Exists = ::lstat(Path.c_str(), &Before) == 0;
  if (!Exists && errno != ENOENT) {
    Err = "cannot write '" + Path + "': " + std::strerror(errno);
    return false;
  }
  if (Exists && !S_ISREG(Before.st_mode)) {
    Err = "refusing to write '" + Path + "': it is " + kindOf(Before.st_mode) +
          (S_ISLNK(Before.st_mode) ? " (name the file it points to)" : "") +
          ", not a regular file";
    return false;
  }
  if (Exists && Before.st_nlink > 1) {
    Err = "refusing to write '" + Path + "': it has " + std::to_string(Before.st_nlink) +
          " hard links, which replacing it would break";
    return false;
  }
  std::string Tmp = dirOf(Path) + "/." + baseOf(Path) + ".kvlint-XXXXXX";
  if (baseOf(Path).size() > 200) // keep the temp name under NAME_MAX
    Tmp = dirOf(Path) + "/.kvlint-XXXXXX";
  std::vector<char> Tpl(Tmp.begin(), Tmp.end());
  Tpl.push_back('\0');
  int Fd = ::mkostemp(Tpl.data(), O_CLOEXEC);
  if (Fd < 0) {
    Err = "cannot create a temporary file beside '" + Path + "': " + std::strerror(errno);
    return false;
  }
  Tmp.assign(Tpl.data());
  auto Fail = [&](const std::string &Why) {
    Err = Why;
    ::close(Fd);
    ::unlink(Tmp.c_str());
    return false;
  };
  if (Exists) {
    if (::fchmod(Fd, Before.st_mode & 07777) != 0)
      return Fail("cannot keep the mode of '" + Path + "': " + std::strerror(errno));
    struct stat Mine;
    if (::fstat(Fd, &Mine) == 0 && (Mine.st_uid != Before.st_uid || Mine.st_gid != Before.st_gid) &&
        ::fchown(Fd, Before.st_uid, Before.st_gid) != 0)
      return Fail("refusing to write '" + Path + "': its owner (uid " +
                  std::to_string(Before.st_uid) + ") could not be kept: " + std::strerror(errno));
  } else {
    mode_t Mask = ::umask(0);
    ::umask(Mask);
    ::fchmod(Fd, 0666 & ~Mask);
  }
  if (!writeFd(Fd, Text) || ::fsync(Fd) != 0)
    return Fail("cannot write '" + Tmp + "': " + std::strerror(errno));
  if (::close(Fd) != 0) {
    Err = "cannot write '" + Tmp + "': " + std::strerror(errno);
    ::unlink(Tmp.c_str());
    return false;
  }
  // The target again, just before it is replaced: still the same regular
  // file, or still absent (then rename must not replace what appeared).
  struct stat Now;
  bool ExistsNow = ::lstat(Path.c_str(), &Now) == 0;
  if (ExistsNow != Exists ||
      (Exists && (Now.st_dev != Before.st_dev || Now.st_ino != Before.st_ino ||
                  !S_ISREG(Now.st_mode)))) {
    ::unlink(Tmp.c_str());
    Err = "refusing to write '" + Path + "': it was replaced while kvlint was writing it";
    return false;
  }
  int Rc;
  if (Exists) {
    Rc = ::rename(Tmp.c_str(), Path.c_str());
  } else {
    // link() fails when anything (a symlink too) appeared at Path meanwhile.
    Rc = ::link(Tmp.c_str(), Path.c_str());
    if (Rc == 0)
      ::unlink(Tmp.c_str());
  }
  if (Rc != 0) {
    Err = "cannot write '" + Path + "': " + std::strerror(errno);
    ::unlink(Tmp.c_str());
    return false;
  }
  return true;
}

std::string contentHash(const std::string &Text) {
  llvm::SHA256 H;
  H.update(llvm::StringRef(Text));
  std::array<uint8_t, 32> D = H.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(D.data(), D.size()), /*LowerCase=*/true);
}

} // namespace kvlint
