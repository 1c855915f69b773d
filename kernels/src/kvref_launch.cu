// kvref_launch.cu - host entry points of libkvref_cuda.so and libkvref_hip.so.
//
// One source: nvcc compiles it as CUDA, clang-19 (-x hip) as HIP.  The kernels come from the
// portable headers in include/kvref/.
// The runtime header comes first: clang's HIP host stubs for the kernels defined in the
// headers below need hipLaunchKernel declared.
#include "kvref/portable.cuh"
#if defined(KVREF_HIP)
#include <hip/hip_runtime_api.h>
typedef hipStream_t gpu_stream_t;
typedef hipError_t gpu_error_t;
#define KVREF_GET_LAST_ERROR hipGetLastError
#define KVREF_GPU_SUCCESS hipSuccess
#elif defined(KVREF_CUDA)
#include <cuda_runtime.h>
typedef cudaStream_t gpu_stream_t;
typedef cudaError_t gpu_error_t;
#define KVREF_GET_LAST_ERROR cudaGetLastError
#define KVREF_GPU_SUCCESS cudaSuccess
#elif defined(KVREF_EMULATE)
// Host emulation (test/emulation_tests.cpp): the same entry points run the kernels on the CPU.
typedef void* gpu_stream_t;
typedef int gpu_error_t;
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};
#define KVREF_GET_LAST_ERROR() 0
#define KVREF_GPU_SUCCESS 0
#else
#error "kvref_launch.cu is compiled as CUDA, as HIP, or with KVREF_EMULATE"
#endif

// Where a launch goes: the stream, and whether it may start while the kernel before it in the
// stream drains (programmatic dependent launch, CUDA on sm_90+; see target()).
struct Target {
  gpu_stream_t stream;
  bool pdl;
};

// KVREF_LAUNCH(kernel, grid, block, target, args...) launches and yields the launch's error
// (gpu_error_t; KVREF_GPU_SUCCESS when it was queued).
#if defined(KVREF_EMULATE) && !defined(KVREF_CUDA) && !defined(KVREF_HIP)
#define KVREF_LAUNCH(kernel, grid, block, target, ...) \
  ((void)(target), kvref::emu::launch((grid).x, (grid).y, (block).x, kernel, __VA_ARGS__), KVREF_GPU_SUCCESS)
#elif defined(KVREF_HIP)
#define KVREF_LAUNCH(kernel, grid, block, target, ...) \
  (kernel<<<(grid), (block), 0, (target).stream>>>(__VA_ARGS__), hipGetLastError())
#else
namespace {
// With target.pdl, the launch carries the programmatic stream serialization attribute: its CTAs
// may be scheduled while the previous kernel in the stream drains, and each waits in
// dev::wait_prerequisite_grids (the first thing every kvref kernel does) until that kernel has
// completed and its memory is visible.  Every launch goes through cudaLaunchKernelEx, which
// returns the launch's own error: a call that succeeds asks the runtime nothing more, and an
// error that an unrelated earlier call left pending stays with its owner (cudaGetLastError
// after a <<<>>> launch would report it as kvref's, and clear it).
template <typename... KArgs, typename... Args>
cudaError_t launch_cuda(void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t smem, const Target& target,
                        const Args&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = target.stream;
  cfg.attrs = attr;
  cfg.numAttrs = target.pdl ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}
}  // namespace
#define KVREF_LAUNCH(kernel, grid, block, target, ...) launch_cuda(kernel, (grid), (block), 0, (target), __VA_ARGS__)
#endif

#include "kvref/kv_store.cuh"
#include "kvref/kvref.h"
#include "kvref/slot_mapping.cuh"
#include "plan.h"

#if defined(KVREF_CUDA)
#include <stdlib.h>
#include <string.h>

#include <atomic>
#endif

namespace {

// A launch's error as a status; a failed launch's error is also taken off the runtime's
// last-error slot (kvref reports it).
kvref_status launch_status(gpu_error_t err) {
  if (err == KVREF_GPU_SUCCESS) return KVREF_SUCCESS;
  (void)KVREF_GET_LAST_ERROR();
  return KVREF_ERROR_LAUNCH_FAILED;
}

unsigned int blocks_for(int64_t items, int64_t per_block) {
  return static_cast<unsigned int>((items + per_block - 1) / per_block);
}

kvref_status launch_decode(const kvref::StorePlan& plan, const Target& s) {
  using namespace kvref;
  // Split: grid (tokens, 2), one tensor per CTA; else grid (tokens), K and V halves of a CTA.
  const bool y = plan.decode_split_y;
  const dim3 grid(static_cast<unsigned int>(plan.params.num_tokens), y ? 2u : 1u);
  const dim3 block((y ? 1u : 2u) << plan.dec.lanes_log2);
  const DecodeParams& d = plan.dec;
  const bool dense = plan.decode_dense;
  gpu_error_t err = KVREF_GPU_SUCCESS;
  if (!plan.fp8) {
    if (dense && y) err = KVREF_LAUNCH((scatter_copy_decode_kernel<Vec16, true, true>), grid, block, s, d);
    else if (dense) err = KVREF_LAUNCH((scatter_copy_decode_kernel<Vec16, true, false>), grid, block, s, d);
    else if (y) err = KVREF_LAUNCH((scatter_copy_decode_kernel<Vec16, false, true>), grid, block, s, d);
    else err = KVREF_LAUNCH((scatter_copy_decode_kernel<Vec16, false, false>), grid, block, s, d);
  } else {
#define KVREF_LAUNCH_FP8_DECODE(src)                                                                 \
  do {                                                                                               \
    if (plan.decode_pairs && dense) err = KVREF_LAUNCH((scatter_fp8_decode_pairs_kernel<src, true, false, 1>), grid, block, s, d); \
    else if (plan.decode_pairs) err = KVREF_LAUNCH((scatter_fp8_decode_pairs_kernel<src, false, false, 1>), grid, block, s, d); \
    else if (dense && y) err = KVREF_LAUNCH((scatter_fp8_decode_kernel<src, true, true>), grid, block, s, d);   \
    else if (dense) err = KVREF_LAUNCH((scatter_fp8_decode_kernel<src, true, false>), grid, block, s, d);  \
    else if (y) err = KVREF_LAUNCH((scatter_fp8_decode_kernel<src, false, true>), grid, block, s, d);      \
    else err = KVREF_LAUNCH((scatter_fp8_decode_kernel<src, false, false>), grid, block, s, d);            \
  } while (0)
    switch (plan.src_dtype) {
      case KVREF_DTYPE_F16: KVREF_LAUNCH_FP8_DECODE(KVREF_DTYPE_F16); break;
      case KVREF_DTYPE_BF16: KVREF_LAUNCH_FP8_DECODE(KVREF_DTYPE_BF16); break;
      default: KVREF_LAUNCH_FP8_DECODE(KVREF_DTYPE_F32); break;
    }
#undef KVREF_LAUNCH_FP8_DECODE
  }
  return launch_status(err);
}

// The dynamic shared memory record_store_bulk_kernel may take on the calling thread's current
// device (plan_record_store's bulk_smem_limit), or 0 where it cannot run: a device below compute
// capability 9.0, or a build whose code for this device was compiled for an older architecture
// (the kernel then only traps; cudaFuncAttributes::ptxVersion is the architecture the code that
// runs was compiled for).  Asked of the runtime once per device, then cached.  The kernels are
// compiled together, so a limit above 0 also says that their code waits for prerequisite grids
// (target()).
int64_t bulk_record_smem_limit() {
#if defined(KVREF_CUDA)
  constexpr int kCachedDevices = 64;
  static std::atomic<int64_t> cached[kCachedDevices];  // limit + 1; 0: not asked yet
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();  // the launch that follows reports a real problem itself
    return 0;
  }
  const bool cacheable = dev >= 0 && dev < kCachedDevices;
  if (cacheable) {
    const int64_t c = cached[dev].load(std::memory_order_relaxed);
    if (c != 0) return c - 1;
  }
  int major = 0;
  cudaFuncAttributes fa;
  int64_t limit = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(&kvref::record_store_bulk_kernel<false, false>)) !=
          cudaSuccess) {
    (void)cudaGetLastError();  // no image for this device: the plan keeps today's kernel
  } else if (major >= 9 && fa.ptxVersion >= 90) {
    limit = fa.maxDynamicSharedSizeBytes;
  }
  if (cacheable) cached[dev].store(limit + 1, std::memory_order_relaxed);
  return limit;
#else
  return 0;
#endif
}

// Where to launch on the calling thread's current device, given its bulk_record_smem_limit():
// with programmatic dependent launch when the limit is above 0 (CUDA, code for sm_90+ on a
// device of compute capability 9.0+; below, dev::wait_prerequisite_grids is compiled out, and a
// kernel launched early would not wait), unless KVREF_PDL=0 is set in the environment (read
// once).  docs/kvref/README.md.
Target target(kvref_stream_t stream, int64_t sm90_limit) {
#if defined(KVREF_CUDA)
  static const bool allowed = [] {
    const char* e = getenv("KVREF_PDL");
    return e == nullptr || strcmp(e, "0") != 0;
  }();
  return Target{static_cast<gpu_stream_t>(stream), allowed && sm90_limit > 0};
#else
  (void)sm90_limit;
  return Target{static_cast<gpu_stream_t>(stream), false};
#endif
}
Target target(kvref_stream_t stream) { return target(stream, bulk_record_smem_limit()); }

kvref_status launch_store(const kvref::StorePlan& plan, const Target& s) {
  using namespace kvref;
  if (plan.decode) return launch_decode(plan, s);
  const int64_t tpb = tokens_per_block(plan);
  const int64_t blocks = (plan.params.num_tokens + tpb - 1) / tpb;
  if (blocks > 0x7fffffff) return KVREF_ERROR_INVALID_VALUE;
#if defined(KVREF_CUDA)
  if (plan.bulk) {  // one CTA (one warp) per chunk of tokens_per_block tokens
    return launch_status(launch_cuda(record_store_bulk_kernel<>, dim3(static_cast<unsigned int>(blocks)), dim3(kBulkThreads),
                                     static_cast<size_t>(plan.bulk_smem), s, plan.params));
  }
#endif
  // One launch for K and V: a thread moves both, or blockIdx.y picks one (decode sizes).
  const dim3 grid(static_cast<unsigned int>(blocks), static_cast<unsigned int>(plan.grid_y));
  const dim3 block(plan.params.tokens_per_block << plan.params.lanes_log2);
  const ScatterParams& p = plan.params;
  const int tpt = plan.tensors_per_thread;
  gpu_error_t err = KVREF_GPU_SUCCESS;
  if (!plan.fp8) {
    switch (plan.vector_bytes) {
      case 16:
        if (tpt == 1 && plan.unroll == 1) err = KVREF_LAUNCH((scatter_copy_kernel<Vec16, 1, 1>), grid, block, s, p);
        else if (tpt == 1) err = KVREF_LAUNCH((scatter_copy_kernel<Vec16, 1, 4>), grid, block, s, p);
        else if (plan.unroll == 1) err = KVREF_LAUNCH((scatter_copy_kernel<Vec16, 2, 1>), grid, block, s, p);
        else err = KVREF_LAUNCH((scatter_copy_kernel<Vec16, 2, 4>), grid, block, s, p);
        break;
      case 8:
        if (tpt == 1) err = KVREF_LAUNCH((scatter_copy_kernel<Vec8, 1, 4>), grid, block, s, p);
        else err = KVREF_LAUNCH((scatter_copy_kernel<Vec8, 2, 4>), grid, block, s, p);
        break;
      case 4:
        if (tpt == 1) err = KVREF_LAUNCH((scatter_copy_kernel<uint32_t, 1, 4>), grid, block, s, p);
        else err = KVREF_LAUNCH((scatter_copy_kernel<uint32_t, 2, 4>), grid, block, s, p);
        break;
      case 2:
        if (tpt == 1) err = KVREF_LAUNCH((scatter_copy_kernel<uint16_t, 1, 4>), grid, block, s, p);
        else err = KVREF_LAUNCH((scatter_copy_kernel<uint16_t, 2, 4>), grid, block, s, p);
        break;
      default:
        if (tpt == 1) err = KVREF_LAUNCH((scatter_copy_kernel<uint8_t, 1, 4>), grid, block, s, p);
        else err = KVREF_LAUNCH((scatter_copy_kernel<uint8_t, 2, 4>), grid, block, s, p);
        break;
    }
  } else if (plan.vector_bytes == 8) {
#define KVREF_LAUNCH_FP8(src)                                                              \
  do {                                                                                     \
    if (tpt == 1) err = KVREF_LAUNCH((scatter_fp8_vec_kernel<src, 1, 1>), grid, block, s, p);    \
    else if (plan.unroll == 1) err = KVREF_LAUNCH((scatter_fp8_vec_kernel<src, 2, 1>), grid, block, s, p); \
    else err = KVREF_LAUNCH((scatter_fp8_vec_kernel<src, 2, 2>), grid, block, s, p);             \
  } while (0)
    switch (plan.src_dtype) {
      case KVREF_DTYPE_F16: KVREF_LAUNCH_FP8(KVREF_DTYPE_F16); break;
      case KVREF_DTYPE_BF16: KVREF_LAUNCH_FP8(KVREF_DTYPE_BF16); break;
      default: KVREF_LAUNCH_FP8(KVREF_DTYPE_F32); break;
    }
#undef KVREF_LAUNCH_FP8
  } else {
    switch (plan.src_dtype) {  // grid_y == 1: the kernel moves K and V
      case KVREF_DTYPE_F16: err = KVREF_LAUNCH((scatter_fp8_scalar_kernel<KVREF_DTYPE_F16>), grid, block, s, p); break;
      case KVREF_DTYPE_BF16: err = KVREF_LAUNCH((scatter_fp8_scalar_kernel<KVREF_DTYPE_BF16>), grid, block, s, p); break;
      default: err = KVREF_LAUNCH((scatter_fp8_scalar_kernel<KVREF_DTYPE_F32>), grid, block, s, p); break;
    }
  }
  return launch_status(err);
}

}  // namespace

extern "C" {

const char* kvref_backend(void) {
#if defined(KVREF_HIP)
  return "hip";
#elif defined(KVREF_CUDA)
  return "cuda";
#else
  return "emulated";
#endif
}

kvref_status kvref_slot_mapping(const kvref_slot_mapping_args* args, kvref_stream_t stream) {
  const kvref_status st = kvref_validate_slot_mapping(args);
  if (st != KVREF_SUCCESS) return st;
  if (args->num_tokens_padded == 0) return KVREF_SUCCESS;
  const dim3 grid(blocks_for(args->num_tokens_padded, kvref::kSlotMappingThreads),
                  static_cast<unsigned int>(args->num_groups));
  const gpu_error_t err = KVREF_LAUNCH(kvref::slot_mapping_kernel, grid, dim3(kvref::kSlotMappingThreads),
               target(stream), *args);
  return launch_status(err);
}

kvref_status kvref_kv_store(const kvref_kv_store_args* args, kvref_stream_t stream) {
  const kvref_status st = kvref_validate_kv_store(args);
  if (st != KVREF_SUCCESS) return st;
  if (args->num_tokens == 0) return KVREF_SUCCESS;
  return launch_store(kvref::plan_kv_store(*args), target(stream));
}

kvref_status kvref_record_store(const kvref_record_store_args* args, kvref_stream_t stream) {
  const kvref_status st = kvref_validate_record_store(args);
  if (st != KVREF_SUCCESS) return st;
  if (args->num_tokens == 0) return KVREF_SUCCESS;
  const int64_t limit = bulk_record_smem_limit();  // asked once: the plan and the launch
  return launch_store(kvref::plan_record_store(*args, limit), target(stream, limit));
}

}  // extern "C"
