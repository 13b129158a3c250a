// Packing: the micro-kernel then walks both slivers with unit stride, whatever lda and ldb
// are, and edge tiles need no special case because the padding is zero.
//
// Packing reads A and B from wherever they are (L3 or memory), once per block, and that
// costs as much as a good part of the arithmetic if done carelessly. Both routines read
// their source in long runs of consecutive addresses, which the hardware prefetchers
// recognise; pack_a also asks for the next sliver's rows while it copies this one.
#include "packing.hpp"

#include "microkernels.hpp"

namespace step10 {

void pack_a(int mc, int kc, const float* A, int lda, int mr, float* packed) {
    for (int i0 = 0; i0 < mc; i0 += mr) {
        const int rows = mc - i0 < mr ? mc - i0 : mr;
        const float* a = A + static_cast<long>(i0) * lda;
        for (int p0 = 0; p0 < kc; p0 += 16) {
            const int pe = kc - p0 < 16 ? kc : p0 + 16;
            for (int i = 0; i < rows; ++i) {
                const float* ai = a + static_cast<long>(i) * lda;
                __builtin_prefetch(ai + p0 + 64);
                for (int p = p0; p < pe; ++p) packed[p * mr + i] = ai[p];
            }
            for (int i = rows; i < mr; ++i)
                for (int p = p0; p < pe; ++p) packed[p * mr + i] = 0.0f;
        }
        packed += static_cast<long>(mr) * kc;
    }
}

void pack_b(int kc, int nc, const float* B, int ldb, int nr, float* packed) {
    const long sliver = static_cast<long>(nr) * kc;   // floats per packed sliver
    // Row by row through B, so the reads run along whole rows; each row is cut into its
    // nr-column pieces, which go to the same row of successive slivers.
    for (int p = 0; p < kc; ++p) {
        const float* b = B + static_cast<long>(p) * ldb;
        float* dst = packed + p * nr;
        int j0 = 0;
        for (; j0 + nr <= nc; j0 += nr, dst += sliver)
            for (int j = 0; j < nr; ++j) dst[j] = b[j0 + j];
        if (j0 < nc) {   // the last, partial sliver: zeros past column nc
            for (int j = 0; j < nc - j0; ++j) dst[j] = b[j0 + j];
            for (int j = nc - j0; j < nr; ++j) dst[j] = 0.0f;
        }
    }
}

void pack_b_narrow(int k, int nr, const float* B, int ldb, float* packed) {
    const long kpad = narrow_depth(k);
    for (int p = 0; p < k; ++p) {   // along B's rows, each row's nr floats to nr places
        const float* b = B + static_cast<long>(p) * ldb;
        for (int j = 0; j < nr; ++j) packed[j * kpad + p] = b[j];
    }
    for (int j = 0; j < 4; ++j)
        for (long p = j < nr ? k : 0; p < kpad; ++p) packed[j * kpad + p] = 0.0f;
}

}  // namespace step10
