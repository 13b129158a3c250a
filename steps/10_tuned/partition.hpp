// How step 10 splits the rows of C between threads.
#pragma once

namespace step10 {

// The first row of C owned by thread t of `threads` (t == threads gives m). The rows are
// shared out in whole MR-row tiles, as evenly as they go. When that boundary row does not
// start on a 64-byte cache line, it moves to a nearby row that does (if one exists within
// 8 rows), so the line holding the end of one thread's last row and the start of the next
// thread's first row is never written by both.
int first_row(int t, int threads, int m, int mr, const float* C, long ldc);

// A team of threads as a grid of row groups x column groups: thread t works on the rows of
// group t / cols and the NR-column slivers of group t % cols. Splitting the rows alone
// stops at one MR-row tile per thread (72 tiles for m = 1000: fine on 2 cores, thin on 64);
// splitting the columns too keeps each thread's share of C close to square. The price of a
// column group is packing its rows of A once more per group, which is small next to the
// product when the panel is wide.
struct Grid {
    int rows = 1, cols = 1;
};
// The rows x cols grid of at most `team` threads that gives the fewest tiles to the busiest
// thread, for a C of row_tiles x col_slivers tiles; on a tie, more row groups (less A packed
// twice). rows x cols is below `team` only when no grid of `team` fits the tiles.
Grid split_team(int team, int row_tiles, int col_slivers);
// The most rows of an m x n C that one row group of a team's grid holds: the m its A blocks
// are cut from (product_blocks).
int group_rows(int team, int m, int n, int mr, int nr);

}  // namespace step10
