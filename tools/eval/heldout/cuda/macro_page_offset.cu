#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

#define KV_PAGE_OFFSET(page, stride_page) ((page) * (stride_page))

// paged_k: [num_pages, page_size, num_heads, head_dim], stride_page elements per page
// Copies each request's last page out (prefix-cache snapshot of the partial page).
__global__ void copy_last_page_kernel(__half* __restrict__ dst, const __half* __restrict__ paged_k,
                                      const int* __restrict__ kv_indices,
                                      const int* __restrict__ kv_indptr, const int stride_page) {
  const int req = blockIdx.x;
  const int page = kv_indices[kv_indptr[req + 1] - 1];
  const __half* src = paged_k + KV_PAGE_OFFSET(page, stride_page);
  __half* out = dst + static_cast<int64_t>(req) * stride_page;
  for (int e = threadIdx.x; e < stride_page; e += blockDim.x) {
    out[e] = src[e];
  }
}

void copy_last_page(__half* dst, const __half* paged_k, const int* kv_indices,
                    const int* kv_indptr, int num_reqs, int stride_page, cudaStream_t stream) {
  copy_last_page_kernel<<<num_reqs, 256, 0, stream>>>(dst, paged_k, kv_indices, kv_indptr,
                                                      stride_page);
}
