#include "partition.hpp"

#include <cstdint>

namespace step10 {

int first_row(int t, int threads, int m, int mr, const float* C, long ldc) {
    if (t <= 0) return 0;
    if (t >= threads) return m;
    const long tiles = (m + mr - 1) / mr;
    const int row = static_cast<int>(tiles * t / threads) * mr;   // whole tiles per thread
    const auto starts_a_line = [&](long r) {
        return reinterpret_cast<std::uintptr_t>(C + r * ldc) % 64 == 0;
    };
    if (row >= m || starts_a_line(row)) return row < m ? row : m;
    // Two tile-aligned boundaries are at least `gap` rows apart; moving each by less than
    // half of that keeps every thread's range non-empty and in order. A row starting a line
    // recurs at least every 16 rows, so +-8 finds one whenever one exists.
    const long gap = tiles / threads * mr;
    const long reach = (gap - 1) / 2 < 8 ? (gap - 1) / 2 : 8;
    for (int d = 1; d <= reach; ++d) {
        if (starts_a_line(row - d)) return row - d;
        if (row + d < m && starts_a_line(row + d)) return row + d;
    }
    return row;
}

Grid split_team(int team, int row_tiles, int col_slivers) {
    // The largest team up to `team` that some rows x cols grid fits (7 threads on 3 x 5
    // tiles: no grid of 7 does, 6 = 3 x 2 does).
    for (int size = team; size > 1; --size) {
        Grid best{};
        long best_load = -1;
        for (int rows = size; rows >= 1; --rows) {
            if (size % rows != 0) continue;
            const int cols = size / rows;
            if (rows > row_tiles || cols > col_slivers) continue;
            const long load = static_cast<long>((row_tiles + rows - 1) / rows) * ((col_slivers + cols - 1) / cols);
            if (best_load < 0 || load < best_load) {
                best = {rows, cols};
                best_load = load;
            }
        }
        if (best_load >= 0) return best;
    }
    return {1, 1};
}

int group_rows(int team, int m, int n, int mr, int nr) {
    const int row_tiles = (m + mr - 1) / mr, rows = split_team(team, row_tiles, (n + nr - 1) / nr).rows;
    const int most = (row_tiles + rows - 1) / rows * mr;
    return most < m ? most : m;
}

}  // namespace step10
