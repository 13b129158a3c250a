// Lab 2: step 07 with a 4 x 8 micro-kernel. Step 07 had one sliver width for both A and B
// (4); a 4 x 8 tile needs two: 4-row slivers of A and 8-column slivers of B.
#pragma once

namespace step20 {

// The micro-kernel's tile: MR rows of C from a 4-row sliver of A, NR columns from an
// 8-column sliver of B.
constexpr int MR = 4;
constexpr int NR = 8;

// Copies the mc x kc block of A (row-major, leading dimension lda) into packed, as
// ceil(mc / MR) slivers of 4 rows one after the other. Sliver s holds, for p = 0 .. kc-1,
// the four values A(4s, p), A(4s+1, p), A(4s+2, p), A(4s+3, p): what the micro-kernel
// broadcasts at step p, in the order it needs them. Rows past mc are zeros.
// packed must hold ceil(mc / MR) * MR * kc floats.
void pack_a(int mc, int kc, const float* A, int lda, float* packed);

// Copies the kc x nc panel of B (row-major, leading dimension ldb) into packed, as
// ceil(nc / NR) slivers of 8 columns one after the other. Sliver s holds, for p = 0 .. kc-1,
// the eight values B(p, 8s .. 8s+7): the micro-kernel's two loads at step p. Columns past nc
// are zeros. packed must hold ceil(nc / NR) * NR * kc floats.
void pack_b(int kc, int nc, const float* B, int ldb, float* packed);

int kc();   // depth of a block: columns of A, rows of B
int mc();   // rows of A in a block

// C(0..3, 0..7) += the 4 x kc sliver a times the kc x 8 sliver b (both packed, 16-byte
// aligned), but only the top-left m_valid x n_valid part of the 4 x 8 tile is written back.
void micro_kernel_sse(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);
void micro_kernel_neon(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);

}  // namespace step20
