// Step 05's kernels, one per instruction set. Each lives in a file compiled only for its
// architecture (simd_4x4_sse.cpp on x86-64, simd_4x4_neon.cpp on AArch64); simd_4x4.cpp
// registers the one that exists.
#pragma once

namespace step05 {

void simd_4x4_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc);
void simd_4x4_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

}  // namespace step05
