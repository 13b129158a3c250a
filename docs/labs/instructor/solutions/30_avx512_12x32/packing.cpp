// Packing: the micro-kernel then walks both slivers with unit stride, whatever lda and ldb
// are, and edge tiles need no special case because the padding is zero.
#include "packing.hpp"

namespace step30 {

void pack_a(int mc, int kc, const float* A, int lda, int mr, float* packed) {
    for (int i0 = 0; i0 < mc; i0 += mr) {
        const int rows = mc - i0 < mr ? mc - i0 : mr;
        // Read each row of the sliver front to back (unit stride in A), write it as a column
        // of the sliver (stride mr in the packed buffer: the mr rows fill each line in turn).
        // >>> pack-a
        for (int i = 0; i < rows; ++i) {
            const float* a = A + static_cast<long>(i0 + i) * lda;
            for (int p = 0; p < kc; ++p) packed[p * mr + i] = a[p];
        }
        // <<< pack-a
        for (int i = rows; i < mr; ++i)
            for (int p = 0; p < kc; ++p) packed[p * mr + i] = 0.0f;
        packed += static_cast<long>(mr) * kc;
    }
}

void pack_b(int kc, int nc, const float* B, int ldb, int nr, float* packed) {
    for (int j0 = 0; j0 < nc; j0 += nr) {
        const int cols = nc - j0 < nr ? nc - j0 : nr;
        // A row of the sliver is nr consecutive floats of a row of B: a straight copy.
        for (int p = 0; p < kc; ++p) {
            const float* b = B + static_cast<long>(p) * ldb + j0;
            float* dst = packed + p * nr;
            for (int j = 0; j < cols; ++j) dst[j] = b[j];
            for (int j = cols; j < nr; ++j) dst[j] = 0.0f;
        }
        packed += static_cast<long>(nr) * kc;
    }
}

}  // namespace step30
