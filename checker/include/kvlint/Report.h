//===- Report.h - text, JSON and SARIF output -------------------*- C++ -*-===//
#ifndef KVLINT_REPORT_H
#define KVLINT_REPORT_H

#include "kvlint/Rule.h"

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>

namespace kvlint {

/// Source text by path, read once; what the reporters quote.
class SourceCache {
public:
  /// Null when the file cannot be read.
  const std::string *get(const std::string &Path);
  /// The 1-based line of a file, without its newline ("" if out of range).
  /// Line starts are indexed once per file: each lookup is a binary search.
  std::string line(const std::string &Path, unsigned Line);
  void put(const std::string &Path, std::string Text) {
    Files[Path] = std::make_unique<std::string>(std::move(Text));
    Starts.erase(Path);
  }

private:
  std::map<std::string, std::unique_ptr<std::string>> Files;
  std::map<std::string, std::vector<size_t>> Starts; ///< offset of each line
};

/// A problem that is not a finding: a file that could not be read or parsed.
struct FileNote {
  std::string File;
  std::string Message;
  bool Error = false; ///< nothing in this file could be analysed
};

struct RunSummary {
  unsigned FilesAnalysed = 0;
  unsigned FilesFailed = 0;
  unsigned FilesPartial = 0; ///< analysed, but part of the file could not be
  unsigned Functions = 0;
  unsigned Folded = 0; ///< sites reported as notes of another finding (groupSites)
};

/// clang style: path:line:col: warning: message [check], the source line, a
/// caret under the expression, and the fix-it as the line would read.
void renderText(const std::vector<Finding> &Fs, SourceCache &Src, std::ostream &OS);
void renderJson(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                const RunSummary &S, std::ostream &OS);
/// What JSON adds per finding and in its summary.
struct JsonExtras {
  const std::vector<std::string> *Fingerprints = nullptr; ///< per finding (fingerprints())
  unsigned Baselined = 0; ///< findings the baseline accounted for (not listed)
};
/// JSON with each finding's fingerprint, level and fix safety ("safe",
/// "unsafe", "none"), and summary.baselined.
void renderJson(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                const RunSummary &S, std::ostream &OS, const JsonExtras &X);

/// GitHub Actions workflow commands, one per finding:
/// `::warning file=F,line=L,col=C,endLine=..,endColumn=..,title=KV001 check::message`,
/// with %, CR and LF escaped in the message and also ':' and ',' in the
/// properties. Files are relative to Root (GitHub resolves them in the
/// workspace).
void renderGithub(const std::vector<Finding> &Fs, const std::string &Root, std::ostream &OS);
/// The escapes of a workflow command's message (Property: of a property).
std::string githubEscape(const std::string &S, bool Property);

/// Per-rule counts (as ruff's --statistics): findings, sites, fixable.
void renderStatistics(const std::vector<Finding> &Fs, std::ostream &OS);

/// "safe" when every fix-it is safe, "unsafe" when one is not, "none".
const char *fixSafety(const Finding &F);

/// How renderSarif writes paths, rules and notes.
struct SarifOptions {
  /// The directory URIs are relative to (%SRCROOT%), absolute; files outside
  /// it get an absolute file:// URI. Empty: the current directory.
  std::string SrcRoot;
  /// Absolute URL of the rule docs directory; helpUri is HelpBase + "KV001.md".
  std::string HelpBase = "https://github.com/kvlint/kvlint/blob/main/docs/rules/";
  std::string Version = "0";     ///< driver.version
  std::string InformationUri = "https://github.com/kvlint/kvlint";
  /// A rule's doc page (markdown), or "" when none is compiled in.
  std::function<std::string(const std::string &Code)> RuleDoc;
  /// Notes (toolExecutionNotifications) per file; the rest is counted in
  /// one summary note. 0: all (-v).
  unsigned NotesPerFile = 3;
  /// Each finding's fingerprint (fingerprints(), relative to SrcRoot);
  /// computed here when null.
  const std::vector<std::string> *Fingerprints = nullptr;
};

void renderSarif(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                 SourceCache &Src, std::ostream &OS, const SarifOptions &O);
/// The same with default options (paths relative to the current directory).
void renderSarif(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                 SourceCache &Src, std::ostream &OS,
                 const std::vector<std::string> *Fingerprints = nullptr);

/// File relative to Root ('/'-separated, "./", ".." and symlinks resolved),
/// or File absolute and normalised when it lies outside Root.
std::string rootRelative(const std::string &Root, const std::string &File);

/// A file URI for an absolute path ("file:///a/b%20c.cu"), or a relative
/// reference for a relative one; both percent-encoded.
std::string sarifUri(const std::string &Path);

/// A stable identity for each finding of Fs: a hash of the rule code,
/// FileKey(file) (the path itself when null), the function, and the flagged
/// expression's text without whitespace (the line's when the range spans
/// files or is unknown). Lines moving, re-indentation and code added
/// elsewhere keep it; a different expression, rule or function changes it.
/// Equal-shaped sites of one function share it: a baseline counts them
/// (fingerprint format v3). SARIF's partialFingerprints and kvlint's
/// baselines both use it.
std::vector<std::string>
fingerprints(const std::vector<Finding> &Fs, SourceCache &Src,
             const std::function<std::string(const std::string &)> &FileKey = nullptr);

/// The fingerprints of format v2 (baseline v1): the same hash with which
/// occurrence of its key it is (in dedupeAndSort's order) mixed in. Only
/// for reading v1 baselines.
std::vector<std::string>
legacyFingerprints(const std::vector<Finding> &Fs, SourceCache &Src,
                   const std::function<std::string(const std::string &)> &FileKey = nullptr);

/// Where a finding sits, beyond its fingerprint: 8 hex digits hashing its
/// line's text without whitespace, then 8 hashing that line with its nearest
/// non-blank neighbours. A baseline uses them to tell equal-shaped sites of
/// one function apart.
std::vector<std::string> siteHashes(const std::vector<Finding> &Fs, SourceCache &Src);

/// Applies the fix-its of Fs to Text (offsets into Text); overlapping edits
/// after the first are dropped. Returns the number applied.
unsigned applyFixes(std::string &Text, const std::vector<const FixIt *> &Fixes);

class SuppressionMap;

/// Which findings a comment suppresses: NOLINT / NOLINT(check) on its line,
/// NOLINTNEXTLINE(...) on the line above (// or #), NOLINTBEGIN/END,
/// `kvlint: ignore[KV001]`, `# noqa: KV001`. Each file's comments are read
/// once, however many findings it has (per finding, a 20k-line kernel with a
/// finding per line took 81 s).
class Suppressions {
public:
  explicit Suppressions(SourceCache &Src);
  ~Suppressions();
  bool operator()(const Finding &F);

private:
  SourceCache &Src;
  std::map<std::string, std::unique_ptr<SuppressionMap>> ByFile;
};

/// S as the inside of a JSON string: valid UTF-8 (a byte that is not is
/// U+FFFD), '"' and '\\' escaped, every control character (and DEL) as an
/// escape.
std::string jsonEscape(const std::string &S);

/// S for the text report: valid UTF-8 (U+FFFD for what is not), and control
/// characters other than tab shown as \xNN, so a hostile file name or line
/// cannot forge report lines or send terminal escapes.
std::string textEscape(const std::string &S);

} // namespace kvlint

#endif
