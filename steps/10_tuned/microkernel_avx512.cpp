// The AVX-512 micro-kernel: a 14 x 32 tile of C lives in 28 zmm registers for the whole
// depth kc of the packed slivers. Per step of p (outer-product form):
//
//     b0, b1  = B(p, 0..15), B(p, 16..31)          two 16-wide loads of the B sliver
//     for i in 0..13:
//         c[i][0] += A(i, p) * b0                  A(i, p) broadcast to 16 lanes, straight
//         c[i][1] += A(i, p) * b1                  from memory ({1to16}) inside the FMA
//
// 28 FMAs (448 multiply-adds) per step for 2 vector loads. 28 accumulators + 2 B registers
// leave 2 of the 32 zmm registers spare. A zmm FMA has a latency of 4 cycles and Zen 4
// issues one per cycle (two 256-bit halves), so 28 independent chains keep it busy.
//
// This file holds the packed kernel and its edge tiles; the copying variant, the unpacked
// (direct) kernel, the narrow strips and the ablation study's kernels have files of their own
// (microkernel_avx512_*.cpp), the shared pieces are in avx512_tile.hpp.
#include "avx512_tile.hpp"

namespace step10 {
namespace {

// An edge tile of ROWS rows and nr columns: whole zmm vectors for the first 16 or 32
// columns, a ymm strip for a rest of up to 8.
template <int ROWS, int OP>
void edge(int kc, const float* a, const float* b, float* c, long ldc, int nr, const float* b_next) {
    if (nr > 24) return tile<ROWS, 2, OP>(kc, a, b, c, ldc, nr, b_next);
    if (nr > 16) {
        tile<ROWS, 1, OP>(kc, a, b, c, ldc, 16, b_next);
        return tile8<ROWS>(kc, a, b + 16, c + 16, ldc, nr - 16);
    }
    if (nr > 8) return tile<ROWS, 1, OP>(kc, a, b, c, ldc, nr, b_next);
    tile8<ROWS>(kc, a, b, c, ldc, nr);
}

// The whole packed kernel in one multiply-add form: the common case first; then one
// instance per row count.
template <int OP>
void packed_kernel(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr, const float* b_next) {
    if (mr == kMrAvx512 && nr == kNrAvx512) return tile<14, 2, OP>(kc, a, b, c, ldc, nr, b_next);
    switch (mr) {
#define EDGE_TILE(R) case R: return edge<R, OP>(kc, a, b, c, ldc, nr, b_next);
        EDGE_TILE(1) EDGE_TILE(2) EDGE_TILE(3) EDGE_TILE(4) EDGE_TILE(5) EDGE_TILE(6) EDGE_TILE(7)
        EDGE_TILE(8) EDGE_TILE(9) EDGE_TILE(10) EDGE_TILE(11) EDGE_TILE(12) EDGE_TILE(13) EDGE_TILE(14)
#undef EDGE_TILE
        default: return;
    }
}

}  // namespace

void microkernel_avx512_14x32(int kc, const float* a, const float* b, float* c, long ldc,
                              int mr, int nr, const float* b_next) {
    packed_kernel<kFoldedFma>(kc, a, b, c, ldc, mr, nr, b_next);
}
void microkernel_avx512_14x32_broadcast(int kc, const float* a, const float* b, float* c, long ldc,
                                        int mr, int nr, const float* b_next) {
    packed_kernel<kBroadcastFma>(kc, a, b, c, ldc, mr, nr, b_next);
}

}  // namespace step10
