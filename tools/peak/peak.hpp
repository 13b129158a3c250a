// The peak meter: the FLOPS this CPU sustains per instruction set, one core and all, beside the
// formula cores x GHz x FLOPs per cycle; also the CPU report (tools/cpuinfo, `peak --info`).
#pragma once

#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gemm::peak {

enum class Precision { fp32, fp64 };
std::string_view to_string(Precision p);

// One instruction set's timed loops (loops.hpp) and what the formula assumes about it.
struct Isa {
    std::string_view name;            // the CSV's isa column: sse, avx, avx2, avx512, neon
    std::string_view instructions;    // what the loop issues, for the table's notes
    bool (*supported)();              // gemm::cpu predicate: never call a loop without it
    double (*loop_fp32)(long iterations);
    double (*loop_fp64)(long iterations);
    double fp64_share = 0.5;          // fp64 FLOPs per fp32 FLOP: half the lanes, or 1 for scalar
};
std::span<const Isa> built_isas();        // the loops compiled for this architecture
std::vector<const Isa*> available_isas(); // those this CPU can run, in built order

// GFLOPS of `threads` threads, each pinned to its own usable CPU (more threads than CPUs throw
// std::invalid_argument: a shared CPU would count twice), each running the loop for about
// `seconds` of its own CPU time; the best of `reps`.
struct Measurement {
    double gflops = 0;
    double cpu_share = 1;   // the lowest fraction of the wall clock a thread actually ran
};
Measurement measure(const Isa& isa, Precision precision, int threads, double seconds, int reps);

// FLOPs per cycle per core from the microarchitecture table (gemm::cpu::classify); where the
// table does not know, or the part decides, the 512-bit figure follows the measured
// 512-bit / 256-bit ratio (avx512_over_avx2; 0 = not measured).
struct FlopsPerCycle {
    double fp32 = 0;       // fp64: Isa::fp64_share of it
    std::string why;       // the pipes assumed
    std::string source;    // "table (Zen 4)", "inferred from the measured 512/256-bit ratio 1.97", "assumed ..."
};
FlopsPerCycle flops_per_cycle(std::string_view isa, const cpu::Microarch& core, double avx512_over_avx2 = 0);

struct Frequency {
    double ghz = 0;        // 0: unknown
    std::string source;
};
Frequency os_frequency();   // cpufreq's cpuinfo_max_freq, else /proc/cpuinfo "cpu MHz"

// The busy clock: `threads` pinned threads time dependent integer adds (one a cycle) at two
// lengths on their own CPU time, the difference dropping the start-up cost; the median of
// `trials` pairs per thread, averaged over the threads (about 8 x `seconds` each).
Frequency measure_clock(int threads, double seconds, int trials = 5);

// The physical cores under the first `threads` usable CPUs (wrapping): SMT siblings share pipes.
int physical_cores(int threads);

// What bin/cpuinfo reports, gathered once for its report, --steps and --json (docs/contracts.md).
struct StepFacts {
    const Step* step;
    const Variant* variant;   // the one it runs here; nullptr: not supported on this CPU
    struct Value {
        std::string_view name, help;
        int value;
    };
    std::vector<Value> params;   // those in effect here (Param::in_effect), with their values now
    bool has_tuned = false;      // step 10: values tuned on this machine (its wisdom)
    TunedParams tuned;           // what a run would take (tuned_params(variant, 0))
};
std::vector<StepFacts> step_facts();

struct IsaFacts {
    const Isa* isa;
    FlopsPerCycle flops;         // fp32 per core and cycle; fp64 is isa->fp64_share of it
};
struct Context {
    std::vector<std::string_view> features;   // of those the steps use: sse2 avx fma avx2 avx512f neon
    std::string feature_source;
    int logical_cpus = 0;                     // this process may use
    int physical_cores = 0;                   // under them
    Frequency os_clock;
    std::vector<IsaFacts> isas;               // those bin/peak measures here
    std::string openblas, blis;               // the reference runners' kernel set, or why none
    std::vector<StepFacts> steps;
};
Context context();   // runs the reference runners' --kernels (fast); measures nothing

// The CPU report: name, features, cores, clock, caches and each step's block sizes here.
void cpu_report(std::ostream& out);

// bin/peak's command line; exits 0, 2 usage error, 3 CSV not writable, 77 no instruction set runs.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gemm::peak
