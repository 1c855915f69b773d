//===- UnguardedTableLoad.h - KV002 ------------------------------*- C++ -*-===//
#ifndef KVLINT_RULES_KV002_H
#define KVLINT_RULES_KV002_H

#include "kvlint/Analysis.h"
#include "kvlint/Rule.h"

#include "kvlint/Pattern.h"

namespace kvlint {

/// KV002 kvlint-unguarded-table-load: a table read at a column derived from
/// a position divided by a block size, with nothing bounding the column by
/// the row width. docs/rules/KV002.md.
class UnguardedTableLoad : public Rule {
public:
  const char *code() const override { return "KV002"; }
  const char *check() const override { return "kvlint-unguarded-table-load"; }
  const char *summary() const override {
    return "block-table load at pos / block_size with no bound against the row width";
  }
  std::vector<OptionSpec> options() const override;
  void configure(const Options &Opts) override;
  void run(const Function &F, std::vector<Finding> &Out) const override;

private:
  struct Check;
  Pattern TableRe, WidthRe, BlockRe, SeqRe;
  std::string PadValue;
  bool Latent = false; ///< shared Level option: also report the paged-attention idiom
};

} // namespace kvlint

#endif
