// bin/probe: one step's kernel, on one thread, under conditions the sweep keeps fixed.
//
//   probe STEP [--sizes a,b,c] [--ld N | --pad N] [--reps N] [--kernel NAME] [--PARAM N ...] [--csv FILE]
//
// The sweep (every step executable) runs square sizes with lda = ldb = ldc = n, warm caches,
// and times the wall clock. Some lessons only show away from that: packing (step 07) cures
// rows that lie a multiple of 4 KiB apart, which ld = n hits only at n = 1024, 2048 ...;
// so --ld and --pad choose the leading dimension of all three matrices. And on a machine
// shared with other work the wall clock counts the time the core ran something else, so
// probe reports GFLOPS from the thread's own CPU time as well (as bin/peak does). The first
// call is verified like the sweep's (padding holds NaN, which a read past the window would
// carry into C). A parallel step (10) runs on one thread: the thread whose CPU time is
// counted is then the only one working. Exit: 0 verified, 1 a result was wrong, 2 usage, 3 out of memory or CSV not
// writable, 77 the CPU lacks the step's (or --kernel's) instruction set.
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>
#include <gemm/registry.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

// The OpenMP runtime, when the steps link one (they pass its flags on to probe); without it
// every step runs on one thread already. (Not a weak reference: macOS's linker refuses one
// to a symbol no library defines.)
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

const char* const kUsage =
    "usage: probe STEP [--sizes a,b,c] [--ld N | --pad N] [--reps N] [--kernel NAME] [--PARAM N ...] [--csv FILE]\n"
    "Times one step (STEP: its number or slug; a parallel one on one thread) at square sizes with a\n"
    "leading dimension of your choice, and reports GFLOPS from the thread's CPU time beside the wall clock.\n"
    "  --sizes a,b,c   sizes m = n = k (default 1000)\n"
    "  --ld N          lda = ldb = ldc = N for every size (N >= the size), e.g. 1024 or 4096\n"
    "  --pad N         lda = ldb = ldc = size + N (default 0: the sweep's ld = n)\n"
    "  --reps N        timed calls after the verified one (default 5); best and median\n"
    "  --kernel NAME   a variant of the step; --PARAM N: any of the step's tunables (--kc 256)\n"
    "  --csv FILE      step,m,n,k,ld,kernel,gflops_cpu_best,gflops_cpu_median,gflops_wall_best,\n"
    "                  gflops_wall_median,verified\n"
    "Exit status: 0 all verified, 1 a result failed verification, 2 usage error,\n"
    "3 out of memory or CSV not writable, 77 this CPU lacks what the step needs.\n";

// Numbers go through the one parser (<gemm/numbers.hpp>), with its messages.
std::vector<int> parse_sizes(const std::string& list) {
    if (list.empty()) throw gemm::UsageError("--sizes '': the list is empty");
    std::vector<int> sizes;
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        if (item.empty()) throw gemm::UsageError(gemm::quoted("--sizes", list) + ": has an empty entry");
        sizes.push_back(static_cast<int>(gemm::whole_option("--sizes", item, 1, gemm::kMaxSize)));
        start = comma + 1;
    }
    return sizes;
}

const gemm::Step* find_step(std::string_view name) {
    for (const gemm::Step& s : gemm::steps()) {
        if (s.slug == name) return &s;
        long long number = 0;   // a step's number, through the one parser
        if (gemm::parse_whole("step", name, 0, 1000000, number).empty() && number == s.number) return &s;
    }
    return nullptr;
}

double thread_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Row {
    int size, ld;
    double cpu_best, cpu_median, wall_best, wall_median;
    bool verified;
};

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t c = v.size();
    return c % 2 ? v[c / 2] : 0.5 * (v[c / 2 - 1] + v[c / 2]);
}

// A square size with leading dimension ld: the first call verified, then reps timed calls.
Row run(gemm::Kernel kernel, int size, int ld, int reps, std::string& problem) {
    const std::size_t count = static_cast<std::size_t>(size) * ld;
    gemm::FloatBuffer A = gemm::allocate_floats(count), B = gemm::allocate_floats(count),
                      C0 = gemm::allocate_floats(count), C = gemm::allocate_floats(count);
    gemm::fill_random(A.get(), count, 1000003ULL * size + 1);
    gemm::fill_random(B.get(), count, 1000003ULL * size + 2);
    gemm::fill_random(C0.get(), count, 1000003ULL * size + 3);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < size; ++i)   // the padding: NaN in A and B, which C must never see
        for (int j = size; j < ld; ++j) A[static_cast<std::size_t>(i) * ld + j] = B[static_cast<std::size_t>(i) * ld + j] = nan;
    std::memcpy(C.get(), C0.get(), count * sizeof(float));

    kernel(size, size, size, A.get(), ld, B.get(), ld, C.get(), ld);
    const gemm::CheckResult check = gemm::check_result(size, size, size, A.get(), ld, B.get(), ld, C0.get(), C.get(), ld);
    problem = check.first_problem;

    std::vector<double> cpu, wall;
    for (int r = 0; r < reps; ++r) {
        const auto w0 = std::chrono::steady_clock::now();
        const double c0 = thread_seconds();
        kernel(size, size, size, A.get(), ld, B.get(), ld, C.get(), ld);
        cpu.push_back(thread_seconds() - c0);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    }
    const auto rate = [size](double s) { return gemm::gflops(size, size, size, s); };
    return {size, ld, rate(*std::min_element(cpu.begin(), cpu.end())), rate(median_of(cpu)),
            rate(*std::min_element(wall.begin(), wall.end())), rate(median_of(wall)), check.ok};
}

struct Options {
    std::vector<int> sizes{1000};
    long ld_fixed = 0, pad = 0;
    int reps = 5;
    std::string kernel_name, csv;
    const gemm::Step* step = nullptr;
    std::vector<std::pair<const gemm::Param*, int>> params;
};

// Throws gemm::UsageError.
Options parse(int argc, char** argv) {
    Options o;
    if (const std::string problem = gemm::environment_problem(); !problem.empty()) throw gemm::UsageError(problem);
    if (const std::string twice = gemm::repeated_option(argc, argv); !twice.empty())
        throw gemm::UsageError(gemm::shown(twice) + ": given twice");
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        // A value that is itself an option means the value was forgotten ("--csv --no-verify"
        // names no file --no-verify): gemm::option_value says "--csv: needs a value".
        if (arg == "--sizes") {
            o.sizes = parse_sizes(gemm::option_value(argc, argv, i));
        } else if (arg == "--ld") {
            o.ld_fixed = static_cast<long>(gemm::whole_option(arg, gemm::option_value(argc, argv, i), 1, gemm::kMaxSize));
        } else if (arg == "--pad") {
            o.pad = static_cast<long>(gemm::whole_option(arg, gemm::option_value(argc, argv, i), 0, 4096));
        } else if (arg == "--reps") {
            o.reps = gemm::count_option(arg, gemm::option_value(argc, argv, i), 10000);
        } else if (arg == "--kernel") {
            o.kernel_name = gemm::option_value(argc, argv, i);
        } else if (arg == "--csv") {
            o.csv = gemm::option_value(argc, argv, i);
            if (o.csv.empty()) throw gemm::UsageError("--csv: needs a file name");
        } else if (arg.rfind("--", 0) == 0 && o.step != nullptr && o.step->find_param(arg.substr(2)) != nullptr) {
            const gemm::Param* p = o.step->find_param(arg.substr(2));
            o.params.emplace_back(p, static_cast<int>(gemm::whole_option(arg, gemm::option_value(argc, argv, i), 0,
                                                                         gemm::cpu::kMaxBlock, "0: automatic")));
        } else if (arg.rfind("--", 0) == 0) {
            throw gemm::UsageError(gemm::quoted("", arg) + ": unknown option" +
                                   (o.step == nullptr ? " (name the step first: its tunables follow it)" : "") +
                                   " (see --help)");
        } else if (o.step == nullptr) {
            o.step = find_step(arg);
            if (o.step == nullptr) throw gemm::UsageError(gemm::quoted("", arg) + ": no such step (a number or a slug)");
        } else {
            throw gemm::UsageError(gemm::quoted("", arg) + ": unexpected argument (see --help)");
        }
    }
    if (o.step == nullptr) throw gemm::UsageError("name a step (see --help)");
    if (o.ld_fixed > 0 && o.pad > 0) throw gemm::UsageError("--ld and --pad: choose one");
    for (const int s : o.sizes)
        if (o.ld_fixed > 0 && o.ld_fixed < s)
            throw gemm::UsageError("--ld " + std::to_string(o.ld_fixed) + " is below the size " + std::to_string(s));
    return o;
}

std::string csv_text(const gemm::Step& step, const gemm::Variant& variant, const std::vector<Row>& rows) {
    std::string text =
        "step,m,n,k,ld,kernel,gflops_cpu_best,gflops_cpu_median,gflops_wall_best,gflops_wall_median,verified\n";
    for (const Row& r : rows) {
        char line[256];
        std::snprintf(line, sizeof line, "%.*s,%d,%d,%d,%d,%.*s,%.3f,%.3f,%.3f,%.3f,%d\n",
                      static_cast<int>(step.slug.size()), step.slug.data(), r.size, r.size, r.size, r.ld,
                      static_cast<int>(variant.name.size()), variant.name.data(), r.cpu_best, r.cpu_median,
                      r.wall_best, r.wall_median, r.verified ? 1 : 0);
        text += line;
    }
    return text;
}

// The variant to run (nullptr after the message, with the exit code in `rc`), set up as the
// step's own executable does: the variant, then the values tuned on this machine (step 10's
// wisdom), then the command line's, which win.
const gemm::Variant* prepare_variant(const Options& o, gemm::TunedParams& tuned, int& rc) {
    const gemm::Step* step = o.step;
#if defined(_OPENMP)
    if (step->def->parallel) omp_set_num_threads(1);
#endif
    const gemm::Variant* variant = o.kernel_name.empty() ? step->best_variant() : step->find_variant(o.kernel_name);
    if (variant == nullptr && !o.kernel_name.empty()) {
        std::fprintf(stderr, "probe: --kernel '%s': step %.*s has no such variant\n",
                     gemm::shown(o.kernel_name).c_str(), static_cast<int>(step->slug.size()), step->slug.data());
        rc = gemm::kExitUsage;
        return nullptr;
    }
    if (variant == nullptr || !variant->is_supported()) {
        std::fprintf(stderr, "probe: skipped: this CPU lacks what step %.*s%s needs\n", static_cast<int>(step->slug.size()),
                     step->slug.data(), o.kernel_name.empty() ? "" : (" --kernel " + gemm::shown(o.kernel_name)).c_str());
        rc = gemm::kExitUnsupported;
        return nullptr;
    }
    if (step->def->use_variant != nullptr) step->def->use_variant(variant->name);
    if (step->def->tuned_params != nullptr) tuned = step->def->tuned_params(variant->name, 1);
    for (const auto& [param, value] : o.params) param->set(value);
    return variant;
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    if (gemm::wants_help(argc, argv)) {
        std::fputs(kUsage, stdout);
        return gemm::finish_stdout("probe", gemm::kExitOk);
    }
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const gemm::UsageError& u) {
        std::fprintf(stderr, "probe: %s\n", u.what());
        return gemm::kExitUsage;
    }
    gemm::TunedParams tuned;
    int rc = 0;
    const gemm::Variant* variant = prepare_variant(o, tuned, rc);
    if (variant == nullptr) return rc;
    const gemm::Step* step = o.step;

    // The CSV's path is checked before measuring; the file is written once, at the end, so an
    // interrupted run leaves the old one as it was (docs/contracts.md, "The CSV").
    gemm::OutputFile out;
    if (!o.csv.empty()) {
        if (const std::string error = out.open(o.csv); !error.empty()) {
            std::fprintf(stderr, "probe: --csv: %s\n", error.c_str());
            return gemm::kExitResource;
        }
    }

    if (!tuned.note.empty()) std::fprintf(stderr, "probe: %s\n", tuned.note.c_str());
    std::printf("probe: step %.*s, kernel %.*s, %s [%s]%s%s\n", static_cast<int>(step->slug.size()), step->slug.data(),
                static_cast<int>(variant->name.size()), variant->name.data(), gemm::cpu::name().c_str(),
                gemm::cpu::microarch_label().c_str(), tuned.source.empty() ? "" : ", source=", tuned.source.c_str());
    std::vector<Row> rows;
    bool all_ok = true;
    for (const int size : o.sizes) {
        const int ld = static_cast<int>(o.ld_fixed > 0 ? o.ld_fixed : size + o.pad);
        std::string problem;
        try {
            rows.push_back(run(variant->kernel, size, ld, o.reps, problem));
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "probe: out of memory at size %d, ld %d\n", size, ld);
            return gemm::kExitResource;
        }
        const Row& r = rows.back();
        all_ok = all_ok && r.verified;
        std::printf("  n = %5d  ld = %5d  %8.2f GFLOPS (CPU time; median %.2f)  wall %8.2f (median %.2f)  %s%s\n",
                    size, ld, r.cpu_best, r.cpu_median, r.wall_best, r.wall_median,
                    r.verified ? "verified" : "WRONG: ", r.verified ? "" : problem.c_str());
        std::fflush(stdout);
    }
    if (!o.csv.empty()) {
        if (const std::string error = out.write(csv_text(*step, *variant, rows)); !error.empty()) {
            std::fprintf(stderr, "probe: --csv: %s\n", error.c_str());
            return gemm::kExitResource;
        }
    }
    return gemm::finish_stdout("probe", all_ok ? gemm::kExitOk : gemm::kExitWrong);
}
