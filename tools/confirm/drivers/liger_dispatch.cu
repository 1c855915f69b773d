//===- liger_dispatch.cu - Liger's MoE dispatch_tokens past 2^31 int4s ----===//
//
// Includes the tree's liger_cute_kernels/csrc/core/src/moe/dispatch.cuh (or the
// folder copy holding kvlint's fixed file) and calls liger::dispatch_tokens as
// moe.cu's fused kernel does (TileM 128, 384 threads).  It addresses the
// [total_slots, D] destination in int4 (8 bf16) units as row * int4_per_row in
// int: with D = 4096 (512 int4s a row) row 4,194,304 passes 2^31.
// Reference: dst[row] must equal tokens[sorted_token_ids[row]] (zero for -1),
// every address in size_t.
//
//===----------------------------------------------------------------------===//
#include "confirm.cuh"
#include "moe/dispatch.cuh"

constexpr int kTileM = 128, kThreads = 384;
constexpr size_t D = 4096, T = 4096;

__global__ void dispatch_kernel(const __nv_bfloat16* tokens, __nv_bfloat16* dst, const int* ids, int hidden,
                                int slots) {
  liger::dispatch_tokens<__nv_bfloat16, kTileM, kThreads>(tokens, dst, ids, hidden, slots);
}

__global__ void fill_ids(int* ids, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    ids[i] = (i % 5 == 4) ? -1 : (int)((i * 7) % T);
}

__global__ void check_rows(const __nv_bfloat16* dst, const __nv_bfloat16* tokens, const int* ids, size_t rows,
                           unsigned long long* nbad, unsigned long long* first, unsigned long long* last) {
  for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    __shared__ int bad;
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    int id = ids[r];
    for (size_t c = threadIdx.x; c < D; c += blockDim.x) {
      float want = id < 0 ? 0.f : float(tokens[(size_t)id * D + c]);
      if (float(dst[r * D + c]) != want) bad = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0 && bad) {
      atomicAdd(nbad, 1ull); atomicMin(first, (unsigned long long)r); atomicMax(last, (unsigned long long)r);
    }
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  bool at = confirm::parse_which(argc, argv);
  size_t slots = at ? 4194304 + kTileM : 4194304;  // 2^31 / 512 = 4,194,304
  confirm::Guarded<__nv_bfloat16> tok, dst;
  confirm::Guarded<int> ids;
  tok.alloc(T * D);
  dst.alloc(slots * D);
  ids.alloc(slots);
  confirm::fill_rows<<<1024, 256>>>(tok.t, T, D);
  fill_ids<<<1024, 256>>>(ids.t, slots);
  confirm::fill_value<<<4096, 256>>>(dst.t, slots * D, 7.0f);  // a value the kernel never writes
  confirm::sync_or_fault("fill");
  dispatch_kernel<<<1056, kThreads>>>(tok.t, dst.t, ids.t, (int)D, (int)slots);
  confirm::sync_or_fault("dispatch_tokens");
  unsigned long long* d;
  confirm::must(cudaMalloc(&d, 24), "cudaMalloc");
  unsigned long long h[3] = {0, ~0ull, 0};
  confirm::must(cudaMemcpy(d, h, 24, cudaMemcpyHostToDevice), "memcpy");
  check_rows<<<8192, 256>>>(dst.t, tok.t, ids.t, slots, d, d + 1, d + 2);
  confirm::sync_or_fault("reference");
  confirm::must(cudaMemcpy(h, d, 24, cudaMemcpyDeviceToHost), "memcpy");
  char line[256];
  if (h[0])
    snprintf(line, sizeof line, "%llu of %zu rows differ from row %llu to row %llu (predicted first wrapping row 4194304)",
             h[0], slots, h[1], h[2]);
  else
    snprintf(line, sizeof line, "all %zu rows match the 64-bit reference", slots);
  std::string can = confirm::check_canaries(tok, "tokens") + confirm::check_canaries(dst, "dst");
  bool ok = !h[0] && can.empty();
  confirm::emit(ok ? "ok" : "wrong", std::string(line) + (can.empty() ? "; canaries intact" : "; " + can),
                confirm::which_name());
  return 0;
}
