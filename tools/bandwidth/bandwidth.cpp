#include "bandwidth.hpp"

#include "loops.hpp"
#include "meter_cli.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <memory>
#include <new>
#include <ostream>
#include <thread>
#include <tuple>
#include <utility>

namespace gemm::bandwidth {

std::string_view to_string(Kind kind) { return kind == Kind::read ? "read" : "triad"; }

namespace {

// A timed window: short, so a shared machine leaves many untouched; long next to the clock's tick.
constexpr double kWindow = 0.002;
using Clock = std::chrono::steady_clock;

struct Loops {
    std::string_view isa;
    float (*read)(const float*, long, long);
    void (*triad)(float*, const float*, const float*, float, long, long);
};

Loops best_loops() {
#if defined(__x86_64__) || defined(_M_X64)
    if (cpu::has_avx512f()) return {"avx512", loops::avx512::read, loops::avx512::triad};
    if (cpu::has_avx()) return {"avx", loops::avx::read, loops::avx::triad};
    return {"sse", loops::sse::read, loops::sse::triad};
#elif defined(__aarch64__)
    return {"neon", loops::neon::read, loops::neon::triad};
#else
    return {"generic", loops::generic::read, loops::generic::triad};
#endif
}

constexpr long KiB = 1024, MiB = 1024 * KiB;

// Each thread's working set is kept and grown between measurements (mapping a fresh DRAM-sized
// set takes longer than measuring it); thread t, on the same CPU each time, uses regions
// t * kPlacements and up. L2 picks a line's set from physical address bits above the page, so
// one placement may crowd a few sets for the process's life: a set that fits L2 is measured on
// kPlacements regions alive at once, a third of the windows each.
constexpr int kPlacements = 3;
// No L2 is larger: a GEMM_CACHES saying otherwise must not triple a working set sized for memory.
constexpr long kMaxPlaced = 64L << 20;
struct FreeDeleter {
    void operator()(float* p) const { std::free(p); }
};
struct Region {
    std::unique_ptr<float[], FreeDeleter> data;   // 64-byte aligned (std::aligned_alloc)
    long floats = 0;
};
std::vector<Region> kept_regions;

Region& region(int t, int placement) {
    return kept_regions[static_cast<std::size_t>(t) * kPlacements + placement];
}

}  // namespace

std::string_view isa() { return best_loops().isa; }

Levels level_points(int threads) {
    const cpu::Caches& c = cpu::caches();
    const unsigned long long avail = available_memory();
    Levels out;
    // Another machine's cache sizes (GEMM_CACHES) can make a level no larger than the one before
    // (one set measured twice under two names) or larger than this memory: such a level is left out.
    auto add = [&](const std::string& name, long bytes) {
        std::string why;
        if (!out.levels.empty() && bytes <= out.levels.back().bytes)
            why = name + " left out: its working set is no larger than " + out.levels.back().name + "'s";
        else if (avail > 0 && static_cast<unsigned long long>(bytes) * threads > avail / 2)
            why = name + " left out: " + std::to_string(threads) + " x " + std::to_string(bytes / MiB) +
                  " MiB is more than half the memory available (" + std::to_string(avail / MiB) + " MiB)";
        if (why.empty()) out.levels.push_back({name, bytes});
        else out.why += (out.why.empty() ? "" : "; ") + why;
    };
    if (c.l1d > 0) add("L1", c.l1d / 2);
    if (c.l2 > 0) add("L2", std::max(c.l2 / 2, 4 * c.l1d));
    // L3 halfway (log scale): a VM, or a core far from most slices, gets less than CPUID says.
    if (c.l3 > 0) {
        const double share = static_cast<double>(c.l3) / threads;
        const long middle = static_cast<long>(std::sqrt(share * static_cast<double>(c.l2)));
        add("L3", std::max(middle / 4096 * 4096, 4 * c.l2));
    }
    add("DRAM", std::max(4 * (c.l3 > 0 ? c.l3 : c.l2) / threads, 64 * MiB));
    return out;
}

std::vector<long> sweep_sizes(int threads) {
    const Levels points = level_points(threads);
    std::vector<long> sizes;
    const long top = points.levels.empty() ? 64 * MiB : points.levels.back().bytes;
    for (long b = 4 * KiB; b < top; b *= 4) sizes.push_back(b);
    for (const Level& l : points.levels) sizes.push_back(l.bytes);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::string level_of(long bytes, int threads) {
    const cpu::Caches& c = cpu::caches();
    if (c.l1d > 0 && bytes <= c.l1d) return "L1";
    if (c.l2 > 0 && bytes <= c.l2) return "L2";
    if (c.l3 > 0 && bytes <= c.l3 / threads) return "L3";
    return "DRAM";
}

namespace {

// Thread t's regions, `span` floats each, touched first by this thread on its own CPU (so the
// pages sit near it where there are several memory nodes). False when out of memory.
bool fill_regions(int t, int placements, long span) {
    for (int p = 0; p < placements; ++p) {
        Region& r = region(t, p);
        if (r.floats < span) {
            r.data.reset();   // before the new one: never both at once
            const std::size_t size = static_cast<std::size_t>(span) * sizeof(float);
            r.data.reset(static_cast<float*>(std::aligned_alloc(64, size)));
            r.floats = r.data ? span : 0;
            if (!r.data) return false;
        }
        std::fill(r.data.get(), r.data.get() + span, 1.0f);   // finite, whatever ran before
    }
    return true;
}

// A window is the passes that take about kWindow (at least one pass); as many windows as fit
// in `seconds`, at least five (two on each placement). Returns {passes, windows}.
template <class Run>
std::pair<long, long> calibrate_windows(Run& run, int placements, double seconds) {
    for (long trial = 1;; trial *= 2) {
        const auto t0 = Clock::now();
        run(trial);
        const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
        if (dt >= kWindow || trial >= (1L << 30)) {
            const long passes = std::max(1L, static_cast<long>(static_cast<double>(trial) * kWindow / dt));
            const double window = dt * static_cast<double>(passes) / static_cast<double>(trial);
            return {passes, std::max(placements > 1 ? 2L * placements : 5L, static_cast<long>(seconds / window))};
        }
    }
}

}  // namespace

Measurement measure(Kind kind, long bytes, int threads, double seconds) {
    const Loops loops = best_loops();
    const long arrays = kind == Kind::read ? 1 : 3;
    const long n = std::max(loops::kChunk, bytes / (arrays * 4) / loops::kChunk * loops::kChunk);
    const std::vector<int> cpus = cpu::allowed_cpus();
    long passes = 1, windows = 1;                       // set by thread 0's calibration
    std::vector<std::vector<double>> elapsed;           // [window][thread], seconds
    std::atomic<bool> failed{false};
    std::barrier sync(threads);
    std::vector<float> sinks(threads);

    // The arrays lie whole 4 KiB pages and 5 lines apart: packed, a triad's loads of b and c would
    // share the low 12 address bits of recent stores to a (4K aliasing on Intel cores).
    const long spacing = (n + 1023) / 1024 * 1024 + 80;
    const long span = (arrays - 1) * spacing + n;
    const long l2 = cpu::caches().l2;
    const int placements = l2 > 0 && n * arrays * 4 <= std::min(l2, kMaxPlaced) ? kPlacements : 1;
    kept_regions.resize(std::max(kept_regions.size(), static_cast<std::size_t>(threads) * kPlacements));

    auto worker = [&](int t) {
        cpu::pin_current_thread(cpus[t % cpus.size()]);
        if (!fill_regions(t, placements, span)) failed = true;
        sync.arrive_and_wait();
        if (failed) return;
        float* a = region(t, 0).data.get();   // b and c follow it
        float sink = 0;
        auto run = [&](long count) {
            if (arrays == 1) sink += loops.read(a, n, count);
            else loops.triad(a, a + spacing, a + 2 * spacing, 3.0f, n, count);
        };
        run(1);   // warm: the pages are mapped and the working set is where it will stay
        if (t == 0) {
            std::tie(passes, windows) = calibrate_windows(run, placements, seconds);
            elapsed.assign(windows, std::vector<double>(threads));
        }
        sync.arrive_and_wait();
        for (long w = 0; w < windows; ++w) {
            const int p = static_cast<int>(w * placements / windows);
            if (w > 0 && p != static_cast<int>((w - 1) * placements / windows)) {
                a = region(t, p).data.get();
                run(1);   // the next placement's set into the cache, untimed
            }
            sync.arrive_and_wait();   // all threads start together: they share L3 and DRAM
            const auto t0 = Clock::now();
            run(passes);
            elapsed[w][t] = std::chrono::duration<double>(Clock::now() - t0).count();
        }
        sinks[t] = sink;
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
    if (failed) throw std::bad_alloc();

    Measurement best{0, n * arrays * 4, windows, placements};
    const double moved = static_cast<double>(best.bytes) * static_cast<double>(passes) * threads;
    for (const std::vector<double>& window : elapsed) {
        // The threads ran side by side: all their bytes over the longest time of any.
        const double longest = *std::max_element(window.begin(), window.end());
        if (longest > 0) best.gbps = std::max(best.gbps, moved / longest / 1e9);
    }
    return best;
}

namespace {

struct Options {
    double seconds = 0.2;
    int threads = 0;   // 0: every CPU this process may use
    bool sweep = false;
    std::vector<std::string> levels;   // empty: all
    std::string csv;
};

constexpr const char* kUsage =
    "usage: bandwidth [--seconds S] [--threads N] [--levels LIST] [--sweep] [--csv FILE]\n"
    "Measures the sustained read and triad (a = b + s*c) bandwidth of this machine, one thread\n"
    "and all cores (threads pinned, each with its own arrays), for a working set in each level\n"
    "of the memory hierarchy: half of L1d, half of L2, between L2 and L3, four times L3 (DRAM).\n"
    "  --seconds S   time per figure, in windows of ~2 ms (at least one pass over the\n"
    "                working set, at least 5 windows); the best window is kept (default 0.2)\n"
    "  --threads N   threads of the multi-threaded runs (default, and at most: every CPU this\n"
    "                process may use; two threads on one CPU would count it twice)\n"
    "  --levels LIST only these, each once, e.g. L1,L2 (default: L1,L2,L3,DRAM, those the\n"
    "                CPU has)\n"
    "  --sweep       also 4 KiB, 16 KiB, 64 KiB ... (x 4) up to the largest level's size: the curve\n"
    "  --csv FILE    also write kind,bytes,threads,gbps,level,isa to FILE (bytes: per thread)\n"
    "Exit status: 0, 2 usage error, 3 out of memory or CSV not writable.\n";

// Throws UsageError; an option given twice is refused before (meter::parse_command).
Options parse(int argc, const char* const* argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seconds") {
            o.seconds = positive_option(arg, option_value(argc, argv, i), 60);
        } else if (arg == "--threads") {
            o.threads = threads_option(arg, option_value(argc, argv, i), kPinnedThreadsPerCpu);
        } else if (arg == "--sweep") {
            o.sweep = true;
        } else if (arg == "--levels") {   // each once: a level twice would be measured twice
            for (const std::string& name : list_option(arg, option_value(argc, argv, i))) {
                if (name != "L1" && name != "L2" && name != "L3" && name != "DRAM")
                    throw UsageError(quoted(arg, name) + ": not one of L1, L2, L3, DRAM");
                o.levels.push_back(name);
            }
        } else if (arg == "--csv") {
            o.csv = meter::csv_option(argc, argv, i);
        } else {
            throw UsageError(quoted("", arg) + ": unknown option (see --help)");
        }
    }
    return o;
}

std::string human(long bytes) {
    const long unit = bytes >= MiB ? MiB : KiB;
    return meter::fixed(static_cast<double>(bytes) / static_cast<double>(unit), bytes % unit == 0 ? 0 : 1) +
           (unit == MiB ? " MiB" : " KiB");
}

void print_header(std::ostream& out, const Options& o) {
    const cpu::Caches& c = cpu::caches();
    out << "Memory bandwidth of " << cpu::name() << " (" << cpu::arch() << "), " << isa()
        << " loads and stores, threads pinned, each with its own arrays; each figure the\n"
        << "best ~2 ms window of " << o.seconds << " s (a shared machine spoils some windows, not the figure)\n"
        << "caches: L1d " << human(c.l1d) << ", L2 " << human(c.l2) << ", L3 "
        << (c.l3 > 0 ? human(c.l3) : "none") << " [" << c.source << "]; working set per thread; "
        << "GB/s = 1e9 bytes/s, triad counts 12 bytes per element (as STREAM)\n\n";
    out << std::left << std::setw(7) << "kind" << std::setw(7) << "level" << std::right << std::setw(12)
        << "bytes" << std::setw(9) << "threads" << std::setw(10) << "GB/s" << '\n';
}

// The working sets measured at this thread count: the cache levels asked for, and with
// --sweep the sizes between them.
std::vector<long> sizes_of(const Options& o, Levels& points, int threads) {
    if (!o.levels.empty())
        std::erase_if(points.levels, [&](const Level& l) {
            return std::find(o.levels.begin(), o.levels.end(), l.name) == o.levels.end();
        });
    std::vector<long> sizes;
    for (const Level& l : points.levels) sizes.push_back(l.bytes);
    if (o.sweep && !sizes.empty()) {
        const long top = sizes.back();
        for (long b : sweep_sizes(threads))
            if (b < top && std::find(sizes.begin(), sizes.end(), b) == sizes.end()) sizes.push_back(b);
        std::sort(sizes.begin(), sizes.end());
    }
    return sizes;
}

// Every row of one thread count, each printed as it is measured and added to the CSV's text.
void measure_rows(std::ostream& out, const Options& o, int threads, std::string& csv) {
    Levels points = level_points(threads);
    if (!points.why.empty()) out << "(" << points.why << ")\n";
    const std::vector<long> sizes = sizes_of(o, points, threads);
    for (Kind kind : {Kind::read, Kind::triad}) {
        for (long bytes : sizes) {
            std::string level;
            for (const Level& l : points.levels)
                if (l.bytes == bytes) level = l.name;
            const Measurement m = measure(kind, bytes, threads, o.seconds);
            const std::string gbps = meter::fixed(m.gbps, 1);
            csv += std::string(to_string(kind)) + ',' + std::to_string(m.bytes) + ',' + std::to_string(threads) + ',' +
                   gbps + ',' + level + ',' + std::string(isa()) + '\n';
            // A size between the levels shows where it falls, in brackets.
            const std::string shown = level.empty() ? '(' + level_of(m.bytes, threads).append(")") : level;
            out << std::left << std::setw(7) << to_string(kind) << std::setw(7) << shown << std::right
                << std::setw(12) << human(m.bytes) << std::setw(9) << threads << std::setw(10) << gbps
                << std::endl;
        }
    }
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    Options o;
    if (const auto done = meter::parse_command("bandwidth", kUsage, parse, argc, argv, o, out, err)) return *done;
    OutputFile csv;
    if (!meter::open_csv("bandwidth", o.csv, csv, err)) return 3;
    print_header(out, o);
    std::string text = "kind,bytes,threads,gbps,level,isa\n";
    try {
        const int all = o.threads > 0 ? o.threads : cpu::cores();
        for (int threads : meter::thread_counts(all)) measure_rows(out, o, threads, text);
    } catch (const std::bad_alloc&) {
        err << "bandwidth: out of memory for the working set\n";
        return 3;
    }
    return meter::write_csv("bandwidth", o.csv, csv, text, err, &out);
}

}  // namespace gemm::bandwidth
