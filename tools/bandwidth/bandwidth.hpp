// The bandwidth meter: how many bytes per second one core, and all of them, sustain when
// reading (a sum) and in STREAM's triad (a = b + s*c), for working sets sized to sit in
// each level of the memory hierarchy, L1 to DRAM. The roofline's memory roofs (docs/roofline.md).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace gemm::bandwidth {

enum class Kind { read, triad };
std::string_view to_string(Kind kind);

// The widest vector loads this CPU has ("avx512", "avx", "sse", "neon", "generic"): the
// meter uses them, so an L1 figure is what a kernel of that instruction set can load.
std::string_view isa();

// A working set (bytes per thread, all arrays together) squarely inside one level: half of
// L1d, half of L2, halfway (log scale) between L2 and this thread's share of L3, four times
// the L3 (or 64 MiB at least) for DRAM. Levels the CPU does not report are left out; DRAM is left out when the
// memory available cannot hold it (`why` then says so).
struct Level {
    std::string name;   // "L1", "L2", "L3", "DRAM"
    long bytes;
};
struct Levels {
    std::vector<Level> levels;
    std::string why;    // empty, or why a level is missing
};
Levels level_points(int threads);

// 4 KiB, 16 KiB, 64 KiB ... (x 4) up to the DRAM point, with the level points.
std::vector<long> sweep_sizes(int threads);

// The level a working set of `bytes` per thread fits in (the L3 counted as shared).
std::string level_of(long bytes, int threads);

// Sustained GB/s (1e9 bytes per second): `threads` threads, each pinned to its own CPU and
// with its own arrays (touched first by that thread), run the loop over their working set
// in timed windows of about 2 ms (at least one pass), all threads starting each window
// together, for about `seconds`; the best window counts. Short windows, best kept: on a
// shared machine most windows see no other process. A set that fits L2 (up to 64 MiB) is
// measured on three sets of arrays in turn (placements: L2 indexes by physical address, and
// one set of pages can crowd some of its sets). Bytes are counted as STREAM does: the bytes
// the loop reads and writes (triad: 12 per element), not the line a store's
// write-allocate reads in addition.
struct Measurement {
    double gbps = 0;
    long bytes = 0;      // the working set per thread actually used (rounded to whole chunks)
    long windows = 0;
    int placements = 0;  // sets of arrays the windows were spread over
};
// The threads' arrays are kept for the next call (not thread-safe: one call at a time).
Measurement measure(Kind kind, long bytes, int threads, double seconds);

struct Row {
    Kind kind;
    long bytes;
    int threads;
    double gbps;
    std::string level;   // the level this row is the point of, or "" for a sweep point
};
// kind,bytes,threads,gbps,level,isa
void write_csv(std::ostream& out, const std::vector<Row>& rows);

// The whole command line of bin/bandwidth; returns the exit status (0; 2 for a usage
// error, with one line on `err`; 3 when the CSV cannot be written).
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gemm::bandwidth
