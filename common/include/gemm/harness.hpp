// The harness every step executable and reference runner shares: command line, matrices,
// verification against a double-precision reference, timing, progress lines and the CSV.
// Contract: docs/contracts.md, "The executables", "Exit status" and "The CSV".
#pragma once

#include <gemm/registry.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gemm {

// Exit codes (docs/contracts.md; 3 is for failures of the machine rather than of the kernel).
enum Exit : int {
    kExitOk = 0,           // every size verified
    kExitWrong = 1,        // some result failed verification (its CSV row says verified=0)
    kExitUsage = 2,        // bad command line: one line on stderr names the option and value
    kExitResource = 3,     // out of memory, or the CSV cannot be written
    kExitUnsupported = 77  // this CPU lacks what the step needs (ctest's SKIP code)
};

// The largest square size the harness accepts: n*n must fit in an int, because the
// kernel contract passes sizes and leading dimensions as int.
constexpr int kMaxSize = 46340;
// Above this many multiply-adds (512^3) verification samples instead of checking everything.
constexpr double kFullCheckLimit = 512.0 * 512.0 * 512.0;

struct Options {
    std::vector<int> sizes;                       // square sizes m = n = k, in order
    int reps = 3;
    int warmup = 1;
    int threads = 0;                              // 0: the step's default (1, or all cores)
    std::string csv;                              // empty: no CSV
    bool verify = true;
    std::string kernel;                           // empty: the best variant the CPU supports
    double time_limit = 0;                        // > 0: stop timing a size after this many seconds
    std::vector<std::pair<const Param*, int>> params;
};

struct ParseResult {
    Options options;
    int exit_code = -1;     // -1: go on and run; 0: --help was printed; kExitUsage: error
    std::string message;    // the usage text, or the one-line error
};

// argv[0] names the program in messages.
ParseResult parse_options(int argc, const char* const* argv, const Step& step);
std::string usage(const Step& step, const std::string& program);

// 64-byte aligned float storage. Throws std::bad_alloc when memory runs out.
struct AlignedDeleter { void operator()(float* p) const noexcept; };
using FloatBuffer = std::unique_ptr<float[], AlignedDeleter>;
FloatBuffer allocate_floats(std::size_t count);

// Reproducible values in [-1, 1): the same seed gives the same numbers on every platform.
void fill_random(float* data, std::size_t count, unsigned long long seed);

// Bytes of memory available to this process now (MemAvailable on Linux), or 0 if unknown.
unsigned long long available_memory();

// What a limit on address space leaves this process: the tighter of RLIMIT_AS and RLIMIT_DATA
// minus what it has mapped already. name is empty when neither is set.
struct AddressLimit {
    unsigned long long bytes_left = 0;
    std::string name;   // "RLIMIT_AS (ulimit -v)"
};
AddressLimit address_limit();
// The stack each new thread maps (pthreads' default: the soft RLIMIT_STACK, else 8 MiB).
unsigned long long thread_stack_bytes();

struct CheckResult {
    bool ok = true;
    double max_rel_err = 0;     // max |C - ref| / (|A||B| + |C0|) over the elements checked
    double tolerance = 0;       // the bound max_rel_err must stay under: (k + 2) * 2^-23
    bool sampled = false;       // true when only some rows and columns were compared
    std::string first_problem;  // empty when ok: "C(3, 7) = nan, expected 1.25"
};

// Checks C == C0 + A*B (C0 is C before the call), computed in double. Every element is
// scanned for NaN and Inf. Up to kFullCheckLimit multiply-adds every element is compared;
// above it, whole rows (the first, the last 16 and 16 spread between) and whole columns
// (the first, the last 33 and 16 spread between) are compared elementwise, and every row
// sum and column sum of C - C0 is compared with A*B's, which catches a wrong tile anywhere.
CheckResult check_result(int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                         const float* C0, const float* C, int ldc, bool force_full = false);

inline double gflops(int m, int n, int k, double seconds) {
    return seconds > 0 ? 2.0 * m * n * k / seconds / 1e9 : 0.0;
}

// The cpu_wait above which a timing is reported as taken on a busy machine (progress line,
// summary.md): beyond the few percent that interrupts and the OS's own threads cost.
constexpr double kBusyShare = 0.05;

struct CsvRow {
    std::string step;
    int m = 0, n = 0, k = 0, threads = 1;
    double gflops_best = 0, gflops_median = 0, seconds_best = 0, max_rel_err = 0;
    bool verified = false;
    std::string kernel;      // the variant that ran
    int reps = 0;            // timed repetitions actually run
    std::string cpu;
    std::string uarch;       // gemm::cpu::microarch_label()
    std::string params;      // the step's tunables in effect, "mc=112 kc=1168 nc=3584" ("" without)
    // Share of the timed runs' thread time spent waiting for a CPU that another program or
    // the hypervisor held (gemm::cpu::waited_share), 0 to 1; NaN where the OS does not say.
    double cpu_wait = 0;
};
// The columns in order, as the header names them: the one list the header and each line are
// written from (common/src/csv.cpp), which bin/cpuinfo --json reports as csv_columns.
std::vector<std::string_view> csv_columns();
std::string csv_header();
std::string csv_line(const CsvRow& row);
// Writes the header and one line per row to `path` through an OutputFile (<gemm/output_file.hpp>): a regular
// file is replaced atomically, a device or FIFO written through. Returns "" or the problem.
std::string write_csv(const std::string& path, const std::vector<CsvRow>& rows);

// How a reference runner's library sets and reports its own thread count (BLAS libraries
// keep their own pools, apart from OpenMP's).
struct ThreadControl {
    void (*set)(int);
    int (*get)();
};

// For a parallel step's executable: unless the user chose OpenMP's wait policy
// (OMP_WAIT_POLICY, GOMP_SPINCOUNT, KMP_BLOCKTIME), run the program again with threads that
// spin only briefly at a barrier before they sleep. The runtime reads these once, when it
// loads, hence the re-run. By default a waiting thread spins for milliseconds, and when
// another program holds one of the cores, every barrier then waits for the scheduler to give
// the spinning threads' core back, which costs a small size nearly all its speed. Returns
// only when no re-run happened (already done, chosen by the user, or exec failed).
void short_openmp_spins(char** argv);

// The whole executable: parse, check the CPU, sweep, verify, print, write the CSV.
// Threads: a parallel step runs on --threads when given, else on OpenMP's own default
// (OMP_NUM_THREADS, else every usable CPU); a serial step on one; a reference runner's
// library on --threads or 1. Either way at most max_threads(kThreadsPerCpu) (<gemm/numbers.hpp>):
// more, from --threads or OMP_NUM_THREADS, is exit 2 before anything runs. The header gives
// the plan; each progress line and the CSV's threads column what ran.
// `preface`: lines printed before the header, once the command line, GEMM_CACHES, the
// threads, the memory and the CSV's path have been checked (a reference runner's kernel set).
int run_main(int argc, char** argv, const Step& step, const ThreadControl* library_threads = nullptr,
             const std::string& preface = "");

}  // namespace gemm
