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
#include <optional>
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

// libgomp's spins before a waiting thread sleeps, instead of 300000 (step 09's README, "A busy core").
constexpr const char* kSpinCount = "1000";
// How many times a size's timed runs are repeated when other programs held the cores.
constexpr int kBusyRetries = 2;

struct SizeResult {
    CsvRow row;
    std::string problem;     // the first wrong element, when verification failed
};

// What every part of one run reads, made once in run_main.
struct Run {
    const Step& step;
    const Setting& setting;
    const Options& o;
    const ThreadControl* library_threads;
    const std::string& source;   // where the tuned values came from (TunedParams::source), or ""
    const std::string& name;     // the program, as its messages name it
};

// One line on standard error after the program's name; returns `status`.
int say(const std::string& name, const std::string& text, int status = kExitOk) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), text.c_str());
    return status;
}

// The OpenMP team a parallel region gets now (OMP_THREAD_LIMIT, OMP_DYNAMIC included).
int openmp_team() {
    int team = 1;
#if defined(_OPENMP)
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
    }
#endif
    return team;
}

// The threads the step's last call ran on; `ran`: what run_setting returned.
int threads_ran(const Run& run, int ran) {
    if (run.library_threads != nullptr) return run.library_threads->get();
    if (run.step.def->run != nullptr) return ran;
    if (run.step.def->threads_used != nullptr) return run.step.def->threads_used();
    return run.step.def->parallel ? openmp_team() : 1;
}

// The params in effect (not a switch of another variant) and the source of their values,
// as "name=value" items joined by `separator`.
std::string params_text(const Run& run, const char* separator) {
    std::string text;
    const auto add = [&](const std::string& item) { text.append(text.empty() ? "" : separator).append(item); };
    for (const Param& p : run.step.def->params)
        if (const std::optional<int> value = shown_value(run.step, run.setting, p))
            add(std::string(p.name) + "=" + std::to_string(*value));
    if (!run.source.empty()) add("source=" + run.source);
    return text;
}

// The row of a size before it runs. Unverified rows say so: verified=0 with max_rel_err=nan
// (a failure always has a number).
CsvRow row_of(const Run& run, int size) {
    CsvRow row;
    row.step = std::string(run.step.slug);
    row.m = row.n = row.k = size;
    row.kernel = std::string(run.setting.variant);
    row.cpu = cpu::name();
    row.uarch = cpu::microarch_label();
    row.params = params_text(run, " ");
    row.max_rel_err = std::numeric_limits<double>::quiet_NaN();
    return row;
}

SizeResult run_size(const Run& run, int size) {
    const Options& o = run.o;
    const std::size_t count = static_cast<std::size_t>(size) * size;   // each matrix is size x size
    FloatBuffer A = allocate_floats(count), B = allocate_floats(count), C0 = allocate_floats(count),
                C = allocate_floats(count);
    fill_random(A.get(), count, 1000003ULL * size + 1);
    fill_random(B.get(), count, 1000003ULL * size + 2);
    fill_random(C0.get(), count, 1000003ULL * size + 3);   // C starts random: the kernel accumulates
    std::memcpy(C.get(), C0.get(), count * sizeof(float));
    int ran = 0;   // run_setting's threads of the last call
    const auto call = [&] {
        const auto start = std::chrono::steady_clock::now();
        ran = run_setting(run.step, run.setting, size, size, size, A.get(), size, B.get(), size, C.get(), size);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    SizeResult r{row_of(run, size), ""};

    // The first run, on a fresh copy of C, is the one verified: a warm-up, or with --warmup 0 the
    // first timed repetition (so a sample that verifies costs no extra call).
    std::optional<double> verified_time;   // that repetition, with --warmup 0
    const cpu::CpuWait wait_verified = cpu::cpu_wait_now();
    if (o.verify) {
        const double seconds = call();
        const CheckResult check =
            check_result(size, size, size, A.get(), size, B.get(), size, C0.get(), C.get(), size);
        r.row.max_rel_err = check.max_rel_err;
        r.row.verified = check.ok;
        r.problem = check.first_problem;
        if (o.warmup == 0) verified_time = seconds;
    }
    for (int w = o.verify ? 1 : 0; w < o.warmup; ++w) call();
    // The threads of the last call; with --warmup 0 --no-verify, of the first timed one.
    const bool called = o.verify || o.warmup > 0;
    if (called) r.row.threads = threads_ran(run, ran);

    // C keeps accumulating across repetitions (|C| grows by ~sqrt(k) a run). Timed runs that
    // other programs held the cores for are timed again, within --time-limit, and the least
    // disturbed set is kept: a busy spell costs nothing, a lasting one shows in cpu_wait.
    std::vector<double> times;
    double spent = verified_time.value_or(0);
    const auto out_of_time = [&] { return o.time_limit > 0 && spent >= o.time_limit; };
    for (int attempt = 0; attempt <= kBusyRetries; ++attempt) {
        const bool first = attempt == 0 && verified_time;
        std::vector<double> attempt_times = first ? std::vector<double>{*verified_time} : std::vector<double>{};
        const cpu::CpuWait wait_before = first ? wait_verified : cpu::cpu_wait_now();
        for (int rep = static_cast<int>(attempt_times.size()); rep < o.reps && !out_of_time(); ++rep) {
            attempt_times.push_back(call());
            if (!called && attempt == 0 && rep == 0) r.row.threads = threads_ran(run, ran);
            spent += attempt_times.back();
        }
        const double waited = cpu::waited_share(wait_before, cpu::cpu_wait_now(), r.row.threads);
        if (attempt == 0 || waited < r.row.cpu_wait) times = attempt_times, r.row.cpu_wait = waited;
        if (!(r.row.cpu_wait >= kBusyShare) || out_of_time()) break;
    }
    std::sort(times.begin(), times.end());
    const std::size_t reps = times.size();
    const double median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    r.row.reps = static_cast<int>(reps);
    r.row.seconds_best = times.front();
    r.row.gflops_best = gflops(size, size, size, times.front());
    r.row.gflops_median = gflops(size, size, size, median);
    return r;
}

// Why the largest size cannot run here, or "": the matrices against the memory the OS has free,
// and all the process will map against a limit on address space (ulimit -v, -d).
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

// A library that gives up calls exit() from inside the kernel (libgomp, out of threads), which
// would be status 1, "wrong result": while a kernel runs, such an exit is status 3 and a line.
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

// The re-run's libgomp would repeat the first run's warnings about the environment: the re-run
// starts with standard error on /dev/null and takes the real one back from the descriptor this names.
constexpr const char* kSavedStderr = "GEMM_SAVED_STDERR";

}  // namespace

void short_openmp_spins(char** argv) {
#if defined(__linux__)
    if (const char* saved = std::getenv(kSavedStderr); saved != nullptr) {
        const int fd = std::atoi(saved);
        if (fd > 2 && ::dup2(fd, STDERR_FILENO) >= 0) ::close(fd);
        unsetenv(kSavedStderr);
    }
    for (const char* chosen : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "GEMM_SPIN_SET"})
        if (std::getenv(chosen) != nullptr) return;
    // Valgrind (its preload library names it) cannot run /proc/self/exe.
    if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && std::strstr(preload, "vgpreload"))
        return;
    setenv("GEMM_SPIN_SET", "1", 1);            // the re-run does not run again
    setenv("GOMP_SPINCOUNT", kSpinCount, 1);    // libgomp (GCC): spins of a pause each
    setenv("KMP_BLOCKTIME", "0", 1);            // libomp (clang): milliseconds
    // OMP_PROC_BIND may have pinned this thread to one CPU: the re-run gets back every one.
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

// Sets `threads` to the plan (docs/contracts.md, "Threads") and returns -1, or the exit code
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
        if (o.threads > 1)
            return say(name,
                       "--threads " + std::to_string(o.threads) + ": built without OpenMP, this step runs on one "
                       "thread only; install an OpenMP runtime (macOS: brew install libomp) and configure again",
                       kExitUsage);
#endif
    }
    // The parser holds --threads to the cap; this holds what OpenMP would run without it.
    if (o.threads == 0 && threads > max_threads(kThreadsPerCpu)) {
        const char* asked = std::getenv("OMP_NUM_THREADS");
        return say(name, thread_count_problem(asked != nullptr ? "OMP_NUM_THREADS" : "OpenMP's default",
                                              asked != nullptr ? asked : std::to_string(threads), threads,
                                              kThreadsPerCpu) + "; --threads N overrides it", kExitUsage);
    }
    return -1;
}

// --kernel's variant or the best one; nullptr after the line saying what this CPU lacks.
const Variant* choose_variant(const Step& step, const Options& o, const std::string& name) {
    const Variant* variant = o.kernel.empty() ? step.best_variant() : step.find_variant(o.kernel);
    if (variant == nullptr) {
        std::string lacks;
        for (const Variant& v : step.def->variants)
            lacks += (lacks.empty() ? "" : ", ") + std::string(v.requirement.empty() ? v.name : v.requirement);
        say(name, "skipped: this CPU lacks " + lacks);
    } else if (!variant->is_supported()) {
        say(name, "skipped: kernel " + std::string(variant->name) + " needs " +
                      std::string(variant->requirement) + ", which this CPU lacks");
        variant = nullptr;
    }
    return variant;
}

void print_header(const Run& run, int threads) {
    const StepDef& def = *run.step.def;
    const bool takes_fewer = (def.threads_used != nullptr || def.run != nullptr) && threads > 1;
    const std::string_view kernel = run.setting.variant;
    std::printf("%s: kernel %.*s, %s%d thread%s, %s [%s]", run.name.c_str(), static_cast<int>(kernel.size()),
                kernel.data(), takes_fewer ? "up to " : "", threads, threads == 1 ? "" : "s",
                cpu::name().c_str(), cpu::microarch_label().c_str());
    if (const std::string params = params_text(run, ", "); !params.empty()) std::printf(", %s", params.c_str());
    std::printf("\n%s\n", run.o.verify
                              ? "verifying every element up to 512^3 multiply-adds, sampled rows, columns "
                                "and sums above (see --help)"
                              : "verification off (--no-verify)");
}

// Every size: a progress line each, and the CSV so far put in place as the run goes
// (OutputFile::write_growing), so an interrupted sweep leaves the sizes done.
int sweep(const Run& run, OutputFile& csv) {
    const Options& o = run.o;
    const std::string& name = run.name;
    std::string csv_so_far = csv_header() + '\n';
    const auto save_csv = [&](bool last) {
        const std::string error = o.csv.empty() ? "" : csv.write_growing(csv_so_far, last);
        if (!error.empty()) say(name, "--csv: " + error);
        return error.empty();
    };
    bool all_ok = true;
    [[maybe_unused]] static const bool exit_guard = std::atexit(exit_inside_kernel) == 0;
    for (const int size : o.sizes) {
        SizeResult r;
        running_program = name.c_str();
        try {
            r = run_size(run, size);
        } catch (const std::bad_alloc&) {
            running_program = nullptr;
            say(name, "out of memory at size " + std::to_string(size));
            save_csv(true);
            return kExitResource;
        }
        running_program = nullptr;
        all_ok = all_ok && (r.row.verified || !o.verify);
        // A parallel step or a library says on each line how many threads ran (the CSV's column).
        const std::string ran = run.step.def->parallel || run.library_threads != nullptr
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
    if (const std::string problem = environment_problem(); !problem.empty())
        return say(name, problem, kExitUsage);
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
    // The run's Setting, made once: the values tuned on this machine and the command line's,
    // which win. A lesson takes the command line's through its params' set(). The note waits
    // for the checks below: a run refused for its memory or its CSV path prints one line, its own.
    ParamValues given;
    for (const auto& [param, value] : o.params) {
        given[step.param_index(*param)] = value;
        if (step.def->run == nullptr) param->set(value);
    }
    TunedParams tuned;
    const Setting setting = make_setting(step, variant->name, threads, given, &tuned);
    const Run run{step, setting, o, library_threads, tuned.source, name};
    if (o.plan) {   // nothing allocated, run or written: a missing ISA or a bad option is caught above
        if (!tuned.note.empty()) say(name, tuned.note);
        for (const int size : o.sizes) {
            const std::string plan = step.def->plan ? step.def->plan(setting, size, size, size, threads) : "";
            std::printf("n=%d%s%s\n", size, plan.empty() ? "" : " ", plan.c_str());
        }
        return finish_stdout(name.c_str(), kExitOk);
    }

    // Before allocating: the OOM killer gives no message, and under a limit on address space
    // OpenBLAS spins in its allocator and BLIS aborts.
    if (const std::string problem = memory_problem(step, o, threads); !problem.empty())
        return say(name, "out of memory: " + problem, kExitResource);
    // The CSV's path is checked before any work, so a typo costs nothing.
    OutputFile csv;
    if (const std::string error = o.csv.empty() ? "" : csv.open(o.csv); !error.empty())
        return say(name, "--csv: " + error, kExitResource);
    if (!tuned.note.empty()) say(name, tuned.note);
    std::fputs(preface.c_str(), stdout);
    print_header(run, threads);
    if (!stdout_ok(name.c_str())) return kExitResource;
    return sweep(run, csv);
}

}  // namespace gemm
