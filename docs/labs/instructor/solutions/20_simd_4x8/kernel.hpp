// Step 20's block sizes (kernel.cpp) and micro-kernels, one per instruction set
// (kernel_sse.cpp on x86-64, kernel_neon.cpp on AArch64); the tile's MR and NR are in
// packing.hpp.
#pragma once

#include "packing.hpp"

namespace step20 {

int kc();   // depth of a block: columns of A, rows of B
int mc();   // rows of A in a block

// C(0..3, 0..7) += the 4 x kc sliver a times the kc x 8 sliver b (both packed, 16-byte
// aligned), but only the top-left m_valid x n_valid part of the 4 x 8 tile is written back.
void micro_kernel_sse(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);
void micro_kernel_neon(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);

}  // namespace step20
