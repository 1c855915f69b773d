//===- Envelope.h - the deployment envelope ---------------------*- C++ -*-===//
//
// What decides whether a 32-bit product wraps is how large its factors get in
// a real deployment. The envelope names those sizes: tokens per step, KV-pool
// slots and pages, context length, requests, heads, head dim, hidden size,
// vocabulary, experts, top-k, layers, block size, ... Each dimension has an
// upper bound (defaults: today's largest production deployments, each with a
// one-line source; docs/envelope.md) and a pattern of value names that
// denote it.
//
// The bounds analysis (Bounds.h) takes a value's bound from facts first
// (constants, hardware ranges, loops, guards, launch sites, host checks) and
// asks the envelope only where no fact speaks: by the name of the value, of
// the table it was loaded from, or of the quantity its launch grid spans.
//
// Options (local "<check>.Envelope.<Key>" or global "Envelope.<Key>", as
// clang-tidy's getLocalOrGlobal reads them):
//   Envelope.<Key>          the dimension's upper bound
//   Envelope.<Key>.Names    its name pattern (Pattern.h, case-insensitive)
//   Envelope.LatentScale    how far beyond the envelope the latent level looks
//   Envelope.Inference.<Key>, Envelope.Training.<Key>   one profile's bound
//   Profile                 auto | inference | training (per directory in
//                           .kvlint.yaml): the profile every kernel is judged in
//
// Two profiles (docs/envelope.md): inference (a serving step: 262,144 tokens)
// and training (a varlen batch of 1M tokens). A kernel is judged in the
// profile its callers put it in (Function::Prof: a kernel launched only from
// an autograd.Function's forward/backward is training), else inference.
//
//===----------------------------------------------------------------------===//
#ifndef KVLINT_ENVELOPE_H
#define KVLINT_ENVELOPE_H

#include "kvlint/Rule.h"

#include <cstdint>
#include <functional>
#include "kvlint/Pattern.h"
#include <string>
#include <vector>

namespace kvlint {

struct Dimension {
  std::string Key;    ///< "Tokens": option Envelope.Tokens
  int64_t Max = 0;    ///< values of this dimension are at most Max (in this profile)
  std::string Names;  ///< value names that denote it (regex)
  std::string Source; ///< why the default, one line
  Pattern Re;         ///< Names, compiled
};

const char *profileName(Profile P);

/// The profile a function is judged in: the Profile option when it names
/// one, else what its callers show (Function::Prof), else inference. Why
/// says which, for messages.
Profile chooseProfile(const Function &F, const std::string &Option, std::string &Why);

class Envelope {
public:
  /// The default envelope of a profile (Unknown: inference).
  explicit Envelope(Profile P = Profile::Inference);
  Profile profile() const { return Prof; }

  /// The option specs (Envelope.<Key>, Envelope.<Key>.Names, LatentScale)
  /// with their defaults, for --list-rules and the clang-tidy plugin.
  static std::vector<OptionSpec> optionSpecs();

  /// Reads the options through Get (which answers the local-or-global value
  /// of a key, or "" when unset). Malformed values keep the default.
  void configure(const std::function<std::string(const std::string &)> &Get);

  /// The dimension a value name denotes, or null. Only the last component of
  /// a member path counts ("params.seqlen_q" is "seqlen_q").
  const Dimension *byName(const std::string &Name) const;
  const Dimension *byKey(const std::string &Key) const;

  /// A size dimension (a stride, a head dim, a vocabulary, a block size), as
  /// opposed to an index space (tokens, slots, pages, requests, context).
  bool isSize(const Dimension &D) const;

  /// A dimension's bound at this level: Max, or Max * LatentScale beyond the
  /// envelope.
  int64_t bound(const Dimension &D, bool Beyond) const;

  const std::vector<Dimension> &dimensions() const { return Dims; }
  int64_t latentScale() const { return LatentScale; }

private:
  std::vector<Dimension> Dims;
  int64_t LatentScale = 16;
  Profile Prof = Profile::Inference;
};

/// The last component of a member path, without a constant's k prefix:
/// "params.h" -> "h", "p->d" -> "d", "Traits::kPageSize" -> "PageSize".
std::string leafName(const std::string &Name);

/// 1234567 -> "1,234,567".
std::string withCommas(int64_t V);

} // namespace kvlint

#endif
