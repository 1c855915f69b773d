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
  unsigned Functions = 0;
  unsigned Folded = 0; ///< sites reported as notes of another finding (groupSites)
};

/// clang style: path:line:col: warning: message [check], the source line, a
/// caret under the expression, and the fix-it as the line would read.
void renderText(const std::vector<Finding> &Fs, SourceCache &Src, std::ostream &OS);
void renderJson(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                const RunSummary &S, std::ostream &OS);
/// Fingerprints: the findings' fingerprints() (computed here when null).
void renderSarif(const std::vector<Finding> &Fs, const std::vector<FileNote> &Notes,
                 SourceCache &Src, std::ostream &OS,
                 const std::vector<std::string> *Fingerprints = nullptr);

/// A stable identity for each finding of Fs (in dedupeAndSort's order): a
/// hash of the rule code, FileKey(file) (the path itself when null), the
/// function, the flagged expression's text without whitespace (the line's
/// when the range spans files or is unknown), and which occurrence of those
/// parts it is. Lines moving, re-indentation and code added elsewhere keep
/// it; a different expression, rule or function changes it. SARIF's
/// partialFingerprints and kvlint's baselines both use it.
std::vector<std::string>
fingerprints(const std::vector<Finding> &Fs, SourceCache &Src,
             const std::function<std::string(const std::string &)> &FileKey = nullptr);

/// Applies the fix-its of Fs to Text (offsets into Text); overlapping edits
/// after the first are dropped. Returns the number applied.
unsigned applyFixes(std::string &Text, const std::vector<const FixIt *> &Fixes);

/// True when a comment suppresses the finding: NOLINT / NOLINT(check) on its
/// line, NOLINTNEXTLINE(...) on the line above (// or #), or
/// `kvlint: ignore[KV001]` / `kvlint: ignore` on its line.
bool isSuppressed(const Finding &F, SourceCache &Src);

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
