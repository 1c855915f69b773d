// Launch facts for HIP: hipLaunchKernelGGL(kernel, grid, block, shmem,
// stream, args...) and the amdgcn workgroup-id builtins.
// RUN: %if kvlint %{ %kvlint --dump-ir %s > %t || true %}
// RUN: %if kvlint %{ FileCheck %s < %t %}
#include <hip/hip_runtime.h>

// CHECK-LABEL: function rows (hip, kernel)
// CHECK-DAG: (LaunchIdx:u32 blockIdx.x @num_rows)
// CHECK-DAG: (Param:i32 stride @hidden_size)
__global__ void rows(float *out, int stride) { out[hipBlockIdx_x * stride] = 0.f; }

// CHECK-LABEL: function wg (hip, kernel)
// CHECK-DAG: (LaunchIdx:u32 __builtin_amdgcn_workgroup_id_y @n/64)
// CHECK-DAG: (Param:i32 stride [4096,4096])
__global__ void wg(float *out, int stride) {
  out[__builtin_amdgcn_workgroup_id_y() * stride] = 0.f;
}

void launch(float *out, int num_rows, int hidden_size, int n, hipStream_t stream) {
  hipLaunchKernelGGL(rows, dim3(num_rows), dim3(256), 0, stream, out, hidden_size);
  hipLaunchKernelGGL(wg, dim3(1, (n + 63) / 64), dim3(64), 0, stream, out, 4096);
}
