/* kvref/kvref_cpu.h - CPU reference implementation of the kvref API (host pointers).
 *
 * Same argument structs and semantics as kvref.h, every pointer a host pointer.  Used by the
 * tests as the oracle for the GPU kernels, and usable by engines' own CPU tests (kvref::cpu).
 */
#ifndef KVREF_KVREF_CPU_H
#define KVREF_KVREF_CPU_H

#include "kvref/kvref.h"

#ifdef __cplusplus
extern "C" {
#endif

kvref_status kvref_cpu_slot_mapping(const kvref_slot_mapping_args* args);
kvref_status kvref_cpu_kv_store(const kvref_kv_store_args* args);
kvref_status kvref_cpu_record_store(const kvref_record_store_args* args);

/* Scalar conversions used by the kernels (bit-exact on host and device). */
float kvref_half_to_float(uint16_t bits);
float kvref_bfloat16_to_float(uint16_t bits);
uint16_t kvref_float_to_half(float value);     /* round to nearest even */
uint16_t kvref_float_to_bfloat16(float value); /* round to nearest even */
uint8_t kvref_float_to_fp8_e4m3(float value);  /* RNE, saturating to +-448, NaN -> 0x7f */
float kvref_fp8_e4m3_to_float(uint8_t bits);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KVREF_KVREF_CPU_H */
