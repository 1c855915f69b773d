/* c_api_test.c - the kvref headers compile as C99, and a backend library rejects bad arguments
 * without launching anything (so it runs on machines without a GPU, as in CI).
 * Built once per backend: -DKVREF_EXPECT_BACKEND="cuda"|"hip" links that library;
 * without it the CPU reference library is tested. */
#include <stdio.h>
#include <string.h>

#include "kvref/kvref.h"
#include "kvref/kvref_cpu.h"

static int failures = 0;
#define CHECK(cond)                                              \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                \
    }                                                            \
  } while (0)

#ifdef KVREF_EXPECT_BACKEND
#define SLOT_MAPPING(a) kvref_slot_mapping((a), NULL)
#define KV_STORE(a) kvref_kv_store((a), NULL)
#define RECORD_STORE(a) kvref_record_store((a), NULL)
#else
#define SLOT_MAPPING(a) kvref_cpu_slot_mapping(a)
#define KV_STORE(a) kvref_cpu_kv_store(a)
#define RECORD_STORE(a) kvref_cpu_record_store(a)
#endif

int main(void) {
  kvref_slot_mapping_args sm;
  kvref_kv_store_args kv;
  kvref_record_store_args rs;
  int64_t slots[4] = {0, 1, 2, 3};
  int32_t table[4] = {0, 1, 2, 3};
  int checks = 0;

#ifdef KVREF_EXPECT_BACKEND
  CHECK(strcmp(kvref_backend(), KVREF_EXPECT_BACKEND) == 0);
  ++checks;
#endif
  CHECK(strcmp(kvref_status_string(KVREF_SUCCESS), "success") == 0);
  CHECK(kvref_dtype_size(KVREF_DTYPE_BF16) == 2 && kvref_dtype_size(KVREF_DTYPE_FP8_E4M3) == 1);
  checks += 2;

  CHECK(SLOT_MAPPING(NULL) == KVREF_ERROR_NULL_POINTER);
  CHECK(KV_STORE(NULL) == KVREF_ERROR_NULL_POINTER);
  CHECK(RECORD_STORE(NULL) == KVREF_ERROR_NULL_POINTER);
  checks += 3;

  kvref_slot_mapping_args_init(&sm);
  CHECK(sm.cp_size == 1 && sm.cp_interleave == 1);
  CHECK(SLOT_MAPPING(&sm) == KVREF_ERROR_INVALID_VALUE); /* num_groups 0 */
  sm.num_groups = 1;
  sm.groups[0].block_table = table;
  sm.groups[0].slot_mapping = slots;
  sm.groups[0].width = 4;
  sm.groups[0].row_stride = 4;
  sm.groups[0].block_size = 0;
  sm.num_rows = 1;
  CHECK(SLOT_MAPPING(&sm) == KVREF_ERROR_INVALID_VALUE); /* block_size 0 */
  sm.groups[0].block_size = 16;
  sm.groups[0].slot_mapping = (int64_t*)((char*)slots + 4);
  CHECK(SLOT_MAPPING(&sm) == KVREF_ERROR_MISALIGNED);
  checks += 4;

  kvref_kv_store_args_init(&kv);
  CHECK(KV_STORE(&kv) == KVREF_ERROR_NULL_POINTER);
  kv.key = kv.value = table;
  kv.key_cache = kv.value_cache = table;
  kv.slot_mapping = slots;
  kv.num_blocks = 1;
  kv.block_size = 1;
  kv.num_heads = 1;
  kv.head_size = 0;
  CHECK(KV_STORE(&kv) == KVREF_ERROR_INVALID_VALUE);
  kv.head_size = 2;
  kv.key = (const char*)table + 1;
  CHECK(KV_STORE(&kv) == KVREF_ERROR_MISALIGNED);
  kv.key = table;
  kv.cache_dtype = KVREF_DTYPE_F32;
  CHECK(KV_STORE(&kv) == KVREF_ERROR_UNSUPPORTED);
  checks += 4;

  kvref_record_store_args_init(&rs);
  rs.src = table;
  rs.cache = table;
  rs.slot_mapping = slots;
  rs.record_bytes = 8;
  rs.num_pages = 1;
  rs.page_size = 2;
  rs.page_bytes = 8; /* < page_size * record_bytes */
  CHECK(RECORD_STORE(&rs) == KVREF_ERROR_INVALID_VALUE);
  checks += 1;

  if (failures) {
    fprintf(stderr, "c_api_test: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("c_api_test: %d checks passed\n", checks);
  return 0;
}
