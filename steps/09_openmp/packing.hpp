// Packing for step 09, step 08's unchanged but for the namespace: copy a block of A or B
// into the order the micro-kernel reads it.
#pragma once

namespace step09 {

// Rows 0..mc-1, columns 0..kc-1 of A into ceil(mc / mr) slivers of mr rows. Sliver s holds
// A(s*mr + i, p) at packed[s*mr*kc + p*mr + i]; rows past mc are zeros.
void pack_a(int mc, int kc, const float* A, int lda, int mr, float* packed);

// Rows 0..kc-1, columns 0..nc-1 of B into ceil(nc / nr) slivers of nr columns. Sliver s holds
// B(p, s*nr + j) at packed[s*nr*kc + p*nr + j]; columns past nc are zeros.
void pack_b(int kc, int nc, const float* B, int ldb, int nr, float* packed);

}  // namespace step09
