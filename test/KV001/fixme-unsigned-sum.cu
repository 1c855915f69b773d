// FIXME (docs/findings.md, the HIP pair run on the H200): the signed product
// wraps past 2^31, but adding the unsigned threadIdx.x converts the wrapped
// value back to the right one modulo 2^32, so the address is correct until
// 2^32 (undefined behaviour that happens to work). The finding is real, since
// a KV pool passes 2^32 elements too, but the message should say "past 2^32"
// and the first size that breaks should be twice the one it implies.
// RUN: %if kvlint %{ not %kvlint --checks=KV001 %s | FileCheck %s %}
// CHECK: fixme-unsigned-sum.cu:[[@LINE+4]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31

__global__ void store(float *cache, const int *block_table, int page_stride) {
  int page = block_table[blockIdx.x];
  cache[page * page_stride + threadIdx.x] = 0.f;
}
