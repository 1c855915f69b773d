/* kvlint CUDA prelude: what a kernel source needs to parse without the CUDA
 * toolkit's headers (clang 19 cannot parse CUDA 13's). kvlint adds it with
 * -include; pass it yourself when running the clang-tidy plugin:
 *   clang-tidy-19 --load=libkvlint-tidy.so f.cu -- -x cuda --cuda-device-only
 *     -nocudainc -nocudalib --cuda-gpu-arch=sm_90 -include <this file>
 * Only declarations: nothing here is analysed. */
#ifndef KVLINT_CUDA_PRELUDE_H
#define KVLINT_CUDA_PRELUDE_H
#define __CUDACC__ 1
#include "common.h"
#endif
