// Step 08's micro-kernels, one per instruction set, each in its own file compiled with that
// ISA's flags. They all do the same thing on a different tile shape:
//
//     C(0..mr-1, 0..nr-1) += (packed A sliver, kc x MR) * (packed B sliver, kc x NR)
//
// a[p * MR + i] is A(i, p) and b[p * NR + j] is B(p, j): one column of the A sliver and one
// row of the B sliver per step of p, both contiguous. Rows and columns past the matrix edge
// are zero in the packed slivers, so the kernel always computes a whole MR x NR tile in
// registers; mr <= MR and nr <= NR say how much of it to add into C.
#pragma once

namespace step08 {

using MicroKernel = void (*)(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr);

#if defined(__x86_64__) || defined(_M_X64)
constexpr int kMrAvx512 = 14, kNrAvx512 = 32;   // 28 zmm accumulators of 32
void microkernel_avx512_14x32(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr);
constexpr int kMrAvx2 = 6, kNrAvx2 = 16;        // 12 ymm accumulators of 16
void microkernel_avx2_6x16(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr);
#endif
#if defined(__aarch64__)
constexpr int kMrNeon = 8, kNrNeon = 12;        // 24 q-register accumulators of 32
void microkernel_neon_8x12(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr);
#endif

}  // namespace step08
