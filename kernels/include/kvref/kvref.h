/* kvref/kvref.h - C API of the kvref reference kernels (slot mapping, paged KV store).
 *
 * Usable from C (C99) and C++.  The same API is implemented by
 *   libkvref_cuda.so  (CUDA, sm_90)            -> CMake target kvref::cuda
 *   libkvref_hip.so   (HIP, gfx90a + gfx942)   -> CMake target kvref::hip
 *   libkvref_cpu.so   (kvref_cpu_* functions in kvref/kvref_cpu.h, host memory) -> kvref::cpu
 *
 * Conventions
 *   - All tensor pointers passed to kvref_slot_mapping / kvref_kv_store / kvref_record_store are
 *     device pointers; the argument structs themselves live in host memory.
 *   - Every function validates its arguments first and returns an error code without launching
 *     anything when they are invalid (null pointers, non-positive sizes, misaligned pointers,
 *     strides that make pages or rows overlap, unsupported dtype pairs).
 *   - Work is enqueued on `stream` (a cudaStream_t / hipStream_t, NULL = default stream); the
 *     functions do not synchronize.  KVREF_ERROR_LAUNCH_FAILED reports a runtime error at launch.
 *   - All offsets are computed in 64 bits: caches may exceed 2^31 (and 2^32) elements.
 *   - Slots < 0 (PAD, -1) are skipped by the stores; slots >= num_blocks * block_size are also
 *     skipped (defensive; never written).
 */
#ifndef KVREF_KVREF_H
#define KVREF_KVREF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KVREF_VERSION_MAJOR 0
#define KVREF_VERSION_MINOR 1
#define KVREF_VERSION_PATCH 0

/* Pad slot id written for tokens that have no slot (PAD_SLOT_ID in vLLM). */
#define KVREF_PAD_SLOT (-1)
/* Maximum number of KV-cache groups handled by one kvref_slot_mapping call. */
#define KVREF_MAX_GROUPS 8

typedef void* kvref_stream_t; /* cudaStream_t or hipStream_t */

typedef enum kvref_status {
  KVREF_SUCCESS = 0,
  KVREF_ERROR_NULL_POINTER = 1,   /* a required pointer is NULL                         */
  KVREF_ERROR_INVALID_VALUE = 2,  /* a size/stride/count is negative, zero or inconsistent */
  KVREF_ERROR_MISALIGNED = 3,     /* a pointer is not aligned to its element type        */
  KVREF_ERROR_UNSUPPORTED = 4,    /* dtype / layout combination not supported            */
  KVREF_ERROR_LAUNCH_FAILED = 5   /* the GPU runtime reported an error (no device, ...)  */
} kvref_status;

/* Static, never-NULL English description of a status code. */
const char* kvref_status_string(kvref_status status);
/* "cuda", "hip" or "cpu": which implementation this library is. */
const char* kvref_backend(void);

/* ------------------------------------------------------------------------------------------
 * Slot mapping
 *
 * For every token t < num_tokens, with request b (query_start_loc[b] <= t < query_start_loc[b+1]),
 * block-table row r = idx_mapping[b] and position p = positions[t], and for every group g:
 *   V   = block_size_g * cp_size                       (virtual block: all CP ranks' tokens)
 *   col = p / V
 *   off = p % V
 *   if col >= width_g                          -> slot = -1, the table is NOT read
 *   if (off / cp_interleave) % cp_size != cp_rank -> slot = -1 (token stored by another rank)
 *   else slot = block_table_g[r * row_stride_g + col] * block_size_g
 *               + (off / (cp_size * cp_interleave)) * cp_interleave + off % cp_interleave
 * Tokens num_tokens <= t < num_tokens_padded get -1, as do tokens of no request, tokens whose
 * row r is outside [0, num_rows), negative positions, and negative block-table entries.
 * ------------------------------------------------------------------------------------------ */
typedef struct kvref_slot_group {
  const int32_t* block_table; /* device, [num_rows, row_stride] int32 block ids               */
  int64_t row_stride;         /* elements between consecutive rows, >= width                 */
  int32_t width;              /* valid columns per row (max blocks per request), > 0          */
  int32_t block_size;         /* tokens per block, > 0, multiple of cp_interleave              */
  int64_t* slot_mapping;      /* device, [num_tokens_padded] int64 output                      */
} kvref_slot_group;

typedef struct kvref_slot_mapping_args {
  int32_t num_groups;                        /* 1..KVREF_MAX_GROUPS                         */
  kvref_slot_group groups[KVREF_MAX_GROUPS]; /* first num_groups entries are used            */
  int32_t num_reqs;                          /* requests in the batch, >= 0                  */
  int32_t num_rows;                          /* rows of every block table (max_num_reqs), > 0 */
  const int32_t* idx_mapping;                /* device, [num_reqs]   batch index -> row       */
  const int32_t* query_start_loc;            /* device, [num_reqs+1] token offsets           */
  const int64_t* positions;                  /* device, [num_tokens] token positions          */
  int64_t num_tokens;                        /* real tokens, >= 0                              */
  int64_t num_tokens_padded;                 /* >= num_tokens; tail gets -1                    */
  int32_t cp_size;                           /* context-parallel ranks, >= 1                  */
  int32_t cp_rank;                           /* 0 <= cp_rank < cp_size                         */
  int32_t cp_interleave;                     /* tokens per rank before switching rank, >= 1   */
} kvref_slot_mapping_args;

/* Fills *args with neutral defaults (cp_size 1, cp_rank 0, cp_interleave 1, everything else 0). */
void kvref_slot_mapping_args_init(kvref_slot_mapping_args* args);
kvref_status kvref_validate_slot_mapping(const kvref_slot_mapping_args* args);
kvref_status kvref_slot_mapping(const kvref_slot_mapping_args* args, kvref_stream_t stream);

/* ------------------------------------------------------------------------------------------
 * Paged K/V store (reshape_and_cache)
 *
 * key/value: [num_tokens, num_heads, head_size], element (t, h, d) at
 *            key[t * key_stride_token + h * key_stride_head + d]   (strides in elements).
 * caches:    page p starts at element p * cache_block_stride (0 -> dense page size
 *            block_size * num_heads * head_size); inside a page:
 *              KVREF_LAYOUT_NHD: [block_size, num_heads, head_size]
 *              KVREF_LAYOUT_HND: [num_heads, block_size, head_size]
 * Token t goes to page slot_mapping[t] / block_size, in-page slot slot_mapping[t] % block_size.
 * dtypes: cache_dtype == src_dtype (plain copy, F16/BF16/F32), or cache_dtype == FP8_E4M3 with
 *         src F16/BF16/F32: cache = saturate_e4m3(x / *k_scale) (and *v_scale for values),
 *         round-to-nearest-even; k_scale/v_scale are device pointers to one float each.
 * ------------------------------------------------------------------------------------------ */
typedef enum kvref_dtype {
  KVREF_DTYPE_F16 = 0,
  KVREF_DTYPE_BF16 = 1,
  KVREF_DTYPE_F32 = 2,
  KVREF_DTYPE_FP8_E4M3 = 3
} kvref_dtype;

typedef enum kvref_layout { KVREF_LAYOUT_NHD = 0, KVREF_LAYOUT_HND = 1 } kvref_layout;

typedef struct kvref_kv_store_args {
  const void* key;   /* device, src_dtype */
  const void* value; /* device, src_dtype */
  int64_t key_stride_token, key_stride_head;     /* elements, >= 0 */
  int64_t value_stride_token, value_stride_head; /* elements, >= 0 */
  void* key_cache;   /* device, cache_dtype */
  void* value_cache; /* device, cache_dtype */
  kvref_layout layout;
  int64_t num_blocks;         /* pages in each cache, > 0                                   */
  int32_t block_size;         /* tokens per page, > 0                                        */
  int32_t num_heads;          /* > 0                                                         */
  int32_t head_size;          /* elements, > 0                                               */
  int64_t cache_block_stride; /* elements between pages; 0 = dense; else >= page elements   */
  const int64_t* slot_mapping; /* device, [num_tokens] */
  int64_t num_tokens;          /* >= 0 (0 = nothing to do) */
  kvref_dtype src_dtype;
  kvref_dtype cache_dtype;
  const float* k_scale; /* device, 1 float; required iff cache_dtype == FP8_E4M3 */
  const float* v_scale; /* device, 1 float; required iff cache_dtype == FP8_E4M3 */
} kvref_kv_store_args;

void kvref_kv_store_args_init(kvref_kv_store_args* args);
kvref_status kvref_validate_kv_store(const kvref_kv_store_args* args);
kvref_status kvref_kv_store(const kvref_kv_store_args* args, kvref_stream_t stream);

/* ------------------------------------------------------------------------------------------
 * Record store (MLA latent caches, indexer caches, anything with per-page extras)
 *
 * Token t's record of record_bytes bytes (src + t * src_stride) is copied to
 *   cache + page * page_bytes + in_page * record_bytes,
 * page = slot_mapping[t] / page_size, in_page = slot_mapping[t] % page_size.
 * page_bytes >= page_size * record_bytes (the rest of a page, e.g. per-page scales, is untouched).
 * ------------------------------------------------------------------------------------------ */
typedef struct kvref_record_store_args {
  const void* src;     /* device */
  int64_t src_stride;  /* bytes between consecutive tokens' records, >= 0 */
  int64_t record_bytes; /* R, > 0 */
  void* cache;         /* device */
  int64_t num_pages;   /* > 0 */
  int32_t page_size;   /* records per page, > 0 */
  int64_t page_bytes;  /* bytes per page, >= page_size * record_bytes */
  const int64_t* slot_mapping; /* device, [num_tokens] */
  int64_t num_tokens;          /* >= 0 */
} kvref_record_store_args;

void kvref_record_store_args_init(kvref_record_store_args* args);
kvref_status kvref_validate_record_store(const kvref_record_store_args* args);
kvref_status kvref_record_store(const kvref_record_store_args* args, kvref_stream_t stream);

/* Size in bytes of one element of `dtype` (0 for an unknown value). */
int32_t kvref_dtype_size(kvref_dtype dtype);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KVREF_KVREF_H */
