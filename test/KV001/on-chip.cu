// KV001 facet: arrays on the chip (__shared__, extern __shared__, local
// arrays of constant extent) hold at most what a CTA holds; no index into
// them reaches 2^31 elements, whatever its bound. The same product into
// global memory is reported.
// RUN: %if kvlint %{ not %kvlint %s | FileCheck %s --implicit-check-not=warning: %}
// RUN: %if tidy %{ %tidy %s -- %cuda-flags | FileCheck %s --implicit-check-not=warning: %}

__global__ void on_chip(float *cache, const int *block_table, int page_stride) {
  __shared__ float smem[4096];
  extern __shared__ float dyn[];
  float regs[8];
  const int page = block_table[blockIdx.x];
  smem[page * page_stride] = 1.f;                    // negative: static shared memory
  dyn[page * page_stride] = 1.f;                     // negative: dynamic shared memory
  float *p = &smem[0];
  p[page * page_stride] = 2.f;                       // negative: a pointer into shared memory
  regs[(page * page_stride) & 7] = 0.f;              // negative: a register array
  // CHECK: on-chip.cu:[[@LINE+1]]:9: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  cache[page * page_stride] = smem[threadIdx.x] + regs[threadIdx.x & 7];
}

// A template's shared buffer reached through a dependent cast, and shared
// memory a helper receives or an accessor returns: the array is declared
// out of sight, and the pointer's name says where it lives (OnChipPattern).
template <typename T>
__global__ void dependent_cast(T *out, const int *block_table, int page_stride) {
  extern __shared__ unsigned char smem[];
  T *v_buf = (T *)smem;
  const int page = block_table[blockIdx.x];
  v_buf[page * page_stride] = T(0);                  // negative: a dependent cast of shared memory
  // CHECK: on-chip.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  out[page * page_stride] = v_buf[0];
}

struct SharedStorage {
  float buf[1024];
  __device__ float *p_smem_ptr() { return buf; }
};

__device__ void helper_smem(float *v_smem, float *dst, int page, int page_stride) {
  v_smem[page * page_stride] = 1.f;                  // negative: a helper's shared-memory parameter
  // CHECK: on-chip.cu:[[@LINE+1]]:7: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  dst[page * page_stride] = 1.f;                     // positive: the same product into global memory
}

__global__ void accessor_smem(SharedStorage *st, const int *block_table, int page_stride) {
  float *p_smem = st->p_smem_ptr();
  const int page = block_table[blockIdx.x];
  p_smem[page * page_stride] = 0.f;                  // negative: an accessor that returns shared memory
}

// A struct laid over dynamic shared memory (FlashInfer's mamba kernels:
// `auto &smem = *reinterpret_cast<SmemT *>(smem_buf)`): its array members
// have a constant extent, and a helper that receives the struct names it.
// Members of `this` keep their names (a loader's `smem_b`). Positive twin:
// a pointer member of a struct in global memory.
template <int D_PER_CTA, int DSTATE>
struct SsuSmem {
  alignas(16) float state[2 * D_PER_CTA * DSTATE];
};

template <int D_PER_CTA, int DSTATE>
__global__ void smem_struct(float *out, int tile_buf) {
  extern __shared__ char smem_buf[];
  auto &smem = *reinterpret_cast<SsuSmem<D_PER_CTA, DSTATE> *>(smem_buf);
  float *state_base = smem.state + tile_buf * D_PER_CTA * DSTATE; // negative: a member array of the struct
  state_base[threadIdx.x] = out[threadIdx.x];
}

template <typename SmemT>
__device__ void smem_helper(SmemT &smem, int state_buf, int d_per_cta, int dstate) {
  float *s = reinterpret_cast<float *>(smem.state) + state_buf * d_per_cta * dstate; // negative: the helper's `smem`
  s[threadIdx.x] = 0.f;
}

template <typename ParamsT>
__device__ void params_helper(ParamsT &params, int state_buf, int d_per_cta, int dstate) {
  // CHECK: on-chip.cu:[[@LINE+1]]:56: warning: 32-bit signed product 'state_buf * d_per_cta * dstate' is used as a memory offset and wraps past 2^31 in the training profile: 'state_buf * d_per_cta' <= 67,092,481 ('state_buf' is bounded by no fact: below Envelope.Unknown = 8,192) times 'dstate' <= 576 ('dstate' is named like it: Envelope.HeadDim = 576); widen 'state_buf' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  float *s = reinterpret_cast<float *>(params.state) + state_buf * d_per_cta * dstate; // positive: the same through `params`
  s[threadIdx.x] = 0.f;
}

struct StageLoader {
  unsigned short *smem_b;
  unsigned short *gmem_b;
  int tile_n, tile_k;
  __device__ void stage(int stage_idx, int page, int page_stride) {
    unsigned short *s = smem_b + stage_idx * tile_n * tile_k; // negative: a member of `this` named for shared memory
    s[threadIdx.x] = 0;
    // CHECK: on-chip.cu:[[@LINE+1]]:12: warning: 32-bit signed product 'page * page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('page' is named like it: below Envelope.KvPages = 8,388,608) times 'page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
    gmem_b[page * page_stride + threadIdx.x] = s[0]; // positive: a member of `this` in global memory
  }
};

struct GlobalView {
  float *cache;
  int page_stride;
};
__global__ void global_member(GlobalView v, const int *block_table) {
  const int page = block_table[blockIdx.x];
  // CHECK: on-chip.cu:[[@LINE+1]]:11: warning: 32-bit signed product 'page * v.page_stride' is used as a memory offset and wraps past 2^31 in the training profile: 'page' <= 8,388,607 ('block_table' is an entry of a table named like it: below Envelope.KvPages = 8,388,608) times 'v.page_stride' <= 16,384 ('page_stride' is named like it: Envelope.Stride = 16,384); widen 'page' to 64 bits before it multiplies [kvlint-narrowed-index-overflow]
  v.cache[page * v.page_stride] = 0.f;             // positive: a struct's pointer into global memory
}

// A pointer read from a register array of pointers points into global memory
// (aiter's custom all-reduce: `const T *ptrs[ngpus]`, a dependent type in the
// template); a row of a 2-D shared array is on the chip.
template <typename T, int ngpus>
__global__ void gathered(T *out, T *const *bufs, const int *block_table, int page_stride) {
  const T *ptrs[ngpus];
  __shared__ float rows[4][1024];
  for (int g = 0; g < ngpus; ++g)
    ptrs[g] = bufs[g];
  const int page = block_table[blockIdx.x];
  // CHECK: on-chip.cu:[[@LINE+1]]:{{[0-9]+}}: warning: 32-bit signed product 'page * page_stride'
  out[threadIdx.x] = ptrs[threadIdx.y][page * page_stride] + rows[threadIdx.y][page * page_stride];
}
