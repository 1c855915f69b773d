//===- Cache.h - the scan's on-disk cache: summaries and results -*- C++ -*-===//
//
// A re-scan of an unchanged tree re-analyses nothing (docs/cli.md, "Cache").
// The cache folder (`.kvlint_cache/` at the project root, --cache-dir DIR,
// KVLINT_CACHE_DIR) holds two packs, each written whole and atomically:
//
//   summaries.bin  each Python file's project summary (project/SummaryIO.h),
//                  checked against the file's content hash;
//   results.bin    each analysed file's FileResult (Wire.h), checked against
//                  a key of everything it was computed from (the file's
//                  bytes, its configuration, the command line's analysis
//                  flags, the project's facts about it) and against every
//                  file its parse read or looked for (headers), each still
//                  as it was.
//
// Both packs carry the kvlint build id (the hash of the kvlint executable):
// another build reads neither. Entries are keyed by path, so an edited file
// replaces its entry; entries unused for 30 days, and the least recently
// used past 256 MiB a pack, are dropped when a pack is written.
//
// The folder lies in the scanned tree, which is hostile (DESIGN.md §8): it is
// opened once, as a directory and never through a symlink (O_NOFOLLOW), and
// every read and write is relative to that descriptor, so nothing is read or
// written outside it. Packs are written to a fresh temp file in the folder
// (O_EXCL) and renamed into place. What a pack holds is parsed as untrusted
// input: any entry that is not exactly what kvlint writes is a miss.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_CACHE_H
#define KVLINT_TOOLS_CACHE_H

#include "Analyse.h"
#include "project/Summary.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kvlint {

/// A fast 128-bit hash of Text, hex (xxh3): content keys of the cache.
std::string fastHash(const std::string &Text);

/// fastHash of each file's bytes, read on Jobs threads ("" when a file
/// cannot be read as a regular file of at most 64 MiB).
std::vector<std::string> hashFiles(const std::vector<std::string> &Paths, unsigned Jobs);

/// The kvlint build: version and the hash of the running executable.
const std::string &buildId();

/// The CACHEDIR.TAG signature (https://bford.info/cachedir/).
extern const char CacheDirTag[];

/// One pack: named records, each with the time it was last used.
class CachePack {
public:
  struct Record {
    std::string Value;
    uint64_t Used = 0; ///< seconds since the epoch
    bool Touched = false; ///< used or stored by this scan
  };
  std::map<std::string, Record> Records;
  /// Parses Bytes (a pack of build Id); false (and nothing kept) when it is
  /// not exactly one well-formed pack of that build.
  bool parse(const std::string &Bytes, const std::string &Id);
  /// The pack's bytes, of the records kept (pruned: unused for MaxAgeDays,
  /// then the least recently used past MaxBytes).
  std::string serialise(const std::string &Id, uint64_t Now) const;
  static constexpr uint64_t MaxAgeSeconds = 30 * 24 * 3600;
  static constexpr size_t MaxBytes = size_t(256) << 20;
};

class ScanCache {
public:
  ScanCache() = default;
  ScanCache(const ScanCache &) = delete;
  ~ScanCache();

  /// Opens the cache folder Dir, creating it (with CACHEDIR.TAG and a
  /// .gitignore of `*`) when absent. False, with Why, when it cannot be used
  /// (a symlink, not a directory, not ours, read-only): the scan then runs
  /// without a cache.
  bool open(const std::string &Dir, std::string &Why);
  bool enabled() const { return DirFd >= 0; }
  const std::string &dir() const { return Dir; }

  /// The summary of Path stored for bytes of hash Hash. Thread-safe.
  bool loadSummary(const std::string &Path, const std::string &Hash, project::FileSummary &S);
  void storeSummary(const std::string &Path, const std::string &Hash,
                    const project::FileSummary &S);

  /// The state of a file a result depends on, memoised for this scan:
  /// "h<hash>" (a regular file's bytes), "-" (absent), "?" (unreadable or
  /// special), then "s" when it is one of the scanned files (Scanned,
  /// canonical), else "n".
  std::string depState(const std::string &Path, const std::set<std::string> &Scanned);
  /// The result stored for Path under Key, when every file it read is as it
  /// was. Not thread-safe (the driver calls it before the pool).
  bool loadResult(const std::string &Path, const std::string &Key,
                  const std::set<std::string> &Scanned, FileResult &R);
  void storeResult(const std::string &Path, const std::string &Key,
                   const std::set<std::string> &Scanned, const FileResult &R);

  /// Scan-wide records of the results pack (names that are no path: the
  /// tree dtypes' and the project facts' digests, by the digest of their
  /// inputs): a list of strings. Not thread-safe.
  bool loadMeta(const std::string &Name, std::vector<std::string> &Fields);
  void storeMeta(const std::string &Name, const std::vector<std::string> &Fields);

  /// Writes the packs that changed. False, with Why, when one could not be.
  bool save(std::string &Why);

  unsigned SummaryHits = 0, ResultHits = 0;

private:
  bool readPack(const char *Name, CachePack &P);
  bool writePack(const char *Name, const std::string &Bytes, std::string &Why);
  /// A result's record: its file's absolute path (one entry per file).
  static std::string entryName(const std::string &Path);

  int DirFd = -1;
  std::string Dir;
  std::mutex M;
  CachePack Sums, Results;
  bool SumsDirty = false, ResultsDirty = false;
  std::map<std::string, std::string> Deps; ///< depState without the scanned mark
  std::map<std::string, bool> InScan;
};

/// `kvlint --clean-cache` / `kvlint cache clean`: removes the cache folder
/// Dir after checking that it is one (a real directory holding kvlint's
/// CACHEDIR.TAG): its files, then the folder. Returns the exit status.
int cleanCache(const std::string &Dir, std::ostream &Out, std::ostream &Err);

} // namespace kvlint

#endif
