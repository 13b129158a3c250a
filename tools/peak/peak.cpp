#include "peak.hpp"

#include "loops.hpp"
#include "meter_cli.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <latch>
#include <numeric>
#include <ostream>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

namespace gemm::peak {

std::string_view to_string(Precision p) { return p == Precision::fp32 ? "fp32" : "fp64"; }

namespace {

using meter::fixed;

#if defined(__x86_64__) || defined(_M_X64)
constexpr Isa kIsas[] = {
    {"scalar", "mulss + addss, one lane", cpu::has_sse2, loops::scalar_fp32, loops::scalar_fp64, 1.0},
    {"sse", "mulps + addps, 128-bit", cpu::has_sse2, loops::sse_fp32, loops::sse_fp64},
    {"avx", "vmulps + vaddps, 256-bit", cpu::has_avx, loops::avx_fp32, loops::avx_fp64},
    {"avx2", "vfmadd231ps, 256-bit", cpu::has_avx2_fma, loops::avx2_fp32, loops::avx2_fp64},
    {"avx512", "vfmadd231ps, 512-bit", cpu::has_avx512f, loops::avx512_fp32, loops::avx512_fp64},
};
#elif defined(__aarch64__)
constexpr Isa kIsas[] = {
    {"scalar", "fmadd, one lane", cpu::has_neon, loops::scalar_fp32, loops::scalar_fp64, 1.0},
    {"neon", "fmla, 128-bit", cpu::has_neon, loops::neon_fp32, loops::neon_fp64},
};
#else
constexpr std::span<const Isa> kIsas{};
#endif

std::string read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

using Clock = std::chrono::steady_clock;

struct Timed {
    double flops = 0;
    double seconds = 0;   // the thread's CPU time: a core taken away mid-run does not count
    double wall = 0;
};

Timed time_loop(double (*loop)(long), long iterations) {
    const auto w0 = Clock::now();
    const double t0 = cpu::thread_cpu_seconds();
    const double flops = loop(iterations);
    const double t1 = cpu::thread_cpu_seconds();
    return {flops, t1 - t0, std::chrono::duration<double>(Clock::now() - w0).count()};
}

// Iterations that take about `seconds` on the first usable CPU: a trial grown until it is long
// enough to time (10 ms, or half the target when that is shorter), then scaled.
long calibrate(double (*loop)(long), double seconds) {
    long iterations = 0;
    std::thread([&] {
        cpu::pin_current_thread(cpu::allowed_cpus()[0]);
        const double enough = std::min(0.01, seconds / 2);
        long n = 256;
        Timed t = time_loop(loop, n);
        while (t.seconds < enough && n < (1L << 40)) t = time_loop(loop, n *= 4);
        iterations = std::max(1L, static_cast<long>(static_cast<double>(n) * seconds / t.seconds));
    }).join();
    return iterations;
}

void check_threads(int threads) {
    const int usable = cpu::cores();
    if (threads < 1 || threads > usable)
        throw std::invalid_argument("peak: " + std::to_string(threads) + " threads asked for, but this process may use " +
                                    std::to_string(usable) + " CPU(s): threads sharing a CPU would count it twice");
}

// body(t) on `threads` threads, thread t pinned to the t-th usable CPU, all starting together;
// false when some thread could not be pinned.
template <class Body>
bool run_pinned(int threads, Body body) {
    const std::vector<int> cpus = cpu::allowed_cpus();
    std::latch start(threads);
    std::vector<std::thread> pool;
    std::atomic<bool> pinned{true};
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            if (!cpu::pin_current_thread(cpus[static_cast<std::size_t>(t)])) pinned = false;
            start.arrive_and_wait();
            body(t);
        });
    for (auto& th : pool) th.join();
    return pinned;
}

}  // namespace

std::span<const Isa> built_isas() { return kIsas; }

std::vector<const Isa*> available_isas() {
    std::vector<const Isa*> out;
    for (const Isa& isa : built_isas())
        if (isa.supported()) out.push_back(&isa);
    return out;
}

int physical_cores(int threads) {
    const std::vector<int> cpus = cpu::allowed_cpus();
    std::set<std::pair<std::string, std::string>> cores;
    std::set<int> used;
    for (int t = 0; t < threads; ++t) used.insert(cpus[t % cpus.size()]);
#if defined(__APPLE__)
    // No topology files: hw.physicalcpu cores carry hw.logicalcpu hardware threads.
    int physical = 0, logical = 0;
    size_t len = sizeof physical;
    if (sysctlbyname("hw.physicalcpu", &physical, &len, nullptr, 0) == 0 && physical > 0 &&
        (len = sizeof logical, sysctlbyname("hw.logicalcpu", &logical, &len, nullptr, 0) == 0) && logical >= physical)
        return std::max(1, static_cast<int>((static_cast<long>(used.size()) * physical + logical - 1) / logical));
#endif
    for (int c : used) {
        const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
        const std::string core = read_first_line(dir + "core_id");
        if (core.empty()) return static_cast<int>(used.size());   // no topology: count CPUs
        cores.insert({read_first_line(dir + "physical_package_id"), core});
    }
    return static_cast<int>(cores.size());
}

Measurement measure(const Isa& isa, Precision precision, int threads, double seconds, int reps) {
    if (!isa.supported()) throw std::logic_error("peak: " + std::string(isa.name) + " not supported");
    check_threads(threads);
    double (*loop)(long) = precision == Precision::fp32 ? isa.loop_fp32 : isa.loop_fp64;
    long iterations = calibrate(loop, seconds);
    // A run the clocks saw as no time gives no rate (the plots refuse a peak of 0): it runs
    // again, twice as long, up to 8 more times.
    Measurement best;
    for (int r = 0, extra = 0; r < reps || (!(best.gflops > 0) && extra < 8); ++r) {
        if (r >= reps) ++extra, iterations *= 2;
        // Side by side, the threads' rates add up: all FLOPs over the longest CPU time. Where
        // pinning failed two threads may have shared a CPU, and only the wall clock is safe.
        std::vector<Timed> timed(static_cast<std::size_t>(threads));
        const bool pinned = run_pinned(threads, [&](int t) { timed[static_cast<std::size_t>(t)] = time_loop(loop, iterations); });
        double flops = 0, longest = 0, share = 1;
        for (const Timed& t : timed) {
            flops += t.flops;
            longest = std::max(longest, pinned ? t.seconds : t.wall);
            if (t.wall > 0) share = std::min(share, t.seconds / t.wall);
        }
        const double gflops = longest > 0 ? flops / longest / 1e9 : 0;
        if (std::isfinite(gflops) && gflops > best.gflops) best = {gflops, share};
    }
    return best;
}

Frequency measure_clock(int threads, double seconds, int trials) {
    check_threads(threads);
    const long iterations = calibrate(loops::add_chain, seconds);
    std::vector<double> ghz(static_cast<std::size_t>(threads));
    run_pinned(threads, [&](int t) {
        std::vector<double> each;
        for (int i = 0; i < trials; ++i) {
            const Timed shorter = time_loop(loops::add_chain, iterations);
            const Timed longer = time_loop(loops::add_chain, 4 * iterations);
            const double dt = longer.seconds - shorter.seconds;
            if (dt > 0) each.push_back((longer.flops - shorter.flops) / dt / 1e9);
        }
        std::sort(each.begin(), each.end());
        ghz[static_cast<std::size_t>(t)] = each.empty() ? 0 : each[each.size() / 2];
    });
    const double mean = std::accumulate(ghz.begin(), ghz.end(), 0.0) / threads;
    if (!(mean > 0)) return {0, "not measurable here"};
    return {mean, "measured: dependent integer adds on " + std::to_string(threads) + " pinned thread" +
                      (threads > 1 ? "s" : "") + ", median of " + std::to_string(trials)};
}

FlopsPerCycle flops_per_cycle(std::string_view isa, const cpu::Microarch& core, double avx512_over_avx2) {
    const bool known = !core.name.empty();
    auto from_table = [&](double fpc) { return FlopsPerCycle{fpc, core.pipes, "table (" + core.name + ")"}; };
    if (isa == "avx512") {
        if (known && core.avx512 > 0 && !core.avx512_width_varies) return from_table(core.avx512);
        // Else the measurement decides: a 512-bit FMA at half the rate (split pipes, or one unit)
        // gives a ratio near 1, two full units near 2.
        const double avx2 = known && core.avx2 > 0 ? core.avx2 : 32;
        if (avx512_over_avx2 > 0) {
            const double units = avx512_over_avx2 > 1.5 ? 2 : 1;
            return {avx2 * units,
                    units == 2 ? "512-bit FMA at twice the 256-bit rate" : "512-bit FMA at the 256-bit rate",
                    "inferred from the measured 512/256-bit ratio " + fixed(avx512_over_avx2, 2) +
                        (known ? " (" + core.name + ": the part decides)" : " (core not in the table)")};
        }
        return {known && core.avx512 > 0 ? core.avx512 : 64, "two 512-bit FMA units assumed",
                "assumed: the 256-bit figure was not measured"};
    }
    const double fpc = isa == "scalar" ? core.scalar : isa == "sse" ? core.sse : isa == "avx" ? core.avx
                     : isa == "avx2" ? core.avx2 : isa == "neon" ? core.neon : 0;
    if (known && fpc > 0) return from_table(fpc);
    // Not in the table: the common layout of the core's vendor, said to be an assumption.
    const std::string vendor = cpu::identity().vendor;
    const bool amd = vendor == "AuthenticAMD" || vendor == "HygonGenuine";
    const std::string assumed = "assumed (core not in the table)";
    if (isa == "scalar")
        return {cpu::arch() == std::string_view("aarch64") ? 4.0 : amd ? 4.0 : 2.0,
                amd ? "two multiply and two add pipes" : "two pipes that each multiply or add", assumed};
    if (isa == "sse") return {amd ? 16.0 : 8.0, amd ? "4 lanes x (2 multiply + 2 add pipes)" : "4 lanes x 2 pipes", assumed};
    if (isa == "avx") return {amd ? 32.0 : 16.0, amd ? "8 lanes x (2 multiply + 2 add pipes)" : "8 lanes x 2 pipes", assumed};
    if (isa == "avx2") return {32, "8 lanes x 2 FMA pipes x 2 FLOPs (Haswell and later, Zen 2 and later)", assumed};
    if (isa == "neon") return {16, "4 lanes x 2 FMA pipes x 2 FLOPs (Cortex-A76, Neoverse N1)", assumed};
    return {0, "unknown instruction set", "none"};
}

Frequency os_frequency() {
#if defined(__APPLE__)
    long long hz = 0;   // Intel Macs; Apple silicon does not say
    size_t len = sizeof hz;
    if (sysctlbyname("hw.cpufrequency_max", &hz, &len, nullptr, 0) == 0 && hz > 0)
        return {static_cast<double>(hz) / 1e9, "sysctl hw.cpufrequency_max"};
#endif
    const std::string khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    if (const double v = std::atof(khz.c_str()) / 1e6; v > 0) return {v, "cpufreq cpuinfo_max_freq"};
    std::ifstream in("/proc/cpuinfo");
    double mhz = 0;
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':');
        if (line.rfind("cpu MHz", 0) == 0 && colon != std::string::npos)
            mhz = std::max(mhz, std::atof(line.c_str() + colon + 1));
    }
    if (mhz > 0) return {mhz / 1e3, "/proc/cpuinfo \"cpu MHz\" (the current clock, not the boost)"};
    return {0, "unknown (give --ghz)"};
}

namespace {

struct Options {
    double seconds = 0.25;
    int reps = 3;
    int threads = 0;           // 0: every CPU this process may use
    double ghz = 0;            // 0: ask the OS
    std::string csv;
    std::vector<const Isa*> isas;   // empty: all the CPU has
    bool info = false;
};

constexpr const char* kUsage =
    "usage: peak [--seconds S] [--reps N] [--threads N] [--isa LIST] [--ghz X] [--csv FILE]\n"
    "       peak --info\n"
    "Measures the sustained FLOPS of every instruction set this CPU has (fp32 and fp64, one\n"
    "thread and all cores, threads pinned) and prints them next to the formula\n"
    "cores x GHz x FLOPs per cycle, with the clock measured and FLOPs per cycle from the\n"
    "microarchitecture (see --info).\n"
    "  --seconds S   length of each timed run, from 0.001 to 60 (default 0.25)\n"
    "  --reps N      timed runs per figure, the best is kept (default 3)\n"
    "  --threads N   threads of the multi-threaded runs (default, and at most: every CPU this\n"
    "                process may use)\n"
    "  --isa LIST    only these, each once, e.g. avx2,avx512 (default: every one the CPU has)\n"
    "  --ghz X       clock for the formula (default: measured with dependent integer adds)\n"
    "  --csv FILE    also write isa,precision,threads,gflops to FILE (checked first, replaced\n"
    "                whole at the end; exit 3 when it cannot be written)\n"
    "  --info        print the CPU report (features, caches, the steps' block sizes) and exit\n";

// Throws gemm::UsageError; an option given twice is refused before (meter::parse_command).
Options parse(int argc, const char* const* argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--info") {
            o.info = true;
        } else if (arg == "--seconds") {   // shorter than 1 ms, the CPU clock may see no time
            o.seconds = real_option(arg, option_value(argc, argv, i), 0.001, 60);
        } else if (arg == "--reps") {
            o.reps = count_option(arg, option_value(argc, argv, i), 100);
        } else if (arg == "--threads") {
            o.threads = threads_option(arg, option_value(argc, argv, i), kPinnedThreadsPerCpu);
        } else if (arg == "--ghz") {
            o.ghz = positive_option(arg, option_value(argc, argv, i), 20);
        } else if (arg == "--csv") {
            o.csv = meter::csv_option(argc, argv, i);
        } else if (arg == "--isa") {
            const std::span<const Isa> built = built_isas();
            for (const std::string& name : list_option(arg, option_value(argc, argv, i))) {
                const auto isa = std::ranges::find(built, name, &Isa::name);
                if (isa == built.end()) throw UsageError(quoted(arg, name) + ": not an instruction set this build measures");
                if (!isa->supported()) throw UsageError(quoted(arg, name) + ": this CPU does not have it");
                o.isas.push_back(&*isa);
            }
        } else {
            throw UsageError(quoted("", arg) + ": unknown option (see --help)");
        }
    }
    return o;
}

// The lines above the table; the clock of each thread count, measured unless --ghz gives it.
std::vector<Frequency> print_header(std::ostream& out, const Options& o, const std::vector<int>& thread_counts) {
    const cpu::Microarch& core = cpu::microarch();
    const Frequency reported = os_frequency();
    auto ghz = [](const Frequency& f, const char* none) { return f.ghz > 0 ? fixed(f.ghz, 2) + " GHz" : none; };
    const bool pinned = *cpu::pinning_note() == '\0';
    out << "Peak FLOPS of " << cpu::name() << " (" << cpu::arch() << ", "
        << (core.name.empty() ? cpu::microarch_label() + ", not in the table" : core.name) << "), each figure the best of "
        << o.reps << " runs of " << o.seconds << " s (the threads' CPU time), threads "
        << (pinned ? "pinned\n" : "not pinned\n");
    if (!pinned) out << cpu::pinning_note() << "; their time is the wall clock's\n";
    // Apple silicon: the table's pipes are the performance cores'.
    if (const auto& kinds = cpu::core_kinds(); kinds.size() > 1)
        out << "cores: " << cpu::core_kinds_line(kinds) << "; the formula counts every core as a " << kinds[0].name
            << " core, too high beyond " << kinds[0].cores << " threads\n";
    std::vector<Frequency> clocks;
    for (int threads : thread_counts) {
        clocks.push_back(o.ghz > 0 ? Frequency{o.ghz, "--ghz"} : measure_clock(threads, std::min(o.seconds, 0.05)));
        if (clocks.back().ghz <= 0) clocks.back() = reported;
        out << "clock, " << threads << " thread" << (threads > 1 ? "s" : "") << ": " << ghz(clocks.back(), "unknown")
            << " [" << clocks.back().source << "]\n";
    }
    out << "the OS reports " << ghz(reported, "no clock") << " [" << reported.source << "]\n"
        << "formula = physical cores x clock x FLOPs per cycle (per ISA, below)\n\n";
    out << std::left << std::setw(8) << "isa" << std::setw(11) << "precision" << std::right
        << std::setw(8) << "threads" << std::setw(12) << "GFLOPS" << std::setw(14) << "formula"
        << std::setw(13) << "% of formula" << '\n';
    return clocks;
}

struct Table {
    std::string csv = "isa,precision,threads,gflops\n";
    std::vector<std::pair<const Isa*, FlopsPerCycle>> used;   // one-thread formula inputs, for the notes
    double lowest_share = 1;
};

// Every ISA, precision and thread count, each row printed as it is measured.
Table measure_table(std::ostream& out, const Options& o, const std::vector<const Isa*>& isas,
                    const std::vector<int>& thread_counts, const std::vector<Frequency>& clocks) {
    Table t;
    for (std::size_t c = 0; c < thread_counts.size(); ++c) {
        const int threads = thread_counts[c];
        const int cores = physical_cores(threads);
        double avx2_fp32 = 0;
        for (std::size_t i = 0; i < isas.size(); ++i) {
            const Isa& isa = *isas[i];
            for (Precision p : {Precision::fp32, Precision::fp64}) {
                const Measurement m = measure(isa, p, threads, o.seconds, o.reps);
                t.lowest_share = std::min(t.lowest_share, m.cpu_share);
                if (p == Precision::fp32 && isa.name == "avx2") avx2_fp32 = m.gflops;
                // The formula's pipes come from one core (the table, or the 512/256-bit ratio
                // measured there); more cores of the same kind have the same.
                if (p == Precision::fp32 && c == 0) {
                    const double ratio = isa.name == "avx512" && avx2_fp32 > 0 ? m.gflops / avx2_fp32 : 0;
                    t.used.emplace_back(&isa, flops_per_cycle(isa.name, cpu::microarch(), ratio));
                }
                const double fpc = t.used[i].second.fp32 * (p == Precision::fp32 ? 1 : isa.fp64_share);
                const double formula = cores * clocks[c].ghz * fpc;   // 0 when the clock is unknown
                const std::string gflops = fixed(m.gflops, 1);
                out << std::left << std::setw(8) << isa.name << std::setw(11) << to_string(p) << std::right
                    << std::setw(8) << threads << std::setw(12) << gflops << std::setw(14)
                    << (formula > 0 ? fixed(formula, 1) : "-") << std::setw(13)
                    << (formula > 0 ? fixed(100 * m.gflops / formula, 0) + "%" : "-") << std::endl;
                t.csv += std::string(isa.name) + ',' + std::string(to_string(p)) + ',' + std::to_string(threads) +
                         ',' + gflops + '\n';
            }
        }
    }
    return t;
}

void print_notes(std::ostream& out, const Table& t, int all) {
    out << "\nFLOPs per cycle per core, fp32 (fp64: half, scalar: the same); the formula counts "
        << physical_cores(all) << " physical core(s) for " << all << " thread(s):\n";
    for (const auto& [isa, f] : t.used)
        out << "  " << std::left << std::setw(7) << isa->name << std::right << std::setw(3)
            << f.fp32 << "  " << f.source << ": " << f.why << "  [loop: " << isa->instructions << "]\n";
    if (t.lowest_share < 0.9)
        out << "This machine was busy: in some runs the loop had the core only "
            << fixed(100 * t.lowest_share, 0) << "% of the wall-clock time. The figures divide by\n"
               "the threads' own CPU time, so they are what the core does while it runs the loop.\n";
    out << "A figure well below its formula: the core lowers its clock for that ISA (AVX-512 on\n"
           "some Intel cores), or another process shared the core; well above: the table is wrong\n"
           "for this core (tell us).\n";
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    Options o;
    if (const auto done = meter::parse_command("peak", kUsage, parse, argc, argv, o, out, err)) return *done;
    if (o.info) {
        cpu_report(out);
        return 0;
    }
    const std::vector<const Isa*> isas = o.isas.empty() ? available_isas() : o.isas;
    if (isas.empty()) {
        err << "peak: no instruction set this build measures is available on " << cpu::arch() << '\n';
        return 77;
    }
    OutputFile csv;
    if (!meter::open_csv("peak", o.csv, csv, err)) return 3;
    const int all = o.threads > 0 ? o.threads : cpu::cores();
    const std::vector<int> thread_counts = meter::thread_counts(all);
    const Table table = measure_table(out, o, isas, thread_counts, print_header(out, o, thread_counts));
    print_notes(out, table, all);
    return meter::write_csv("peak", o.csv, csv, table.csv, err, &out);
}

}  // namespace gemm::peak
