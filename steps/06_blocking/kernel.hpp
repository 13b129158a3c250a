// Step 06's kernels, one per instruction set (kernel_sse.cpp on x86-64, kernel_neon.cpp
// on AArch64), and the block sizes they use, chosen in kernel.cpp.
#pragma once

namespace step06 {

int kc();   // depth of a block: columns of A, rows of B
int mc();   // rows of A in a block

void gemm_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc);
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

}  // namespace step06
