// The sweep: for each size, allocate and fill, run once on a copy of C and verify it,
// warm up, time the repetitions, print a progress line, and add the size's row to the CSV.
#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__linux__)
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace gemm {
namespace {

// libgomp's spins before a waiting thread sleeps, instead of its default of 300000 rounds of
// pause instructions (step 09's README, "A busy core", says why).
constexpr const char* kSpinCount = "1000";

// How many times a size's timed runs are repeated when other programs held the cores (run_size).
constexpr int kBusyRetries = 2;

struct SizeResult {
    CsvRow row;
    std::string problem;     // the first wrong element, when verification failed
};

double seconds_of(Kernel kernel, int m, int n, int k, const float* A, const float* B, float* C) {
    const auto start = std::chrono::steady_clock::now();
    kernel(m, n, k, A, k, B, n, C, n);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return elapsed.count();
}

// The OpenMP team a parallel region gets now (OMP_THREAD_LIMIT, OMP_DYNAMIC included).
int openmp_team() {
#if defined(_OPENMP)
    int team = 1;
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    return team;
#else
    return 1;
#endif
}

// The threads the step's last call ran on.
int threads_ran(const Step& step, const ThreadControl* library_threads) {
    if (library_threads != nullptr) return library_threads->get();
    if (step.def->threads_used != nullptr) return step.def->threads_used();
    return step.def->parallel ? openmp_team() : 1;
}

// The row of a size before it runs. `source`: where the params' values came from
// (StepDef::tuned_params), "" for a step without.
CsvRow row_of(const Step& step, const Variant& variant, int size, const std::string& source) {
    CsvRow row;
    row.step = std::string(step.slug);
    row.m = row.n = row.k = size;
    row.kernel = std::string(variant.name);
    row.cpu = cpu::name();
    row.uarch = cpu::microarch_label();
    for (const Param& p : step.def->params) {
        if (!p.in_effect()) continue;   // a switch of another variant
        if (!row.params.empty()) row.params += ' ';
        row.params.append(p.name).append("=").append(std::to_string(p.get()));
    }
    if (!source.empty()) row.params.append(row.params.empty() ? "" : " ").append("source=").append(source);
    // Unverified rows say so: verified=0 with max_rel_err=nan (a failure always has a number).
    row.verified = false;
    row.max_rel_err = std::numeric_limits<double>::quiet_NaN();
    return row;
}

SizeResult run_size(const Step& step, const Variant& variant, const Options& o, const ThreadControl* library_threads,
                    int size, const std::string& source) {
    const int m = size, n = size, k = size;
    const std::size_t sa = static_cast<std::size_t>(m) * k, sb = static_cast<std::size_t>(k) * n,
                      sc = static_cast<std::size_t>(m) * n;
    FloatBuffer A = allocate_floats(sa), B = allocate_floats(sb), C0 = allocate_floats(sc),
                C = allocate_floats(sc);
    fill_random(A.get(), sa, 1000003ULL * size + 1);
    fill_random(B.get(), sb, 1000003ULL * size + 2);
    fill_random(C0.get(), sc, 1000003ULL * size + 3);   // C starts random: the kernel accumulates
    std::memcpy(C.get(), C0.get(), sc * sizeof(float));

    SizeResult r{row_of(step, variant, size, source), ""};

    // The first run is on a fresh copy of C and is the one verified. It doubles as a warm-up;
    // with --warmup 0 it is the first timed repetition instead, as cold as the first one of a
    // run with --no-verify, so a sample that verifies costs no extra call (tools/interleave.py
    // verifies the first sample of each size).
    int untimed = o.warmup;
    std::vector<double> verified_time;   // that repetition, with --warmup 0
    const cpu::CpuWait wait_verified = cpu::cpu_wait_now();
    if (o.verify) {
        const double seconds = seconds_of(variant.kernel, m, n, k, A.get(), B.get(), C.get());
        const CheckResult check = check_result(m, n, k, A.get(), k, B.get(), n, C0.get(), C.get(), n);
        r.row.max_rel_err = check.max_rel_err;
        r.row.verified = check.ok;
        r.problem = check.first_problem;
        if (o.warmup == 0) verified_time.push_back(seconds);
        untimed = std::max(0, untimed - 1);
    }
    for (int w = 0; w < untimed; ++w) seconds_of(variant.kernel, m, n, k, A.get(), B.get(), C.get());
    // The threads of the last call; with --warmup 0 --no-verify none has run yet: after the first timed one.
    const bool called = o.verify || untimed > 0;
    if (called) r.row.threads = threads_ran(step, library_threads);

    // C keeps accumulating across repetitions; values stay small (|C| grows by ~sqrt(k) a run).
    // When other programs held the cores for much of the timed runs, they are timed again (at
    // most kBusyRetries times, within --time-limit) and the least disturbed set is kept: one
    // busy spell then costs a size nothing, and a lasting one shows in the cpu_wait column.
    std::vector<double> times;
    double spent = 0;
    for (int attempt = 0; attempt <= kBusyRetries; ++attempt) {
        const bool first = attempt == 0 && !verified_time.empty();
        std::vector<double> attempt_times = first ? verified_time : std::vector<double>{};
        const cpu::CpuWait wait_before = first ? wait_verified : cpu::cpu_wait_now();
        if (first) spent += verified_time.front();
        for (int rep = static_cast<int>(attempt_times.size());
             rep < o.reps && !(o.time_limit > 0 && spent >= o.time_limit); ++rep) {
            attempt_times.push_back(seconds_of(variant.kernel, m, n, k, A.get(), B.get(), C.get()));
            if (!called && attempt == 0 && rep == 0) r.row.threads = threads_ran(step, library_threads);
            spent += attempt_times.back();
        }
        const double waited = cpu::waited_share(wait_before, cpu::cpu_wait_now(), r.row.threads);
        if (attempt == 0 || waited < r.row.cpu_wait) times = attempt_times, r.row.cpu_wait = waited;
        if (!(r.row.cpu_wait >= kBusyShare) || (o.time_limit > 0 && spent >= o.time_limit)) break;
    }
    std::sort(times.begin(), times.end());
    const std::size_t count = times.size();
    const double median = count % 2 ? times[count / 2] : 0.5 * (times[count / 2 - 1] + times[count / 2]);
    r.row.reps = static_cast<int>(count);
    r.row.seconds_best = times.front();
    r.row.gflops_best = gflops(m, n, k, times.front());
    r.row.gflops_median = gflops(m, n, k, median);
    return r;
}

// Why the largest size cannot run here, or "". Two budgets: the matrices against the memory
// the OS has free, and everything the process will map against a limit on its address space
// (ulimit -v, ulimit -d), which counts reserved memory whether it is touched or not.
std::string memory_problem(const Step& step, const Options& o, int threads) {
    constexpr double MiB = 1 << 20;
    const int largest = *std::max_element(o.sizes.begin(), o.sizes.end());
    const double matrices = 16.0 * largest * largest;   // A, B, C and the copy C0
    char text[320];
    if (const unsigned long long avail = available_memory(); avail > 0 && matrices > 0.9 * static_cast<double>(avail)) {
        std::snprintf(text, sizeof text, "size %d needs %.1f GiB, %.1f GiB is available", largest, matrices / 1024 / MiB,
                      static_cast<double>(avail) / 1024 / MiB);
        return text;
    }
    const AddressLimit limit = address_limit();
    if (limit.name.empty()) return "";
    const double library = step.def->library_bytes ? static_cast<double>(step.def->library_bytes(threads)) : 0.0;
    // Each thread beyond the first maps its stack and, at its first malloc, a 64 MiB glibc
    // arena; 32 MiB more for the runtimes' own tables and the kernels' packing buffers.
    const double thread_maps = (threads - 1) * (static_cast<double>(thread_stack_bytes()) + 64 * MiB);
    const double need = matrices + library + thread_maps + 32 * MiB;
    if (need <= static_cast<double>(limit.bytes_left)) return "";
    std::snprintf(text, sizeof text,
                  "size %d on %d thread%s needs %.0f MiB of address space (matrices %.0f, library buffers %.0f, "
                  "thread stacks and heaps %.0f, runtime 32) and %s leaves %.0f MiB",
                  largest, threads, threads == 1 ? "" : "s", need / MiB, matrices / MiB, library / MiB,
                  thread_maps / MiB, limit.name.c_str(), static_cast<double>(limit.bytes_left) / MiB);
    return text;
}

// A library that gives up calls exit() from inside the kernel (libgomp does when it cannot
// start a thread), which would leave exit status 1, "wrong result". While a kernel runs,
// such an exit becomes status 3 with a line saying so.
const char* running_program = nullptr;

void exit_inside_kernel() {
    if (running_program == nullptr) return;
    std::fprintf(stderr, "%s: a library ended the program from inside the kernel (see the line above): "
                         "out of memory or threads\n", running_program);
    std::fflush(stderr);
    std::_Exit(kExitResource);
}

// A timing during which other programs held the cores says so (CSV column cpu_wait).
std::string busy_note(double cpu_wait) {
    if (!(cpu_wait >= kBusyShare)) return "";
    char text[96];
    std::snprintf(text, sizeof text, "  busy: %.0f%% of the time waiting for a CPU", 100 * cpu_wait);
    return text;
}

std::string missing_features(const Step& step) {
    std::string text;
    for (const Variant& v : step.def->variants)
        text += (text.empty() ? "" : ", ") + std::string(v.requirement.empty() ? v.name : v.requirement);
    return text;
}

}  // namespace

// The re-run's libgomp reads the same variables as the first run's and would repeat its
// warnings ("Invalid value for environment variable OMP_NUM_THREADS"): the re-run starts with
// standard error on /dev/null and the real one kept on the descriptor this names, which it
// takes back at once, so each warning appears once and libgomp still takes its default.
constexpr const char* kSavedStderr = "GEMM_SAVED_STDERR";

void short_openmp_spins(char** argv) {
#if defined(__linux__)
    if (const char* saved = std::getenv(kSavedStderr); saved != nullptr) {
        const int fd = std::atoi(saved);
        if (fd > 2 && ::dup2(fd, STDERR_FILENO) >= 0) ::close(fd);
        unsetenv(kSavedStderr);
    }
    for (const char* chosen : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "GEMM_SPIN_SET"})
        if (std::getenv(chosen) != nullptr) return;
    // Valgrind, whose preload library names it, cannot run /proc/self/exe: it would end the
    // program with status 1 and its message on the silenced standard error.
    if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && std::strstr(preload, "vgpreload"))
        return;
    setenv("GEMM_SPIN_SET", "1", 1);            // the re-run does not run again
    setenv("GOMP_SPINCOUNT", kSpinCount, 1);    // libgomp (GCC): spins of a pause each
    setenv("KMP_BLOCKTIME", "0", 1);            // libomp (clang): milliseconds
    // With OMP_PROC_BIND the runtime has pinned this thread to one CPU, and the new program
    // would inherit that mask: give it back every CPU the process started with.
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpu::allowed_cpus())
        if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
    sched_setaffinity(0, sizeof set, &set);
    const int saved = ::fcntl(STDERR_FILENO, F_DUPFD, 3);   // no FD_CLOEXEC: the re-run gets it
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    const bool quiet = saved >= 0 && null >= 0 && ::dup2(null, STDERR_FILENO) >= 0;
    if (quiet) setenv(kSavedStderr, std::to_string(saved).c_str(), 1);
    execv("/proc/self/exe", argv);
    // No re-run: this program goes on, with its own standard error.
    if (quiet) ::dup2(saved, STDERR_FILENO);
    if (saved >= 0) ::close(saved);
    if (null >= 0) ::close(null);
    unsetenv(kSavedStderr);
#else
    (void)argv;
#endif
}

namespace {

// Threads (SPEC): --threads, else a parallel step takes OpenMP's default, which honours
// OMP_NUM_THREADS and OMP_THREAD_LIMIT and counts the CPUs before OMP_PROC_BIND pins the main
// thread; a serial step runs on one whatever it is given; a library gets --threads or 1 (its
// own variables, OPENBLAS_NUM_THREADS ..., are overridden). Sets `threads` to the plan (the
// header's; each progress line and CSV row say what ran) and returns -1, or the exit code
// after the line that refuses it.
int plan_threads(const Step& step, const Options& o, const ThreadControl* library_threads, const std::string& name,
                 int& threads) {
    threads = 1;
    if (library_threads != nullptr) {
        library_threads->set(o.threads > 0 ? o.threads : 1);
        threads = library_threads->get();
    } else if (step.def->parallel) {
#if defined(_OPENMP)
        if (o.threads > 0) omp_set_num_threads(o.threads);
        threads = std::min(omp_get_max_threads(), omp_get_thread_limit());
#else
        // Built without OpenMP (step 10 then runs on one thread): more is refused, not ignored.
        if (o.threads > 1) {
            std::fprintf(stderr, "%s: --threads %d: built without OpenMP, this step runs on one thread only; "
                                 "install an OpenMP runtime (macOS: brew install libomp) and configure again\n",
                         name.c_str(), o.threads);
            return kExitUsage;
        }
#endif
    }
    // One cap, however the count arrived: the parser holds --threads to it, and this the count
    // OpenMP would run (OMP_NUM_THREADS, or its default), before anything is measured.
    if (o.threads == 0 && threads > max_threads(kThreadsPerCpu)) {
        const char* asked = std::getenv("OMP_NUM_THREADS");
        std::fprintf(stderr, "%s: %s; --threads N overrides it\n", name.c_str(),
                     thread_count_problem(asked != nullptr ? "OMP_NUM_THREADS" : "OpenMP's default",
                                          asked != nullptr ? asked : std::to_string(threads), threads, kThreadsPerCpu)
                         .c_str());
        return kExitUsage;
    }
    return -1;
}

// --kernel's variant or the best one; nullptr after the line saying what this CPU lacks.
const Variant* choose_variant(const Step& step, const Options& o, const std::string& name) {
    const Variant* variant = o.kernel.empty() ? step.best_variant() : step.find_variant(o.kernel);
    if (variant == nullptr) {
        std::fprintf(stderr, "%s: skipped: this CPU lacks %s\n", name.c_str(), missing_features(step).c_str());
    } else if (!variant->is_supported()) {
        std::fprintf(stderr, "%s: skipped: kernel %.*s needs %.*s, which this CPU lacks\n", name.c_str(),
                     static_cast<int>(variant->name.size()), variant->name.data(),
                     static_cast<int>(variant->requirement.size()), variant->requirement.data());
        variant = nullptr;
    }
    return variant;
}

void print_header(const Step& step, const Variant& variant, const Options& o, const std::string& source, int threads,
                  const std::string& name) {
    const bool takes_fewer = step.def->threads_used != nullptr && threads > 1;
    std::printf("%s: kernel %.*s, %s%d thread%s, %s [%s]", name.c_str(), static_cast<int>(variant.name.size()),
                variant.name.data(), takes_fewer ? "up to " : "", threads, threads == 1 ? "" : "s",
                cpu::name().c_str(), cpu::microarch_label().c_str());
    for (const Param& p : step.def->params)
        if (p.in_effect())
            std::printf(", %.*s=%d", static_cast<int>(p.name.size()), p.name.data(), p.get());
    if (!source.empty()) std::printf(", source=%s", source.c_str());
    std::printf("\n%s\n", o.verify ? "verifying every element up to 512^3 multiply-adds, sampled rows, columns "
                                     "and sums above (see --help)"
                                   : "verification off (--no-verify)");
}

// Every size: a progress line each, and the CSV so far put in place as the run goes
// (OutputFile::write_growing), so an interrupted sweep leaves the sizes done.
int sweep(const Step& step, const Variant& variant, const Options& o, const ThreadControl* library_threads,
          const std::string& source, const std::string& name, OutputFile& csv) {
    std::string csv_so_far = csv_header() + '\n';
    const auto save_csv = [&](bool last) {
        if (o.csv.empty()) return true;
        const std::string error = csv.write_growing(csv_so_far, last);
        if (!error.empty()) std::fprintf(stderr, "%s: --csv: %s\n", name.c_str(), error.c_str());
        return error.empty();
    };
    bool all_ok = true;
    static const bool exit_guard = std::atexit(exit_inside_kernel) == 0;
    (void)exit_guard;
    for (const int size : o.sizes) {
        SizeResult r;
        try {
            running_program = name.c_str();
            r = run_size(step, variant, o, library_threads, size, source);
            running_program = nullptr;
        } catch (const std::bad_alloc&) {
            running_program = nullptr;
            std::fprintf(stderr, "%s: out of memory at size %d\n", name.c_str(), size);
            save_csv(true);
            return kExitResource;
        }
        all_ok = all_ok && (r.row.verified || !o.verify);
        // A parallel step or a library says on each line how many threads ran (the CSV's column).
        const std::string ran = step.def->parallel || library_threads != nullptr
                                    ? "  " + std::to_string(r.row.threads) + (r.row.threads == 1 ? " thread" : " threads")
                                    : "";
        std::printf("%-22s n=%5d  best %8.2f GFLOPS  median %8.2f  err %8.2e  %s%s%s\n", name.c_str(), size,
                    r.row.gflops_best, r.row.gflops_median, r.row.max_rel_err,
                    !o.verify ? "unchecked" : (r.row.verified ? "ok" : "FAIL"), ran.c_str(),
                    busy_note(r.row.cpu_wait).c_str());
        if (!r.problem.empty()) std::printf("    first wrong element: %s\n", r.problem.c_str());
        csv_so_far += csv_line(r.row) + '\n';
        if (!save_csv(false)) return kExitResource;
        if (!stdout_ok(name.c_str())) {
            save_csv(true);
            return kExitResource;
        }
    }
    if (!save_csv(true)) return kExitResource;
    return all_ok ? kExitOk : kExitWrong;
}

}  // namespace

int run_main(int argc, char** argv, const Step& step, const ThreadControl* library_threads,
             const std::string& preface) {
    guard_standard_descriptors();
    // Steps print as their executable (step05_simd_4x4), references by their own name.
    const std::string name = (step.number > 0 ? "step" : "") + std::string(step.slug);
    const ParseResult parsed = parse_options(argc, argv, step);
    if (parsed.exit_code == kExitOk) {
        std::fputs(parsed.message.c_str(), stdout);
        return finish_stdout(name.c_str(), kExitOk);
    }
    // Once --help had its chance, and before anything is printed: a malformed GEMM_CACHES.
    if (const std::string problem = environment_problem(); !problem.empty()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), problem.c_str());
        return kExitUsage;
    }
    if (parsed.exit_code != -1) {
        std::fprintf(stderr, "%s\n", parsed.message.c_str());
        return parsed.exit_code;
    }
    const Options& o = parsed.options;
    int threads = 1;
    if (const int refused = plan_threads(step, o, library_threads, name, threads); refused != -1) return refused;
    const Variant* variant = choose_variant(step, o, name);
    if (variant == nullptr) return kExitUnsupported;
    if (step.def->use_variant != nullptr) step.def->use_variant(variant->name);
    // Values tuned on this machine (step 10's wisdom), for this variant and thread count; the
    // command line's, set next, win. The note waits for the checks below: a run refused for
    // its memory or its CSV path prints one line, its own.
    TunedParams tuned;
    if (step.def->tuned_params != nullptr) tuned = step.def->tuned_params(variant->name, threads);
    for (const auto& [param, value] : o.params) param->set(value);

    // Refuse a size that cannot fit before allocating: the OOM killer gives no message, and
    // under a limit on address space OpenBLAS spins in its allocator and BLIS aborts.
    if (const std::string problem = memory_problem(step, o, threads); !problem.empty()) {
        std::fprintf(stderr, "%s: out of memory: %s\n", name.c_str(), problem.c_str());
        return kExitResource;
    }
    // The CSV's path is checked before any work, so a typo costs nothing.
    OutputFile csv;
    if (!o.csv.empty()) {
        if (const std::string error = csv.open(o.csv); !error.empty()) {
            std::fprintf(stderr, "%s: --csv: %s\n", name.c_str(), error.c_str());
            return kExitResource;
        }
    }
    if (!tuned.note.empty()) std::fprintf(stderr, "%s: %s\n", name.c_str(), tuned.note.c_str());
    std::fputs(preface.c_str(), stdout);
    print_header(step, *variant, o, tuned.source, threads, name);
    if (!stdout_ok(name.c_str())) return kExitResource;
    return sweep(step, *variant, o, library_threads, tuned.source, name, csv);
}

}  // namespace gemm
