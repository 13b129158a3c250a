// How step 09 splits the rows of C between threads.
#pragma once

namespace step09 {

// The first row of C owned by thread t of `threads` (t == threads gives m). The rows are
// shared out in whole MR-row tiles, as evenly as they go. When that boundary row does not
// start on a 64-byte cache line, it moves to a nearby row that does (if one exists within
// 8 rows), so the line holding the end of one thread's last row and the start of the next
// thread's first row is never written by both.
int first_row(int t, int threads, int m, int mr, const float* C, long ldc);

}  // namespace step09
