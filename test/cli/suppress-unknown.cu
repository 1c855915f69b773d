// A suppression naming a kvlint rule that does not exist is a warning (in
// the CLI on stderr, in the plugin a diagnostic), and hides nothing; names
// of other tools' checks are left alone. (The check lines below spell the
// markers with {{...}} so that they are no suppressions themselves.)
//
// RUN: %if kvlint %{ not %kvlint --per-site %s 2>&1 | FileCheck %s --check-prefixes=CHECK,CLI %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags 2>&1 | FileCheck %s --check-prefixes=CHECK,TIDY %}

__global__ void k(float *c, const int *slots, int page_stride) {
  int page = slots[blockIdx.x];
  // CHECK: suppress-unknown.cu:[[@LINE+3]]:5: warning: 32-bit signed product 'page * page_stride'
  // TIDY: suppress-unknown.cu:[[@LINE+2]]:35: warning: unknown kvlint rule 'KV999' in kvlint: {{ignore}} (kvlint rule lists them)
  // TIDY: suppress-unknown.cu:[[@LINE+2]]:6: warning: unknown kvlint rule 'kvlint-no-such-check' in NOLINT{{NEXTLINE}} (kvlint rule lists them)
  c[page * page_stride] = 0.f; // kvlint: ignore[KV999]
  // NOLINTNEXTLINE(kvlint-no-such-check, bugprone-foo)
  // CHECK: suppress-unknown.cu:[[@LINE+1]]:5: warning: 32-bit signed product 'page * page_stride'
  c[page * page_stride + 1] = 0.f;
}
// CLI: kvlint: warning: {{.*}}suppress-unknown.cu:14:35: unknown kvlint rule 'KV999' in kvlint: {{ignore}} (kvlint rule lists them)
// CLI: kvlint: warning: {{.*}}suppress-unknown.cu:15:6: unknown kvlint rule 'kvlint-no-such-check' in NOLINT{{NEXTLINE}} (kvlint rule lists them)
// CLI-NOT: bugprone-foo
