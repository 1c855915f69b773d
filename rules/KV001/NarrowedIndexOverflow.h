//===- NarrowedIndexOverflow.h - KV001 ---------------------------*- C++ -*-===//
#ifndef KVLINT_RULES_KV001_H
#define KVLINT_RULES_KV001_H

#include "kvlint/Analysis.h"
#include "kvlint/Bounds.h"
#include "kvlint/Envelope.h"
#include "kvlint/Rule.h"

#include "kvlint/Pattern.h"
#include <set>

namespace kvlint {

/// KV001 kvlint-narrowed-index-overflow: a product evaluated in 32 bits,
/// used as a memory offset, whose bound reaches 2^31 (2^32 unsigned) inside
/// the deployment envelope (or, at the latent level, beyond it).
/// docs/rules/KV001.md.
class NarrowedIndexOverflow : public Rule {
public:
  const char *code() const override { return "KV001"; }
  const char *check() const override { return "kvlint-narrowed-index-overflow"; }
  const char *summary() const override {
    return "32-bit index times stride used as a memory offset";
  }
  std::vector<OptionSpec> options() const override;
  void configure(const Options &Opts) override;
  void run(const Function &F, std::vector<Finding> &Out) const override;

private:
  struct Walk;
  bool namedOnChip(const Node *Addr) const;
  bool rotaryTable(const Node *P) const;

  Pattern TableRe, SafeRe, OnChipRe, SinkRe, RotaryRe;
  bool HasSafe = false, HasOnChip = false, HasSink = false, HasRotary = false;
  bool Latent = false;
  int64_t DependentLoadBits = 32;
  int64_t DependentMemberBits = 32;
  Pattern MemberWideRe;
  Envelope Env;                        ///< the inference profile
  Envelope TrainEnv{Profile::Training}; ///< the training profile
  std::string ProfileOpt;              ///< the Profile option
};

} // namespace kvlint

#endif
