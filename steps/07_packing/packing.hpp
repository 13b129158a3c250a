// Step 07's packing routines (packing.cpp). They have external linkage so that
// tests/test_packing.cpp can check the packed layout element by element.
#pragma once

namespace step07 {

// Packed slivers are 4 rows of A or 4 columns of B wide: the 4x4 micro-kernel's shape.
constexpr int sliver = 4;

// Copies the mc x kc block of A (row-major, leading dimension lda) into packed, as
// ceil(mc / 4) slivers of 4 rows one after the other. Sliver s holds, for p = 0 .. kc-1,
// the four values A(4s, p), A(4s+1, p), A(4s+2, p), A(4s+3, p): what the micro-kernel
// broadcasts at step p, in the order it needs them. Rows past mc are zeros.
// packed must hold ceil(mc / 4) * 4 * kc floats.
void pack_a(int mc, int kc, const float* A, int lda, float* packed);

// Copies the kc x nc panel of B (row-major, leading dimension ldb) into packed, as
// ceil(nc / 4) slivers of 4 columns one after the other. Sliver s holds, for p = 0 .. kc-1,
// the four values B(p, 4s .. 4s+3): the micro-kernel's one load at step p. Columns past nc
// are zeros. packed must hold ceil(nc / 4) * 4 * kc floats.
void pack_b(int kc, int nc, const float* B, int ldb, float* packed);

}  // namespace step07
