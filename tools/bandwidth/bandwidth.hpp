// The bandwidth meter: the bytes per second one core, and all, sustain reading (a sum) and in
// STREAM's triad (a = b + s*c), per level of the memory hierarchy: the roofline's memory roofs.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace gemm::bandwidth {

enum class Kind { read, triad };
std::string_view to_string(Kind kind);

// The widest vector loads this CPU has, which the meter uses ("avx512", "avx", "sse", "neon",
// "generic"): an L1 figure is then what a kernel of that instruction set can load.
std::string_view isa();

// A working set (bytes per thread, all arrays) squarely inside each level: half of L1d, half of
// L2, halfway (log scale) from L2 to this thread's share of L3, four times L3 (at least 64 MiB)
// for DRAM. A level the CPU does not report is left out, as is one the memory cannot hold (`why`).
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

// Sustained GB/s (1e9 bytes/s): `threads` pinned threads, each with its own arrays (touched
// first by it), run the loop in windows of about 2 ms (at least one pass), all starting each
// window together, for about `seconds`; the best window counts, as most windows on a shared
// machine see no other process. A set that fits L2 is spread over three sets of arrays (L2
// indexes by physical address: one set of pages can crowd some of its sets). Bytes as STREAM
// counts them (triad: 12 per element), without a store's write-allocate read.
struct Measurement {
    double gbps = 0;
    long bytes = 0;      // the working set per thread actually used (rounded to whole chunks)
    long windows = 0;
    int placements = 0;  // sets of arrays the windows were spread over
};
// The threads' arrays are kept for the next call (not thread-safe: one call at a time).
Measurement measure(Kind kind, long bytes, int threads, double seconds);

// bin/bandwidth's command line; the exit status: 0, 2 usage error (one line on `err`), 3 out of
// memory or CSV not writable.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gemm::bandwidth
