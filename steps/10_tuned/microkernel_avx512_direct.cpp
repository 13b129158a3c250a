// The AVX-512 14 x 32 tile read straight from A and B, unpacked, for small matrices (README:
// "Small matrices"), and the ablation study's form of it (README: "What each trick buys"),
// which shares its tile instances; the pieces are in avx512_direct.hpp.
#include "avx512_direct.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace step10 {
namespace {

template <int ROWS>
void edge_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    if (nr > 24) return tile_direct<ROWS, 2>(k, a, lda, b, ldb, c, ldc, nr);
    if (nr > 16) {
        tile_direct<ROWS, 1>(k, a, lda, b, ldb, c, ldc, 16);
        return tile8_direct<ROWS>(k, a, lda, b + 16, ldb, c + 16, ldc, nr - 16);
    }
    if (nr > 8) return tile_direct<ROWS, 1>(k, a, lda, b, ldb, c, ldc, nr);
    tile8_direct<ROWS>(k, a, lda, b, ldb, c, ldc, nr);
}

template <int ROWS, int OP>
void edge_direct_ablated(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr,
                         bool strips) {
    if (nr > 24 || (!strips && nr > 16)) return tile_direct<ROWS, 2, OP>(k, a, lda, b, ldb, c, ldc, nr);
    if (nr > 16) {
        tile_direct<ROWS, 1, OP>(k, a, lda, b, ldb, c, ldc, 16);
        return tile8_direct<ROWS>(k, a, lda, b + 16, ldb, c + 16, ldc, nr - 16);
    }
    if (nr > 8 || !strips) return tile_direct<ROWS, 1, OP>(k, a, lda, b, ldb, c, ldc, nr);
    tile8_direct<ROWS>(k, a, lda, b, ldb, c, ldc, nr);
}

template <int OP>
void sub_tile_direct(int rows, int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr,
                     bool strips) {
    switch (rows) {
#define ROWS_CASE(R) case R: return edge_direct_ablated<R, OP>(k, a, lda, b, ldb, c, ldc, nr, strips);
        ROWS_CASE(1) ROWS_CASE(2) ROWS_CASE(3) ROWS_CASE(4) ROWS_CASE(5) ROWS_CASE(6) ROWS_CASE(7)
        ROWS_CASE(8) ROWS_CASE(9) ROWS_CASE(10) ROWS_CASE(11) ROWS_CASE(12) ROWS_CASE(13) ROWS_CASE(14)
#undef ROWS_CASE
        default: return;
    }
}

// The unpacked kernel with one setting.
template <int OP, bool STRIPS, int ROWS, int COLS>
void ablated_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int mr, int nr) {
    for (int i0 = 0; i0 < mr; i0 += ROWS) {
        const int rows = mr - i0 < ROWS ? mr - i0 : ROWS;
        for (int j0 = 0; j0 < nr; j0 += COLS) {
            const int cols = nr - j0 < COLS ? nr - j0 : COLS;
            sub_tile_direct<OP>(rows, k, a + i0 * lda, lda, b + j0, ldb, c + i0 * ldc + j0, ldc, cols, STRIPS);
        }
    }
}

// Entry i of the table: rows 1..14 and cols 16 or 32 fastest, then strips and the
// multiply-add form, as microkernel_avx512_ablated_direct counts them.
template <std::size_t... I>
constexpr auto direct_table(std::index_sequence<I...>) {
    constexpr int per_form = 2 * kRowCounts * kColCounts;
    return std::array<DirectKernel, sizeof...(I)>{
        ablated_direct<static_cast<int>(I / per_form), (I / (kRowCounts * kColCounts)) % 2 != 0,
                       static_cast<int>(I / kColCounts % kRowCounts) + 1, 16 * static_cast<int>(I % kColCounts + 1)>...};
}
constexpr auto kDirect = direct_table(std::make_index_sequence<4 * 2 * kRowCounts * kColCounts>{});

}  // namespace

void microkernel_avx512_14x32_direct(int k, const float* a, long lda, const float* b, long ldb,
                                     float* c, long ldc, int mr, int nr) {
    switch (mr) {
#define EDGE_TILE(R) case R: return edge_direct<R>(k, a, lda, b, ldb, c, ldc, nr);
        EDGE_TILE(1) EDGE_TILE(2) EDGE_TILE(3) EDGE_TILE(4) EDGE_TILE(5) EDGE_TILE(6) EDGE_TILE(7)
        EDGE_TILE(8) EDGE_TILE(9) EDGE_TILE(10) EDGE_TILE(11) EDGE_TILE(12) EDGE_TILE(13) EDGE_TILE(14)
#undef EDGE_TILE
        default: return;
    }
}

DirectKernel microkernel_avx512_ablated_direct(const AblatedTile& s) {
    const std::size_t op = static_cast<std::size_t>(s.op & 3);
    return kDirect[(op * 2 + s.strips) * kRowCounts * kColCounts + tile_index(s)];
}

}  // namespace step10
