//===- Config.h - configuration files and their discovery -------*- C++ -*-===//
//
// One configuration for the CLI and the clang-tidy plugin. For each scanned
// file the CLI uses, like clang-tidy, the nearest `.clang-tidy` above it
// (Checks, CheckOptions, InheritParentConfig), then every `.kvlint.yaml` from
// the root down to the file's directory (CLI-only keys: Exclude, Baseline,
// Envelope, and any option key), then `--config FILE`, then --checks and
// --option. All options, including keys no rule knows yet (`Level`,
// `Envelope.Tokens`), reach the rules' Options unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_TOOLS_CONFIG_H
#define KVLINT_TOOLS_CONFIG_H

#include "kvlint/Rule.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvlint {

std::string trim(const std::string &S);
/// "a,b,,c" -> {a, b, c} (items trimmed)
std::vector<std::string> splitList(const std::string &S);

/// What one configuration file says.
struct ConfigFile {
  std::string Path;
  std::optional<std::vector<std::string>> Checks; ///< only when it names a kvlint rule
  std::vector<std::pair<std::string, std::string>> Options; ///< in file order
  bool InheritParent = false;
  std::vector<std::string> Exclude; ///< .kvlint.yaml / --config
  std::string Baseline;             ///< absolute, "" if unset
};

enum class ConfigKind {
  ClangTidy, ///< .clang-tidy: keys other than Checks/CheckOptions/InheritParentConfig
             ///< belong to clang-tidy and are ignored
  Kvlint,    ///< .kvlint.yaml or --config: every other scalar key is an option
};

/// The most a configuration, envelope or baseline file may hold.
constexpr size_t MaxConfigBytes = size_t(16) << 20;

/// Reads a regular file of at most MaxConfigBytes. A directory, FIFO, device
/// or socket is an error, found without blocking (O_NONBLOCK, fstat) and
/// without reading it. What names the file in Err ("config file").
bool readRegularFile(const std::string &Path, const std::string &What, std::string &Out,
                     std::string &Err);

/// Checks the items of a Checks list: each names a rule (a code, a check
/// name, or a glob that matches one), or is '*', '-*' or 'all'. In a
/// .clang-tidy only the items about kvlint (kvlint-*, KV001) are kvlint's to
/// check. Err is What (e.g. "file:line: ") and the problem.
bool checkChecks(const std::vector<std::string> &Items, ConfigKind Kind, const std::string &What,
                 std::string &Err);

/// Parses a configuration file's text. Err is "path:line: what" on failure.
bool parseConfig(const std::string &Text, const std::string &Path, ConfigKind Kind,
                 ConfigFile &Out, std::string &Err);
/// Reads and parses a file.
/// Reads an envelope file (`Tokens: 262144`, `KvSlots: 16777216`, ...) into
/// global Envelope.<Key> options; unknown dimensions are errors.
bool readEnvelopeFile(const std::string &Path, ConfigFile &Out, std::string &Err);

bool readConfigFile(const std::string &Path, ConfigKind Kind, ConfigFile &Out,
                    std::string &Err);

/// The configuration in force for one file.
struct EffectiveConfig {
  std::vector<std::string> Checks = {"all"};
  Options Opts;
  std::vector<std::string> Exclude;
  std::string Baseline;
  std::vector<std::string> Sources; ///< files it came from, outermost first
  std::vector<std::string> ChecksFrom; ///< the files (or flags) whose Checks decide
  /// Layers a file over this configuration.
  void apply(const ConfigFile &F);
  /// Checks and options as one string: equal keys mean equal rule sets.
  /// Computed once per directory by ConfigResolver (a file of 80k options
  /// must not cost 80k string appends per scanned file).
  const std::string &key() const;

private:
  mutable std::string CachedKey; ///< key(), once; apply() clears it
};

/// Finds and caches the configuration of each directory. Thread-safe.
class ConfigResolver {
public:
  /// Overrides layer above every discovered file (--config, --checks, --option).
  ConfigResolver(std::vector<ConfigFile> Overrides, bool Discover = true)
      : Overrides(std::move(Overrides)), Discover(Discover) {}
  /// The configuration for a source file; null with Err on a bad file.
  std::shared_ptr<const EffectiveConfig> forFile(const std::string &Path, std::string &Err);
  /// The configuration of a directory (for run-wide keys such as Baseline).
  std::shared_ptr<const EffectiveConfig> forDir(const std::string &Path, std::string &Err);

private:
  struct Dir {
    std::shared_ptr<const EffectiveConfig> Tidy;   ///< .clang-tidy chain
    std::vector<std::shared_ptr<const ConfigFile>> Kvlint; ///< .kvlint.yaml files, root first
    std::shared_ptr<const EffectiveConfig> Result; ///< all layers
  };
  const Dir *dir(const std::string &AbsDir, std::string &Err);
  std::vector<ConfigFile> Overrides;
  bool Discover;
  std::mutex M;
  std::map<std::string, std::unique_ptr<Dir>> Cache;
};

} // namespace kvlint

#endif
