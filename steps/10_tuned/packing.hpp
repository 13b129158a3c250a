// Packing for step 10: copy a block of A or B into the order the micro-kernel reads it.
#pragma once

namespace step10 {

// Rows 0..mc-1, columns 0..kc-1 of A into ceil(mc / mr) slivers of mr rows. Sliver s holds
// A(s*mr + i, p) at packed[s*mr*kc + p*mr + i]; rows past mc are zeros.
void pack_a(int mc, int kc, const float* A, int lda, int mr, float* packed);

// Rows 0..kc-1, columns 0..nc-1 of B into ceil(nc / nr) slivers of nr columns. Sliver s holds
// B(p, s*nr + j) at packed[s*nr*kc + p*nr + j]; columns past nc are zeros.
void pack_b(int kc, int nc, const float* B, int ldb, int nr, float* packed);

// Columns 0..nr-1 (nr <= 4) of rows 0..k-1 of B laid out along k, for the narrow-strip kernel:
// packed[j * kpad + p] = B(p, j), j < 4, kpad = narrow_depth(k) (k rounded up to 16); rows
// nr..3 and the entries past k are zeros.
void pack_b_narrow(int k, int nr, const float* B, int ldb, float* packed);

#if defined(__x86_64__) || defined(_M_X64)
// The same two with AVX-512 (packing_avx512.cpp) for the 14 x 32 kernel, and with AVX2
// (packing_avx2.cpp) for the 6 x 16 kernel; other shapes fall back to the plain loops.
void pack_a_avx512(int mc, int kc, const float* A, int lda, int mr, float* packed);
void pack_b_avx512(int kc, int nc, const float* B, int ldb, int nr, float* packed);
void pack_a_avx2(int mc, int kc, const float* A, int lda, int mr, float* packed);
void pack_b_avx2(int kc, int nc, const float* B, int ldb, int nr, float* packed);
#endif

}  // namespace step10
