// bin/probe: one step's kernel on one thread away from the sweep's conditions: a leading
// dimension of your choice (--ld, --pad: packing, step 07, cures rows a multiple of 4 KiB apart,
// which ld = n hits only at n = 1024, 2048 ...), and GFLOPS from the thread's CPU time beside the
// wall clock, which on a shared machine counts the time the core ran something else. The first
// call is verified (padding holds NaN, which a read past the window would carry into C).
// A parallel step runs on one thread, so the thread timed is the only one working.
#include "meter_cli.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>
#include <gemm/registry.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

// The OpenMP runtime when the steps link one (without, every step runs on one thread); not a
// weak reference, which macOS's linker refuses for a symbol no library defines.
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

const gemm::Step* find_step(std::string_view name) {
    for (const gemm::Step& s : gemm::steps()) {
        if (s.slug == name) return &s;
        long long number = 0;   // a step's number, through the one parser
        if (gemm::parse_whole("step", name, 0, 1000000, number).empty() && number == s.number) return &s;
    }
    return nullptr;
}

struct Row {
    double cpu_best, cpu_median, wall_best, wall_median;
    bool verified;
    std::string problem;   // the first, when not verified
};

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t c = v.size();
    return c % 2 ? v[c / 2] : 0.5 * (v[c / 2 - 1] + v[c / 2]);
}

// A square size with leading dimension ld: the first call verified, then reps timed calls.
Row run(const gemm::Step& step, const gemm::Setting& setting, int size, int ld, int reps) {
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
    const auto call = [&] {
        gemm::run_setting(step, setting, size, size, size, A.get(), ld, B.get(), ld, C.get(), ld);
    };

    call();
    const gemm::CheckResult check = gemm::check_result(size, size, size, A.get(), ld, B.get(), ld, C0.get(), C.get(), ld);

    std::vector<double> cpu, wall;
    for (int r = 0; r < reps; ++r) {
        const auto w0 = std::chrono::steady_clock::now();
        const double c0 = gemm::cpu::thread_cpu_seconds();
        call();
        cpu.push_back(gemm::cpu::thread_cpu_seconds() - c0);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    }
    const auto rate = [size](double s) { return gemm::gflops(size, size, size, s); };
    return {rate(*std::min_element(cpu.begin(), cpu.end())), rate(median_of(cpu)),
            rate(*std::min_element(wall.begin(), wall.end())), rate(median_of(wall)), check.ok,
            check.first_problem};
}

struct Options {
    std::vector<int> sizes{1000};
    long ld_fixed = 0, pad = 0;
    int reps = 5;
    std::string kernel_name, csv;
    const gemm::Step* step = nullptr;
    std::vector<std::pair<const gemm::Param*, int>> params;
};

// Throws gemm::UsageError; an option given twice is refused before (meter::parse_command).
Options parse(int argc, const char* const* argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--sizes") {
            o.sizes = gemm::meter::whole_list(arg, gemm::option_value(argc, argv, i), gemm::kMaxSize, false);
        } else if (arg == "--ld") {
            o.ld_fixed = static_cast<long>(gemm::whole_option(arg, gemm::option_value(argc, argv, i), 1, gemm::kMaxSize));
        } else if (arg == "--pad") {
            o.pad = static_cast<long>(gemm::whole_option(arg, gemm::option_value(argc, argv, i), 0, 4096));
        } else if (arg == "--reps") {
            o.reps = gemm::count_option(arg, gemm::option_value(argc, argv, i), 10000);
        } else if (arg == "--kernel") {
            o.kernel_name = gemm::option_value(argc, argv, i);
        } else if (arg == "--csv") {
            o.csv = gemm::meter::csv_option(argc, argv, i);
        } else if (arg.rfind("--", 0) != 0) {
            if (o.step != nullptr)
                throw gemm::UsageError(gemm::quoted("", arg) + ": unexpected argument (see --help)");
            o.step = find_step(arg);
            if (o.step == nullptr)
                throw gemm::UsageError(gemm::quoted("", arg) + ": no such step (a number or a slug)");
        } else if (const gemm::Param* p = o.step != nullptr ? o.step->find_param(arg.substr(2)) : nullptr) {
            o.params.emplace_back(p, static_cast<int>(gemm::whole_option(arg, gemm::option_value(argc, argv, i), 0,
                                                                         gemm::cpu::kMaxBlock, "0: automatic")));
        } else {
            throw gemm::UsageError(gemm::quoted("", arg) + ": unknown option" +
                                   (o.step == nullptr ? " (name the step first: its tunables follow it)" : "") +
                                   " (see --help)");
        }
    }
    if (o.step == nullptr) throw gemm::UsageError("name a step (see --help)");
    if (o.ld_fixed > 0 && o.pad > 0) throw gemm::UsageError("--ld and --pad: choose one");
    for (const int s : o.sizes)
        if (o.ld_fixed > 0 && o.ld_fixed < s)
            throw gemm::UsageError("--ld " + std::to_string(o.ld_fixed) + " is below the size " + std::to_string(s));
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    Options o;
    if (const auto done = gemm::meter::parse_command("probe", kUsage, parse, argc, argv, o, std::cout, std::cerr))
        return gemm::finish_stdout("probe", *done);
    const gemm::Step& step = *o.step;
    const std::string slug(step.slug);
#if defined(_OPENMP)
    if (step.def->parallel) omp_set_num_threads(1);
#endif
    const gemm::Variant* variant = o.kernel_name.empty() ? step.best_variant() : step.find_variant(o.kernel_name);
    if (variant == nullptr && !o.kernel_name.empty()) {
        std::fprintf(stderr, "probe: --kernel '%s': step %s has no such variant\n", gemm::shown(o.kernel_name).c_str(),
                     slug.c_str());
        return gemm::kExitUsage;
    }
    if (variant == nullptr || !variant->is_supported()) {
        std::fprintf(stderr, "probe: skipped: this CPU lacks what step %s%s needs\n", slug.c_str(),
                     o.kernel_name.empty() ? "" : (" --kernel " + gemm::shown(o.kernel_name)).c_str());
        return gemm::kExitUnsupported;
    }
    if (step.def->use_variant != nullptr) step.def->use_variant(variant->name);
    // The Setting as the step's own executable makes it: the values tuned on this machine (step
    // 10's wisdom) and the command line's, which win (a lesson's through its params' set()).
    gemm::ParamValues given;
    for (const auto& [param, value] : o.params) {
        given[step.param_index(*param)] = value;
        if (step.def->run == nullptr) param->set(value);
    }
    gemm::TunedParams tuned;
    const gemm::Setting setting = gemm::make_setting(step, variant->name, 1, given, &tuned);
    const std::string kernel(variant->name);
    gemm::OutputFile csv;
    if (!gemm::meter::open_csv("probe", o.csv, csv, std::cerr)) return gemm::kExitResource;
    if (!tuned.note.empty()) std::fprintf(stderr, "probe: %s\n", tuned.note.c_str());
    std::printf("probe: step %s, kernel %s, %s [%s]%s%s\n", slug.c_str(), kernel.c_str(), gemm::cpu::name().c_str(),
                gemm::cpu::microarch_label().c_str(), tuned.source.empty() ? "" : ", source=", tuned.source.c_str());
    std::string text =
        "step,m,n,k,ld,kernel,gflops_cpu_best,gflops_cpu_median,gflops_wall_best,gflops_wall_median,verified\n";
    bool all_ok = true;
    for (const int size : o.sizes) {
        const int ld = static_cast<int>(o.ld_fixed > 0 ? o.ld_fixed : size + o.pad);
        Row r;
        try {
            r = run(step, setting, size, ld, o.reps);
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "probe: out of memory at size %d, ld %d\n", size, ld);
            return gemm::kExitResource;
        }
        all_ok = all_ok && r.verified;
        char line[256];
        std::snprintf(line, sizeof line, "%s,%d,%d,%d,%d,%s,%.3f,%.3f,%.3f,%.3f,%d\n", slug.c_str(), size, size, size,
                      ld, kernel.c_str(), r.cpu_best, r.cpu_median, r.wall_best, r.wall_median, r.verified ? 1 : 0);
        text += line;
        std::printf("  n = %5d  ld = %5d  %8.2f GFLOPS (CPU time; median %.2f)  wall %8.2f (median %.2f)  %s%s\n",
                    size, ld, r.cpu_best, r.cpu_median, r.wall_best, r.wall_median,
                    r.verified ? "verified" : "WRONG: ", r.verified ? "" : r.problem.c_str());
        std::fflush(stdout);
    }
    if (const int failed = gemm::meter::write_csv("probe", o.csv, csv, text, std::cerr)) return failed;
    return gemm::finish_stdout("probe", all_ok ? gemm::kExitOk : gemm::kExitWrong);
}
