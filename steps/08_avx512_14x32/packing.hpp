// Step 08's packing (packing.cpp): step 07's slivers, MR rows of A or NR columns of B wide
// instead of 4, for whichever tile the CPU runs.
#pragma once

namespace step08 {

// Copies the mc x kc block of A (leading dimension lda) into packed as ceil(mc / mr) slivers:
// sliver s holds, for p = 0 .. kc-1, A(s*mr .. s*mr+mr-1, p). Rows past mc are zeros.
// packed holds ceil(mc / mr) * mr * kc floats.
void pack_a(int mc, int kc, const float* A, int lda, int mr, float* packed);

// Copies the kc x nc panel of B (leading dimension ldb) into packed as ceil(nc / nr) slivers:
// sliver s holds, for p = 0 .. kc-1, B(p, s*nr .. s*nr+nr-1). Columns past nc are zeros.
// packed holds ceil(nc / nr) * nr * kc floats.
void pack_b(int kc, int nc, const float* B, int ldb, int nr, float* packed);

}  // namespace step08
