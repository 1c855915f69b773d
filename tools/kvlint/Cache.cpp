//===- Cache.cpp - the scan's on-disk cache: summaries and results --------===//
#include "Cache.h"
#include "SafeWrite.h"
#include "Wire.h"
#include "kvlint/Bytes.h"
#include "kvlint/Parallel.h"
#include "kvlint_version.h"
#include "project/SummaryIO.h"

#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <ostream>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kvlint {

const char CacheDirTag[] = "Signature: 8a477f597d28d172789f06886806bc55";

namespace {

const char PackMagic[8] = {'K', 'V', 'L', 'C', 'A', 'C', 'H', 'E'};
const uint32_t PackVersion = 1;
const uint32_t ResultMagic = 0x4b565231; // "KVR1"
const char *const SumsName = "summaries.bin", *const ResultsName = "results.bin";

uint64_t now() {
  using namespace std::chrono;
  return uint64_t(duration_cast<seconds>(system_clock::now().time_since_epoch()).count());
}

/// Reads the regular file Name of the folder Fd, never through a symlink,
/// never blocking on a FIFO, at most Max bytes.
bool readAt(int Fd, const char *Name, std::string &Out, size_t Max) {
  int F = ::openat(Fd, Name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (F < 0)
    return false;
  struct stat St;
  bool Ok = ::fstat(F, &St) == 0 && S_ISREG(St.st_mode) && size_t(St.st_size) <= Max;
  if (Ok) {
    Out.reserve(size_t(St.st_size));
    Ok = readFd(F, Out, Max);
  }
  ::close(F);
  return Ok;
}

/// Writes Text to Name in the folder Fd: a new temp file there (O_EXCL, an
/// unguessable name), renamed over Name. A symlink at Name is replaced, not
/// followed.
bool writeAt(int Fd, const char *Name, const std::string &Text, std::string &Why) {
  static std::mt19937_64 Rng{std::random_device{}() ^ uint64_t(::getpid())};
  char Tmp[64];
  int F = -1;
  for (int Try = 0; Try < 8 && F < 0; ++Try) {
    std::snprintf(Tmp, sizeof Tmp, ".tmp-%d-%016llx", int(::getpid()),
                  (unsigned long long)Rng());
    F = ::openat(Fd, Tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (F < 0 && errno != EEXIST)
      break;
  }
  if (F < 0) {
    Why = std::strerror(errno);
    return false;
  }
  bool Ok = writeFd(F, Text);
  int E = errno;
  Ok = (::close(F) == 0) && Ok;
  if (Ok && ::renameat(Fd, Tmp, Fd, Name) != 0) {
    Ok = false;
    E = errno;
  }
  if (!Ok) {
    Why = std::strerror(E);
    ::unlinkat(Fd, Tmp, 0);
  }
  return Ok;
}

/// The names in the folder Fd (not `.` and `..`).
std::vector<std::string> listAt(int Fd) {
  std::vector<std::string> Out;
  int D = ::dup(Fd);
  if (D < 0)
    return Out;
  DIR *Dir = ::fdopendir(D);
  if (!Dir) {
    ::close(D);
    return Out;
  }
  ::rewinddir(Dir);
  while (dirent *E = ::readdir(Dir))
    if (std::strcmp(E->d_name, ".") && std::strcmp(E->d_name, ".."))
      Out.push_back(E->d_name);
  ::closedir(Dir);
  return Out;
}

bool isOurs(const std::string &Name) {
  return Name == "CACHEDIR.TAG" || Name == ".gitignore" || Name == SumsName ||
         Name == ResultsName || Name.rfind(".tmp-", 0) == 0;
}

/// A folder opened as itself (never a symlink), or -1 with errno.
int openFolder(const std::string &Dir) {
  return ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

bool hasTag(int Fd) {
  std::string Tag;
  return readAt(Fd, "CACHEDIR.TAG", Tag, 4096) && Tag.rfind(CacheDirTag, 0) == 0;
}

} // namespace

std::string fastHash(const std::string &Text) {
  llvm::XXH128_hash_t H = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Text.data()), Text.size()));
  char Hex[33];
  std::snprintf(Hex, sizeof Hex, "%016llx%016llx", (unsigned long long)H.high64,
                (unsigned long long)H.low64);
  return Hex;
}

std::vector<std::string> hashFiles(const std::vector<std::string> &Paths, unsigned Jobs) {
  std::vector<std::string> Out(Paths.size());
  Jobs = std::max(1u, std::min<unsigned>(Jobs ? Jobs : std::thread::hardware_concurrency(),
                                         unsigned(std::max<size_t>(1, Paths.size() / 64))));
  forEachIndex(Paths.size(), Jobs, [&](size_t I) {
    std::string Text, Err;
    if (readRegularFile(Paths[I], Text, Err, size_t(64) << 20))
      Out[I] = fastHash(Text);
  });
  return Out;
}

const std::string &buildId() {
  static const std::string Id = [] {
    std::string Exe, Err;
    std::string Base = std::string("kvlint " KVLINT_VERSION " " KVLINT_GIT_COMMIT " ");
    // The executable's bytes: a rebuilt kvlint reads no entry of another.
    if (readRegularFile("/proc/self/exe", Exe, Err, size_t(1) << 30))
      return Base + fastHash(Exe);
    return Base + __DATE__ " " __TIME__;
  }();
  return Id;
}

/// A secret of this user's, kept outside every scanned tree
/// ($XDG_CACHE_HOME/kvlint/key, else ~/.cache/kvlint/key; made once, 0600):
/// a pack carries a hash of it with the build id, so a cache folder that
/// came with a checkout (a pull request can commit one, forged to say its
/// files are clean) is never read. Without a home for it the key lives for
/// this run only: nothing is reused, nothing forged is believed.
static std::string localKey() {
  std::string Dir;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X == '/')
    Dir = std::string(X) + "/kvlint";
  else if (const char *H = std::getenv("HOME"); H && *H == '/')
    Dir = std::string(H) + "/.cache/kvlint";
  auto Fresh = [] {
    std::random_device R;
    std::string K;
    char Hex[9];
    for (int I = 0; I < 8; ++I) {
      std::snprintf(Hex, sizeof Hex, "%08x", unsigned(R()));
      K += Hex;
    }
    return K;
  };
  if (Dir.empty())
    return Fresh();
  std::error_code EC;
  std::filesystem::create_directories(Dir, EC);
  std::string Path = Dir + "/key", Key, Err;
  if (readRegularFile(Path, Key, Err, 4096) && Key.size() >= 32)
    return Key;
  Key = Fresh();
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (Fd >= 0) {
    bool Ok = ::write(Fd, Key.data(), Key.size()) == ssize_t(Key.size());
    ::close(Fd);
    if (Ok)
      return Key;
  }
  // another run made it first: read it; else this run's own key
  if (readRegularFile(Path, Key, Err, 4096) && Key.size() >= 32)
    return Key;
  return Fresh();
}

/// What a pack is tagged with: the build id and the hash of the local key
/// with it.
static const std::string &packId() {
  static const std::string Id = buildId() + " key " + fastHash(localKey() + "\n" + buildId());
  return Id;
}

bool CachePack::parse(const std::string &In, const std::string &Id) {
  Records.clear();
  ByteReader B(In);
  char Magic[8];
  if (!B.take(Magic, 8) || std::memcmp(Magic, PackMagic, 8) || B.u32() != PackVersion ||
      B.s() != Id || !B.Ok)
    return false;
  uint32_t N = B.count(16);
  for (uint32_t I = 0; I < N && B.Ok; ++I) {
    std::string Name = B.s();
    Record R;
    R.Used = B.u64();
    R.Value = B.s();
    Records[Name] = std::move(R);
  }
  if (B.u32() != PackVersion || !B.Ok || !B.atEnd()) {
    Records.clear();
    return false;
  }
  return true;
}

std::string CachePack::serialise(const std::string &Id, uint64_t Now) const {
  std::vector<std::pair<uint64_t, const std::pair<const std::string, Record> *>> Kept;
  for (const auto &E : Records) {
    uint64_t Used = E.second.Touched ? Now : E.second.Used;
    if (E.second.Touched || (Used <= Now && Now - Used < MaxAgeSeconds))
      Kept.push_back({Used, &E});
  }
  // The most recently used first, up to the cap.
  std::stable_sort(Kept.begin(), Kept.end(),
                   [](const auto &A, const auto &B) { return A.first > B.first; });
  size_t Size = 0, N = 0;
  for (; N < Kept.size(); ++N) {
    Size += Kept[N].second->first.size() + Kept[N].second->second.Value.size() + 16;
    if (Size > MaxBytes)
      break;
  }
  Kept.resize(N);
  std::sort(Kept.begin(), Kept.end(),
            [](const auto &A, const auto &B) { return A.second->first < B.second->first; });
  std::string Out(PackMagic, 8);
  putU32(Out, PackVersion);
  putStr(Out, Id);
  putU32(Out, uint32_t(Kept.size()));
  for (const auto &[Used, E] : Kept) {
    putStr(Out, E->first);
    putU64(Out, Used);
    putStr(Out, E->second.Value);
  }
  putU32(Out, PackVersion);
  return Out;
}

ScanCache::~ScanCache() {
  if (DirFd >= 0)
    ::close(DirFd);
}

bool ScanCache::open(const std::string &D, std::string &Why) {
  Dir = D;
  int Fd = openFolder(D);
  if (Fd < 0 && errno == ENOENT) {
    if (::mkdir(D.c_str(), 0755) != 0 && errno != EEXIST) {
      Why = "cannot create '" + D + "': " + std::strerror(errno);
      return false;
    }
    Fd = openFolder(D);
  }
  if (Fd < 0) {
    Why = "'" + D + "' " +
          (errno == ELOOP || errno == ENOTDIR ? std::string("is a symlink or not a directory")
                                              : std::string("cannot be opened: ") +
                                                    std::strerror(errno));
    return false;
  }
  struct stat St;
  if (::fstat(Fd, &St) != 0 || !S_ISDIR(St.st_mode) || St.st_uid != ::geteuid()) {
    Why = "'" + D + "' is not a folder of yours";
    ::close(Fd);
    return false;
  }
  if (!hasTag(Fd)) {
    // Only an empty folder (or one with nothing but kvlint's names) is
    // adopted: a folder of someone else's files is never written into.
    for (const std::string &N : listAt(Fd))
      if (!isOurs(N)) {
        Why = "'" + D + "' is not a kvlint cache folder (no CACHEDIR.TAG)";
        ::close(Fd);
        return false;
      }
    std::string Tag = std::string(CacheDirTag) +
                      "\n# This file is a cache directory tag created by kvlint.\n"
                      "# For information about cache directory tags see https://bford.info/cachedir/\n";
    if (!writeAt(Fd, "CACHEDIR.TAG", Tag, Why) || !writeAt(Fd, ".gitignore", "*\n", Why)) {
      Why = "cannot write in '" + D + "': " + Why;
      ::close(Fd);
      return false;
    }
  }
  DirFd = Fd;
  readPack(SumsName, Sums);
  readPack(ResultsName, Results);
  return true;
}

bool ScanCache::readPack(const char *Name, CachePack &P) {
  std::string In;
  if (!readAt(DirFd, Name, In, CachePack::MaxBytes * 2) || !P.parse(In, packId())) {
    P.Records.clear();
    return false;
  }
  return true;
}

bool ScanCache::writePack(const char *Name, const std::string &Bytes, std::string &Why) {
  if (writeAt(DirFd, Name, Bytes, Why))
    return true;
  Why = "cannot write '" + Dir + "/" + Name + "': " + Why;
  return false;
}

std::string ScanCache::entryName(const std::string &Path) {
  std::error_code EC;
  fs::path A = fs::absolute(Path, EC);
  return (EC ? fs::path(Path) : A).lexically_normal().string();
}

bool ScanCache::loadSummary(const std::string &Path, const std::string &Hash,
                            project::FileSummary &S) {
  std::lock_guard<std::mutex> L(M);
  auto It = Sums.Records.find(Path);
  if (It == Sums.Records.end())
    return false;
  ByteReader B(It->second.Value);
  if (B.s() != Hash || !B.Ok)
    return false;
  std::string Enc = B.s();
  if (!B.Ok || !B.atEnd() || !project::decodeSummary(Enc, S))
    return false;
  It->second.Touched = true;
  SumsDirty |= now() - std::min(now(), It->second.Used) > 24 * 3600;
  ++SummaryHits;
  return true;
}

void ScanCache::storeSummary(const std::string &Path, const std::string &Hash,
                             const project::FileSummary &S) {
  std::string V;
  putStr(V, Hash);
  putStr(V, project::encodeSummary(S));
  std::lock_guard<std::mutex> L(M);
  CachePack::Record &R = Sums.Records[Path];
  R.Value = std::move(V);
  R.Touched = true;
  SumsDirty = true;
}

std::string ScanCache::depState(const std::string &Path, const std::set<std::string> &Scanned) {
  auto It = Deps.find(Path);
  if (It == Deps.end()) {
    std::string Text, Err, State;
    struct stat St;
    if (readRegularFile(Path, Text, Err, size_t(64) << 20))
      State = "h" + fastHash(Text);
    else if (::stat(Path.c_str(), &St) != 0 && (errno == ENOENT || errno == ENOTDIR))
      State = "-";
    else
      State = "?";
    It = Deps.emplace(Path, State).first;
  }
  if (It->second == "-")
    return "-";
  auto S = InScan.find(Path);
  if (S == InScan.end()) {
    std::error_code EC;
    std::string C = fs::weakly_canonical(Path, EC).string();
    S = InScan.emplace(Path, !EC && Scanned.count(C) != 0).first;
  }
  return It->second + (S->second ? "s" : "n");
}

bool ScanCache::loadResult(const std::string &Path, const std::string &Key,
                           const std::set<std::string> &Scanned, FileResult &R) {
  auto It = Results.Records.find(entryName(Path));
  if (It == Results.Records.end())
    return false;
  ByteReader B(It->second.Value);
  if (B.u32() != ResultMagic || B.s() != Key || !B.Ok)
    return false;
  uint32_t N = B.count(8);
  for (uint32_t I = 0; I < N && B.Ok; ++I) {
    std::string P = B.s(), State = B.s();
    if (!B.Ok || depState(P, Scanned) != State)
      return false;
  }
  std::string Wire = B.s();
  if (!B.Ok || !B.atEnd() || !decodeResult(Wire, R))
    return false;
  It->second.Touched = true;
  ResultsDirty |= now() - std::min(now(), It->second.Used) > 24 * 3600;
  ++ResultHits;
  return true;
}

void ScanCache::storeResult(const std::string &Path, const std::string &Key,
                            const std::set<std::string> &Scanned, const FileResult &R) {
  std::string V;
  putU32(V, ResultMagic);
  putStr(V, Key);
  putU32(V, uint32_t(R.Read.size() + R.Absent.size()));
  for (const std::vector<std::string> *Ps : {&R.Read, &R.Absent})
    for (const std::string &P : *Ps) {
      putStr(V, P);
      putStr(V, depState(P, Scanned));
    }
  putStr(V, encodeResult(R));
  CachePack::Record &Rec = Results.Records[entryName(Path)];
  Rec.Value = std::move(V);
  Rec.Touched = true;
  ResultsDirty = true;
}

bool ScanCache::loadMeta(const std::string &Name, std::vector<std::string> &Fields) {
  Fields.clear();
  auto It = Results.Records.find(Name);
  if (It == Results.Records.end())
    return false;
  ByteReader B(It->second.Value);
  Fields.resize(B.count(4));
  for (std::string &F : Fields)
    F = B.s();
  if (!B.Ok || !B.atEnd()) {
    Fields.clear();
    return false;
  }
  It->second.Touched = true;
  return true;
}

void ScanCache::storeMeta(const std::string &Name, const std::vector<std::string> &Fields) {
  std::string V;
  putU32(V, uint32_t(Fields.size()));
  for (const std::string &F : Fields)
    putStr(V, F);
  CachePack::Record &Rec = Results.Records[Name];
  if (Rec.Value == V) {
    Rec.Touched = true;
    return;
  }
  Rec.Value = std::move(V);
  Rec.Touched = true;
  ResultsDirty = true;
}

bool ScanCache::save(std::string &Why) {
  if (DirFd < 0)
    return true;
  uint64_t T = now();
  bool Ok = true;
  if (SumsDirty)
    Ok = writePack(SumsName, Sums.serialise(packId(), T), Why);
  if (Ok && ResultsDirty)
    Ok = writePack(ResultsName, Results.serialise(packId(), T), Why);
  SumsDirty = ResultsDirty = false;
  // Temp files of scans that died (older than an hour).
  for (const std::string &N : listAt(DirFd)) {
    struct stat St;
    if (N.rfind(".tmp-", 0) == 0 && ::fstatat(DirFd, N.c_str(), &St, AT_SYMLINK_NOFOLLOW) == 0 &&
        uint64_t(St.st_mtime) + 3600 < T)
      ::unlinkat(DirFd, N.c_str(), 0);
  }
  return Ok;
}

int cleanCache(const std::string &Dir, std::ostream &Out, std::ostream &Err) {
  int Fd = openFolder(Dir);
  if (Fd < 0) {
    if (errno == ENOENT) {
      Out << "kvlint: no cache folder at '" << Dir << "'\n";
      return 0;
    }
    Err << "kvlint: error: '" << Dir << "' is not a cache folder ("
        << (errno == ELOOP || errno == ENOTDIR ? "a symlink or not a directory"
                                               : std::strerror(errno))
        << "); nothing removed\n";
    return 2;
  }
  if (!hasTag(Fd)) {
    ::close(Fd);
    Err << "kvlint: error: '" << Dir
        << "' has no kvlint CACHEDIR.TAG: not a cache folder; nothing removed\n";
    return 2;
  }
  // Files only, by name relative to the folder: a symlink inside is removed
  // itself, never followed; a subfolder (kvlint makes none) is left.
  unsigned Kept = 0;
  for (const std::string &N : listAt(Fd)) {
    struct stat St;
    if (::fstatat(Fd, N.c_str(), &St, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(St.st_mode)) {
      ++Kept;
      continue;
    }
    if (N != "CACHEDIR.TAG" && ::unlinkat(Fd, N.c_str(), 0) != 0)
      ++Kept;
  }
  if (!Kept)
    ::unlinkat(Fd, "CACHEDIR.TAG", 0);
  ::close(Fd);
  if (Kept || ::rmdir(Dir.c_str()) != 0) {
    Err << "kvlint: error: cache folder '" << Dir << "' emptied of its files but not removed ("
        << (Kept ? std::to_string(Kept) + " entries kept" : std::string(std::strerror(errno)))
        << ")\n";
    return 2;
  }
  Out << "kvlint: removed cache folder '" << Dir << "'\n";
  return 0;
}

} // namespace kvlint
