//===- NarrowedIndexOverflow.h - KV001 ---------------------------*- C++ -*-===//
#ifndef KVLINT_RULES_KV001_H
#define KVLINT_RULES_KV001_H

#include "kvlint/Analysis.h"
#include "kvlint/Rule.h"

#include <regex>
#include <set>

namespace kvlint {

/// KV001 kvlint-narrowed-index-overflow: a 32-bit index multiplied by a
/// stride in 32-bit arithmetic, the product used as a memory offset.
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
  bool isIndex(const Fact &F) const;
  bool isStride(const Fact &F) const;
  bool strideName(const std::string &Name) const;

  std::regex StrideRe, IndexRe, TableRe, SafeRe;
  bool HasSafe = false;
  bool LaunchTier = false;
  int64_t MinConstantStride = 2;
  int64_t DependentLoadBits = 32;
};

} // namespace kvlint

#endif
