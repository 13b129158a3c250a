// The peak meter: how many FLOPS this CPU sustains for each instruction set it has, on one
// core and on all of them, next to the textbook formula cores x GHz x FLOPs per cycle.
// Also the CPU report (tools/cpuinfo, `peak --info`). The command line is in run().
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
const Isa* find_isa(std::string_view name);

// Sustained GFLOPS: `threads` threads, each pinned to its own CPU of those this process may
// use, run the same loop for about `seconds` of their own CPU time; the best of `reps` runs.
// More threads than usable CPUs throw std::invalid_argument: two threads sharing a CPU would
// each count the CPU's whole rate. cpu_share: the lowest fraction of wall-clock time a thread
// of that run actually ran (below 1 when other processes shared the core).
struct Measurement {
    double gflops = 0;
    double cpu_share = 1;
};
Measurement measure(const Isa& isa, Precision precision, int threads, double seconds, int reps);

// The formula's inputs. FLOPs per cycle per core comes from the microarchitecture table
// (gemm::cpu::classify), which CPUID cannot replace. Where the table does not know the core,
// or the part decides (one or two 512-bit FMA units), the 512-bit figure is inferred from
// the measured 512-bit / 256-bit ratio (avx512_over_avx2; 0 = not measured).
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

// The clock the cores run at while busy: `threads` pinned threads each time a chain of
// dependent integer adds (one a cycle) at two lengths, on their own CPU time, and take the
// difference, so the fixed cost of starting drops out; the median of `trials` such pairs per
// thread, averaged over the threads. About 8 x `seconds` of CPU time per thread.
Frequency measure_clock(int threads, double seconds, int trials = 5);

// How many distinct physical cores the first `threads` of gemm::cpu::allowed_cpus()
// (wrapping) cover: SMT siblings share one core's FMA pipes.
int physical_cores(int threads);

struct Row {
    std::string isa;
    Precision precision;
    int threads;
    double gflops;
    double theoretical;    // 0 when the frequency is unknown
};
void write_csv(std::ostream& out, const std::vector<Row>& rows);   // isa,precision,threads,gflops

// What bin/cpuinfo reports, gathered once: its human report, --steps and --json are all
// written from these (tools/cpuinfo; docs/contracts.md, "bin/cpuinfo").
struct StepFacts {
    const Step* step;
    const Variant* variant;   // the one it runs here; nullptr: not supported on this CPU
    struct Value {
        std::string_view name, help;
        int value;
    };
    std::vector<Value> params;   // the params in effect here (Param::in_effect), their values now
    bool has_tuned = false;      // a step with values tuned on this machine (step 10's wisdom)
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

// The CPU report: name, features and where they come from, cores, frequency, caches and
// the block sizes every registered step with tunables uses here (from gemm::steps()).
void cpu_report(std::ostream& out);

// The whole command line of bin/peak; returns the exit status: 0, 2 for a usage error or 3
// when the CSV cannot be written, with one line on `err`; 77 when no instruction set runs.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace gemm::peak
