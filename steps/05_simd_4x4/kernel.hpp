// Step 05's kernels, one per instruction set. Each lives in a file compiled only for its
// architecture (kernel_sse.cpp on x86-64, kernel_neon.cpp on AArch64); kernel.cpp
// registers the one that exists.
#pragma once

namespace step05 {

void gemm_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc);
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

}  // namespace step05
