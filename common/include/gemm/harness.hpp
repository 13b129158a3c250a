// The harness every step executable and reference runner shares: command line, matrices,
// verification, timing, progress lines and the CSV.
// Contract: docs/contracts.md, "The executables", "Exit status" and "The CSV".
#pragma once

#include <gemm/registry.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gemm {

enum Exit : int {
    kExitOk = 0,           // every size verified
    kExitWrong = 1,        // some result failed verification (its CSV row says verified=0)
    kExitUsage = 2,        // bad command line: one line on stderr names the option and value
    kExitResource = 3,     // the machine, not the kernel: out of memory, or the CSV cannot be written
    kExitUnsupported = 77  // this CPU lacks what the step needs (ctest's SKIP code)
};

// The largest square size: n*n must fit in an int, the kernel contract's type for sizes.
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
    bool plan = false;                            // --plan: print each size's plan instead of running
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
// What the tighter of RLIMIT_AS and RLIMIT_DATA leaves, beyond what is mapped already.
struct AddressLimit {
    unsigned long long bytes_left = 0;
    std::string name;   // "RLIMIT_AS (ulimit -v)"; empty when neither is set
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

// Checks C == C0 + A*B (C0 is C before the call) in double; NaN or Inf anywhere fails. Above
// kFullCheckLimit multiply-adds it compares sampled rows and columns and every row and column
// sum (docs/harness.md, "Verification").
CheckResult check_result(int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                         const float* C0, const float* C, int ldc, bool force_full = false);

inline double gflops(int m, int n, int k, double seconds) {
    return seconds > 0 ? 2.0 * m * n * k / seconds / 1e9 : 0.0;
}

// The cpu_wait above which a timing was taken on a busy machine (progress line, summary.md):
// beyond the few percent that interrupts and the OS's own threads cost.
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
    double cpu_wait = 0;     // gemm::cpu::waited_share of the timed runs, 0 to 1; NaN when unknown
};
// The columns in order: the one list the header and each line are written from, which
// bin/cpuinfo --json reports as csv_columns.
std::vector<std::string_view> csv_columns();
std::string csv_header();
std::string csv_line(const CsvRow& row);
// Writes the header and the rows to `path` through an OutputFile. Returns "" or the problem.
std::string write_csv(const std::string& path, const std::vector<CsvRow>& rows);

// How a reference runner's library sets and reports its own thread count (apart from OpenMP's).
struct ThreadControl {
    void (*set)(int);
    int (*get)();
};

// For a parallel step: unless the user chose OpenMP's wait policy (OMP_WAIT_POLICY, GOMP_SPINCOUNT,
// KMP_BLOCKTIME), runs the program again with threads that spin only briefly before they sleep
// (step 09's README, "A busy core"). Returns only when no re-run happened.
void short_openmp_spins(char** argv);

// The whole executable: parse, check the CPU, sweep, verify, print, write the CSV. Threads follow
// docs/contracts.md, "Threads" (at most max_threads(kThreadsPerCpu), else exit 2 before anything
// runs). `preface`: lines printed before the header, once every check has passed.
int run_main(int argc, char** argv, const Step& step, const ThreadControl* library_threads = nullptr,
             const std::string& preface = "");

}  // namespace gemm
