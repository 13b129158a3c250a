// Step 07's block sizes (kernel.cpp) and micro-kernels, one per instruction set
// (kernel_sse.cpp on x86-64, kernel_neon.cpp on AArch64).
#pragma once

namespace step07 {

int kc();   // depth of a block: columns of A, rows of B
int mc();   // rows of A in a block

// C(0..3, 0..3) += the 4 x kc sliver a times the kc x 4 sliver b (both packed, 16-byte
// aligned), but only the top-left m_valid x n_valid part of the 4x4 tile is written back.
void micro_kernel_sse(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);
void micro_kernel_neon(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);

}  // namespace step07
