// The ablation study's packed micro-kernel (README: "What each trick buys"; its unpacked form
// is in microkernel_avx512_direct.cpp, with the tiles it shares). It takes the tile apart
// along the AVX-512 kernel's switches: sub-tiles of rows x cols inside the packed 14 x 32
// slivers, the multiply-add in the form --no-fma / --fold ask for, the C prefetch and the ymm
// edge strips on or off. The step itself never calls it: tiles.cpp picks it only when one of
// these switches is set. Each setting is an instance of its own, picked from a table, so a
// kernel's settings are compile-time constants and nothing is read from outside its arguments.
#include "avx512_tile.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace step10 {
namespace {

template <int ROWS, int OP>
void edge_ablated(int kc, const float* a, const float* b, float* c, long ldc, int nr, bool strips,
                  const float* b_next) {
    if (nr > 24 || (!strips && nr > 16)) return tile<ROWS, 2, OP, false>(kc, a, b, c, ldc, nr, b_next);
    if (nr > 16) {
        tile<ROWS, 1, OP, false>(kc, a, b, c, ldc, 16, b_next);
        return tile8<ROWS>(kc, a, b + 16, c + 16, ldc, nr - 16);
    }
    if (nr > 8 || !strips) return tile<ROWS, 1, OP, false>(kc, a, b, c, ldc, nr, b_next);
    tile8<ROWS>(kc, a, b, c, ldc, nr);
}

// One instance per row count and multiply-add form.
template <int OP>
void sub_tile(int rows, int kc, const float* a, const float* b, float* c, long ldc, int nr, bool strips,
              const float* b_next) {
    switch (rows) {
#define ROWS_CASE(R) case R: return edge_ablated<R, OP>(kc, a, b, c, ldc, nr, strips, b_next);
        ROWS_CASE(1) ROWS_CASE(2) ROWS_CASE(3) ROWS_CASE(4) ROWS_CASE(5) ROWS_CASE(6) ROWS_CASE(7)
        ROWS_CASE(8) ROWS_CASE(9) ROWS_CASE(10) ROWS_CASE(11) ROWS_CASE(12) ROWS_CASE(13) ROWS_CASE(14)
#undef ROWS_CASE
        default: return;
    }
}

// The packed kernel with one setting: ROWS x COLS sub-tiles, multiply-add OP.
template <int OP, bool PREFETCH, bool STRIPS, int ROWS, int COLS>
void ablated(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr, const float* b_next) {
    if (!PREFETCH) b_next = nullptr;
    for (int i0 = 0; i0 < mr; i0 += ROWS) {
        const int rows = mr - i0 < ROWS ? mr - i0 : ROWS;
        for (int j0 = 0; j0 < nr; j0 += COLS) {
            const int cols = nr - j0 < COLS ? nr - j0 : COLS;
            float* ct = c + i0 * ldc + j0;
            if (PREFETCH)
                for (int i = 0; i < rows; ++i) {
                    _mm_prefetch(reinterpret_cast<const char*>(ct + i * ldc), _MM_HINT_T1);
                    _mm_prefetch(reinterpret_cast<const char*>(ct + i * ldc + cols - 1), _MM_HINT_T1);
                }
            // the sub-tile's rows and columns of the packed slivers
            sub_tile<OP>(rows, kc, a + i0, b + j0, ct, ldc, cols, STRIPS, b_next);
        }
    }
}

// Entry i of the table: rows 1..14 and cols 16 or 32 fastest, then strips, prefetch and the
// multiply-add form, as microkernel_avx512_ablated counts them.
template <std::size_t... I>
constexpr auto packed_table(std::index_sequence<I...>) {
    constexpr int per_form = 4 * kRowCounts * kColCounts;
    return std::array<MicroKernel, sizeof...(I)>{
        ablated<static_cast<int>(I / per_form), (I / (2 * kRowCounts * kColCounts)) % 2 != 0,
                (I / (kRowCounts * kColCounts)) % 2 != 0, static_cast<int>(I / kColCounts % kRowCounts) + 1,
                16 * static_cast<int>(I % kColCounts + 1)>...};
}
constexpr auto kPacked = packed_table(std::make_index_sequence<4 * 4 * kRowCounts * kColCounts>{});

}  // namespace

MicroKernel microkernel_avx512_ablated(const AblatedTile& s) {
    const std::size_t op = static_cast<std::size_t>(s.op & 3);
    return kPacked[((op * 2 + s.prefetch) * 2 + s.strips) * kRowCounts * kColCounts + tile_index(s)];
}

}  // namespace step10
