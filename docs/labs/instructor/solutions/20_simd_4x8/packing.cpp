// Step 20's packing: copy a block of A or B into the order the micro-kernel reads it
// (the layout is drawn in kernel.cpp and specified in packing.hpp).
#include "packing.hpp"

#include <algorithm>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]

void step20::pack_a(int mc, int kc, const float* A, int lda, float* packed) {
    for (int i0 = 0; i0 < mc; i0 += MR) {
        const int rows = std::min(MR, mc - i0);
        for (int p = 0; p < kc; ++p) {
            for (int i = 0; i < rows; ++i) *packed++ = A(i0 + i, p);
            for (int i = rows; i < MR; ++i) *packed++ = 0.0f;
        }
    }
}

void step20::pack_b(int kc, int nc, const float* B, int ldb, float* packed) {
    for (int j0 = 0; j0 < nc; j0 += NR) {
        const int cols = std::min(NR, nc - j0);
        for (int p = 0; p < kc; ++p) {
            for (int j = 0; j < cols; ++j) *packed++ = B(p, j0 + j);
            for (int j = cols; j < NR; ++j) *packed++ = 0.0f;
        }
    }
}
