// bench_timer.cuh - how kernels/bench's programs time a launch (kvref_bench, bulk_explore).
// decode_explore keeps its own graph_us: it times with other replays and warm-up.
#ifndef KVREF_BENCH_TIMER_CUH
#define KVREF_BENCH_TIMER_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define BENCH_OK(expr)                                                                  \
  do {                                                                                  \
    cudaError_t e_ = (expr);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, \
              __LINE__, #expr);                                                         \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

/// Times a launch on one stream, best of `reps`: back to back (ms_per_iter),
/// or `per_graph` launches captured in one CUDA graph and the graph replayed
/// `replays` times (graph_ms_per_iter), per launch. One warm-up call first.
struct Timer {
  cudaStream_t s;
  cudaEvent_t a, b;
  explicit Timer(cudaStream_t stream) : s(stream) {
    BENCH_OK(cudaEventCreate(&a));
    BENCH_OK(cudaEventCreate(&b));
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  template <typename F>
  double ms_per_iter(F fn, int iters, int reps = 5) {
    fn();
    BENCH_OK(cudaStreamSynchronize(s));
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      BENCH_OK(cudaEventRecord(a, s));
      for (int i = 0; i < iters; ++i) fn();
      BENCH_OK(cudaEventRecord(b, s));
      BENCH_OK(cudaEventSynchronize(b));
      float ms = 0;
      BENCH_OK(cudaEventElapsedTime(&ms, a, b));
      best = std::min(best, static_cast<double>(ms) / iters);
    }
    return best;
  }
  template <typename F>
  double graph_ms_per_iter(F fn, int per_graph, int replays, int reps = 5) {
    fn();
    BENCH_OK(cudaStreamSynchronize(s));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    BENCH_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < per_graph; ++i) fn();
    BENCH_OK(cudaStreamEndCapture(s, &g));
    BENCH_OK(cudaGetLastError());
    BENCH_OK(cudaGraphInstantiate(&ge, g, 0));
    BENCH_OK(cudaGraphLaunch(ge, s));
    BENCH_OK(cudaStreamSynchronize(s));
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      BENCH_OK(cudaEventRecord(a, s));
      for (int i = 0; i < replays; ++i) BENCH_OK(cudaGraphLaunch(ge, s));
      BENCH_OK(cudaEventRecord(b, s));
      BENCH_OK(cudaEventSynchronize(b));
      float ms = 0;
      BENCH_OK(cudaEventElapsedTime(&ms, a, b));
      best = std::min(best, static_cast<double>(ms) / (replays * per_graph));
    }
    BENCH_OK(cudaGraphExecDestroy(ge));
    BENCH_OK(cudaGraphDestroy(g));
    return best;
  }
};

#endif
