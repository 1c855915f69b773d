//===- confirm.cuh - canaries, a 64-bit row compare and the result line ---===//
//
// Shared by the CUDA drivers of tools/confirm.  A driver allocates each tensor
// inside one buffer [lo pad | tensor | hi pad] whose pads hold the byte 0x5A
// (canary.py's pattern), runs the upstream kernel, runs its own reference
// kernel that computes every address in 64 bits (size_t), compares row by row
// on the GPU, checks the pads, and prints one line: CONFIRM {"outcome": ...}.
// A CUDA error after the launch (an illegal address) prints outcome "fault".
//
//===----------------------------------------------------------------------===//
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <string>

namespace confirm {

inline void emit(const char* outcome, const std::string& detail, const char* which) {
  std::string d;
  for (char c : detail) d += (c == '"' || c == '\\') ? '\'' : c;
  printf("CONFIRM {\"outcome\": \"%s\", \"detail\": \"%s\", \"which\": \"%s\"}\n", outcome, d.c_str(), which);
  fflush(stdout);
}

inline const char*& which_name() { static const char* w = "?"; return w; }

// After the launch: a fault ends the run with outcome "fault".
inline void sync_or_fault(const char* what) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) {
    emit("fault", std::string(what) + ": " + cudaGetErrorString(e), which_name());
    exit(0);
  }
}

inline void must(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    emit("error", std::string(what) + ": " + cudaGetErrorString(e), which_name());
    exit(0);
  }
}

template <typename T>
struct Guarded {
  unsigned char* buf = nullptr;
  T* t = nullptr;
  size_t n = 0, lo = 0, hi = 0;  // elements
  void alloc(size_t n_, size_t lo_ = 65536, size_t hi_ = 65536) {
    n = n_; lo = lo_; hi = hi_;
    must(cudaMalloc(&buf, (lo + n + hi) * sizeof(T)), "cudaMalloc");
    must(cudaMemset(buf, 0x5A, lo * sizeof(T)), "memset lo");
    must(cudaMemset(buf + (lo + n) * sizeof(T), 0x5A, hi * sizeof(T)), "memset hi");
    t = reinterpret_cast<T*>(buf + lo * sizeof(T));
  }
};

__global__ void count_ne_bytes(const unsigned char* p, size_t n, unsigned char v,
                               unsigned long long* cnt, unsigned long long* first) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    if (p[i] != v) { atomicAdd(cnt, 1ull); atomicMin(first, (unsigned long long)i); }
}

// "" when both pads are intact, else what changed.
template <typename T>
std::string check_canaries(const Guarded<T>& g, const char* name) {
  unsigned long long* d;
  must(cudaMalloc(&d, 2 * sizeof(unsigned long long)), "cudaMalloc");
  std::string out;
  for (int side = 0; side < 2; ++side) {
    size_t off = side == 0 ? 0 : (g.lo + g.n) * sizeof(T);
    size_t len = (side == 0 ? g.lo : g.hi) * sizeof(T);
    if (!len) continue;
    unsigned long long h[2] = {0, ~0ull};
    must(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), "memcpy");
    count_ne_bytes<<<1024, 256>>>(g.buf + off, len, 0x5A, d, d + 1);
    sync_or_fault("canary check");
    must(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "memcpy");
    if (h[0]) {
      char line[256];
      long long rel = side == 0 ? (long long)(h[1] / sizeof(T)) - (long long)g.lo
                                : (long long)(h[1] / sizeof(T)) + (long long)g.n;
      snprintf(line, sizeof line, "%s %s canary: %llu bytes changed, first at element offset %lld from the tensor; ",
               name, side == 0 ? "low" : "high", h[0], rel);
      out += line;
    }
  }
  cudaFree(d);
  return out;
}

// Rows of `rows` x `cols` (64-bit indexing) where |out - ref| > atol + rtol |ref|.
template <typename T>
__global__ void compare_rows_kernel(const T* out, const T* ref, size_t rows, size_t cols, float rtol,
                                    float atol, unsigned long long* nbad, unsigned long long* first,
                                    unsigned long long* last) {
  for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    __shared__ int bad;
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    for (size_t c = threadIdx.x; c < cols; c += blockDim.x) {
      float a = float(out[r * cols + c]), b = float(ref[r * cols + c]);
      if (!(fabsf(a - b) <= atol + rtol * fabsf(b))) bad = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0 && bad) {
      atomicAdd(nbad, 1ull);
      atomicMin(first, (unsigned long long)r);
      atomicMax(last, (unsigned long long)r);
    }
    __syncthreads();
  }
}

template <typename T>
std::string compare_rows(const T* out, const T* ref, size_t rows, size_t cols, float rtol, float atol,
                         long long predicted_first) {
  unsigned long long* d;
  must(cudaMalloc(&d, 3 * sizeof(unsigned long long)), "cudaMalloc");
  unsigned long long h[3] = {0, ~0ull, 0};
  must(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), "memcpy");
  compare_rows_kernel<<<4096, 256>>>(out, ref, rows, cols, rtol, atol, d, d + 1, d + 2);
  sync_or_fault("compare");
  must(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "memcpy");
  cudaFree(d);
  char line[320];
  if (!h[0]) {
    snprintf(line, sizeof line, "all %zu rows match the 64-bit reference", rows);
    return std::string("OK:") + line;
  }
  snprintf(line, sizeof line, "%llu of %zu rows differ from row %llu to row %llu (predicted first wrapping row %lld)",
           h[0], rows, h[1], h[2], predicted_first);
  return line;
}

// Deterministic per-row contents: value depends on (row * 7 + col) % 61.
template <typename T>
__global__ void fill_rows(T* p, size_t rows, size_t cols) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x) {
    size_t r = i / cols, c = i % cols;
    p[i] = T(float((r * 7 + c) % 61) / 8.0f - 3.5f);
  }
}

template <typename T>
__global__ void fill_value(T* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = T(v);
}

// --which below|at: the size this run uses.
inline bool parse_which(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], "--which")) {
      which_name() = argv[i + 1];
      return !strcmp(argv[i + 1], "at");
    }
  fprintf(stderr, "usage: %s --which below|at\n", argv[0]);
  exit(2);
}

}  // namespace confirm
