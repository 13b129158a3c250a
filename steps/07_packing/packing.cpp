// Step 07's packing: copy a block of A or B into the order the micro-kernel reads it
// (the layout is drawn in kernel.cpp and specified in packing.hpp).
#include "packing.hpp"

#include <algorithm>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]

// >>> pack-a
void step07::pack_a(int mc, int kc, const float* A, int lda, float* packed) {
    for (int i0 = 0; i0 < mc; i0 += sliver) {
        const int rows = std::min(sliver, mc - i0);
        for (int p = 0; p < kc; ++p) {
            for (int i = 0; i < rows; ++i) *packed++ = A(i0 + i, p);
            for (int i = rows; i < sliver; ++i) *packed++ = 0.0f;
        }
    }
}
// <<< pack-a

// >>> pack-b
void step07::pack_b(int kc, int nc, const float* B, int ldb, float* packed) {
    for (int j0 = 0; j0 < nc; j0 += sliver) {
        const int cols = std::min(sliver, nc - j0);
        for (int p = 0; p < kc; ++p) {
            for (int j = 0; j < cols; ++j) *packed++ = B(p, j0 + j);
            for (int j = cols; j < sliver; ++j) *packed++ = 0.0f;
        }
    }
}
// <<< pack-b
