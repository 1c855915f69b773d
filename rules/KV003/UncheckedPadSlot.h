//===- UncheckedPadSlot.h - KV003 --------------------------------*- C++ -*-===//
#ifndef KVLINT_RULES_KV003_H
#define KVLINT_RULES_KV003_H

#include "kvlint/Analysis.h"
#include "kvlint/Rule.h"

#include "kvlint/Pattern.h"

namespace kvlint {

/// KV003 kvlint-unchecked-pad-slot: a store whose address derives from a
/// slot read from a slot mapping, on a path where nothing excludes the pad
/// slot (-1). docs/rules/KV003.md.
class UncheckedPadSlot : public Rule {
public:
  const char *code() const override { return "KV003"; }
  const char *check() const override { return "kvlint-unchecked-pad-slot"; }
  const char *summary() const override {
    return "store at a slot read from a slot mapping with no guard that skips the pad slot (-1)";
  }
  std::vector<OptionSpec> options() const override;
  void configure(const Options &Opts) override;
  void run(const Function &F, std::vector<Finding> &Out) const override;

private:
  struct Check;
  Pattern SlotRe, IndexRe, NotSlotRe, CacheRe, PadRe;
  std::string PadValue;
  bool Latent = false; ///< shared Level option: also report stores with no pad evidence
};

} // namespace kvlint

#endif
