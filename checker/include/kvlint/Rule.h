//===- Rule.h - findings, options and the rule registry ---------*- C++ -*-===//
#ifndef KVLINT_RULE_H
#define KVLINT_RULE_H

#include "kvlint/IR.h"
#include "kvlint/Pattern.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kvlint {

/// A text edit: replace [Begin.Offset, Begin.Offset + Length) by Text.
/// Length == 0 is an insertion.
struct FixIt {
  SrcLoc Begin;
  unsigned Length = 0;
  std::string Text;
  /// Safe: the edit keeps the program's meaning wherever the bug does not
  /// fire (a widening cast). Unsafe: it changes behaviour a reviewer must
  /// check (a guard that skips work). `--fix` applies only safe edits unless
  /// `--unsafe-fixes` is given, as ruff does.
  bool Safe = true;
};

struct Note {
  SrcRange Range;
  std::string Message;
};

struct Finding {
  std::string Code;  ///< stable rule code, "KV001"
  std::string Check; ///< check name, "kvlint-narrowed-index-overflow"
  SrcRange Range;    ///< where the caret goes (Begin) and what is underlined
  std::string Message;
  std::vector<FixIt> Fixes;
  std::vector<Note> Notes;
  std::string Function; ///< enclosing function, for JSON/SARIF
  /// The value a fix widens (KV001: "bos"), or empty. Findings of one rule
  /// in one function with the same Group are one root cause: groupSites()
  /// reports them as one finding.
  std::string Group;
  /// Reported only at the latent level (wraps beyond the envelope): never
  /// grouped with a site that wraps inside it.
  bool Latent = false;
  /// No fact bounds it: its bound rests on names and envelope defaults alone
  /// (KV001; counted in the summary, `on_names` in JSON).
  bool NameOnly = false;
};

/// The file a fix-it edits: its own (a finding in a header helper also
/// widens the caller's local), else the finding's.
inline const std::string &fixFile(const Finding &F, const FixIt &X) {
  return X.Begin.File.empty() ? F.Range.Begin.File : X.Begin.File;
}

/// Rule options, keyed "<check-name>.<Option>" exactly as clang-tidy's
/// CheckOptions spells them; the CLI reads the same keys from its config.
/// A key without the check prefix ("Level", "Envelope.Tokens") is global:
/// every rule reads its local key first, then the global one, as clang-tidy's
/// getLocalOrGlobal does.
class Options {
public:
  void set(const std::string &Key, const std::string &Value) { Map[Key] = Value; }
  bool has(const std::string &Key) const { return Map.count(Key) != 0; }
  std::string get(const std::string &Key, const std::string &Default) const;
  int64_t getInt(const std::string &Key, int64_t Default) const;
  bool getBool(const std::string &Key, bool Default) const;
  const std::map<std::string, std::string> &all() const { return Map; }

private:
  std::map<std::string, std::string> Map;
};

struct OptionSpec {
  std::string Name;    ///< without the check prefix: "StridePattern"
  std::string Default; ///< as text, the way CheckOptions stores it
  std::string Help;
};

/// A rule reads lowered functions and reports findings. Rules never see a
/// frontend's AST: anything they need must be in the IR.
class Rule {
public:
  virtual ~Rule() = default;
  virtual const char *code() const = 0;  ///< "KV001"
  virtual const char *check() const = 0; ///< "kvlint-narrowed-index-overflow"
  virtual const char *summary() const = 0;
  virtual std::vector<OptionSpec> options() const = 0;
  /// Options every rule reads, local or global: the reporting level and the
  /// deployment envelope (Envelope.h). Listed apart so that --list-rules
  /// shows them once.
  static std::vector<OptionSpec> sharedOptions();
  /// Reads this rule's options (keys "<check>.<Name>"); called once.
  virtual void configure(const Options &Opts) = 0;
  virtual void run(const Function &F, std::vector<Finding> &Out) const = 0;

protected:
  std::string opt(const Options &O, const char *Name) const;
  int64_t optInt(const Options &O, const char *Name) const;
  bool optBool(const Options &O, const char *Name) const;
  /// The option as a case-insensitive Pattern (Pattern.h: linear time). A
  /// malformed one matches nothing; the CLI rejects it first (file:line).
  Pattern optRegex(const Options &O, const char *Name) const;
  /// The shared `Level` option: false for "default" (report what goes wrong
  /// inside the deployment envelope), true for "latent" (also report what
  /// goes wrong only beyond it).
  bool optLatent(const Options &O) const;

private:
  std::string optDefault(const char *Name) const;
};

/// The registry of stable rule codes. Rules register themselves from their
/// own translation unit (see KVLINT_REGISTER_RULE).
struct RuleInfo {
  const char *Code;
  const char *Check;
  std::function<std::unique_ptr<Rule>()> Make;
};
std::vector<RuleInfo> &ruleRegistry();
struct RuleRegistrar {
  RuleRegistrar(const char *Code, const char *Check,
                std::function<std::unique_ptr<Rule>()> Make);
};
#define KVLINT_REGISTER_RULE(Class, Code, Check)                               \
  static ::kvlint::RuleRegistrar Class##Registrar(                              \
      Code, Check, [] { return std::make_unique<Class>(); });

/// Instantiates every registered rule whose code or check name matches one of
/// Enabled ("KV001", "kvlint-unguarded-table-load", "all"), configured.
std::vector<std::unique_ptr<Rule>> makeRules(const std::vector<std::string> &Enabled,
                                             const Options &Opts);

/// Runs rules over a function and keeps findings whose location is real.
void runRules(const std::vector<std::unique_ptr<Rule>> &Rules, const Function &F,
              std::vector<Finding> &Out);

/// Removes duplicates (same code, file, line, column) keeping the first, and
/// sorts by file, line, column, code.
void dedupeAndSort(std::vector<Finding> &Findings);

/// One finding per root cause: findings (sorted, as dedupeAndSort leaves
/// them) of the same rule, file, function, level and non-empty Group become the
/// first of them, with each other site as a note that carries its own
/// message, and all their fix-its. A kernel engineer widens `bos` once,
/// not once per line it reaches. Parallel to Fs, Keys (when given) keeps the
/// first site's entry of each group. Returns the number of sites folded.
unsigned groupSites(std::vector<Finding> &Fs, std::vector<std::string> *Keys = nullptr);

/// The fix-it that widens an index expression to 64 bits before it
/// multiplies, spelled for the language: static_cast<int64_t>(x) in C++,
/// x.to(tl.int64) in Triton. Returns false when the text cannot be edited
/// (it comes from a macro body).
bool widenFix(Language L, const Node *Index, std::vector<FixIt> &Out);

} // namespace kvlint

#endif
