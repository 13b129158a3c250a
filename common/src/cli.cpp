// The command line of docs/contracts.md, "The executables", plus --kernel, --time-limit and the
// step's own tunables (--kc N ...). Every error names the option and the value.
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>

#include <optional>
#include <sstream>
#include <string_view>

namespace gemm {
namespace {

// A UsageError thrown inside the parser becomes a ParseResult with exit code 2.
[[noreturn]] void bad(std::string_view option, std::string_view value, std::string_view problem) {
    throw UsageError((value.empty() ? shown(option) : quoted(option, value)) + ": " + std::string(problem));
}

// --time-limit: seconds above 0; a million (eleven days) is more than any sweep.
constexpr double kMaxTimeLimit = 1e6;

}  // namespace

std::string usage(const Step& step, const std::string& program) {
    std::ostringstream out;
    out << "usage: " << program << " [options]\n"
        << "Times C += A*B (single precision, row-major, square sizes) with step " << step.slug
        << " and checks every result.\n\n"
        << "  --first N --last N --inc N  sweep m = n = k from first to last (default 100 1500 100)\n"
        << "  --sizes a,b,c               these sizes instead of the sweep\n"
        << "  --reps N                    timed repetitions per size (default 3); best and median\n"
        << "  --warmup N                  untimed runs before them (default 1; with 0, the verified\n"
        << "                              run is the first timed one)\n"
        << "  --threads N                 OpenMP threads (default " << (step.def->parallel ? "all cores" : "1")
        << "; at most " << max_threads(kThreadsPerCpu) << ", " << kThreadsPerCpu << " x the CPUs,\n"
        << "                              which holds for OMP_NUM_THREADS too)\n"
        << "  --csv FILE                  write the results as CSV, checked before the sweep: a file is\n"
        << "                              replaced whole after each size, a device or FIFO written through\n"
        << "  --no-verify                 skip the check against the double-precision reference\n"
        << "  --time-limit S              stop timing a size once its repetitions took S seconds\n"
        << "                              (at least one always runs; the CSV's reps column says how many)\n"
        << "  --plan                      print what each size would run (n=SIZE and the step's plan)\n"
        << "                              instead of running it\n";
    out << "  --kernel NAME               force a variant:";
    for (const Variant& v : step.def->variants)
        out << ' ' << v.name << (v.is_supported() ? "" : " (not on this CPU)");
    out << "\n";
    for (const Param& p : step.def->params) {
        // Before a run: no variant chosen, nothing given or tuned.
        const std::optional<int> value = shown_value(step, Setting{}, p);
        out << "  --" << p.name << " N" << std::string(p.name.size() < 24 ? 24 - p.name.size() : 1, ' ') << p.help
            << (value ? " (here: " + std::to_string(*value) + "; 0 = automatic)"
                      : std::string(" (changes nothing on this CPU)"))
            << "\n";
    }
    out << "  --help                      this text\n\n"
        << "Verification: C is compared with C0 + A*B computed in double precision; an element fails\n"
        << "when |C - ref| > (k + 2) * 2^-23 * (|A||B| + |C0|), and any NaN or Inf fails. Every element\n"
        << "is compared while m*n*k <= 512^3. Above that, whole rows (the first, the last 16 and 16\n"
        << "between) and whole columns (the first, the last 33 and 16 between) are compared, and every row sum\n"
        << "and column sum of C - C0 is checked, so a wrong tile anywhere is still caught.\n\n"
        << "Exit status: 0 all verified, 1 a result failed verification, 2 usage error,\n"
        << "3 out of memory or output not writable, 77 this CPU lacks what the step needs.\n"
        << "An option's value may not start with --, an option may be given once; --help anywhere\n"
        << "prints this and nothing else.\n";
    return out.str();
}

namespace {

// --sizes a,b,c: every entry a size (repeats allowed: a sweep may time a size twice).
std::vector<int> size_list(std::string_view option, std::string_view list) {
    if (list.empty()) bad(option, list, "the list is empty");   // "--sizes: ...", as for any empty value
    std::vector<int> sizes;
    for (const std::string& item : list_option(option, list, false))
        sizes.push_back(count_option(option, item, kMaxSize));
    return sizes;
}

std::string_view kernel_name(std::string_view option, std::string_view name, const Step& step) {
    if (step.find_variant(name) != nullptr) return name;
    std::string known;
    for (const Variant& v : step.def->variants) known += (known.empty() ? "" : ", ") + std::string(v.name);
    bad(option, name, "no such kernel in this step (it has: " + known + ")");
}

// The sizes of --first/--last/--inc (empty: the default). An error blames the option given: the
// other end may be a default.
struct Sweep {
    std::optional<int> first, last, inc;

    bool given() const { return first || last || inc; }
    std::vector<int> sizes() const {
        const int from = first.value_or(100), to = last.value_or(1500);
        if (to < from && last)
            bad("--last", std::to_string(to),
                "is below " + std::string(first ? "--first " : "the default --first ") + std::to_string(from));
        if (to < from)
            bad("--first", std::to_string(from),
                "is above the default --last " + std::to_string(to) + " (give --last too)");
        std::vector<int> out;
        for (int s = from; s <= to; s += inc.value_or(100)) out.push_back(s);
        return out;
    }
};

// Option argv[i] and, when it takes one, its value (after '=', else the next word: i moves on).
void parse_one(int argc, const char* const* argv, int& i, const Step& step, Options& o, Sweep& sweep) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool has_inline_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string_view::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline_value = true;
    }
    auto next = [&]() -> std::string_view {
        if (has_inline_value) return value;
        option_value(argc, argv, i);   // "--csv --no-verify": the value was forgotten
        return argv[i];
    };
    auto no_value = [&] {
        if (has_inline_value) bad(arg, value, "takes no value");
    };

    if (arg == "--help" || arg == "-h") {
        no_value();   // plain --help was handled before
    } else if (arg == "--first" || arg == "--last" || arg == "--inc") {
        std::optional<int>& field = arg == "--first" ? sweep.first : arg == "--last" ? sweep.last : sweep.inc;
        field = count_option(arg, next(), kMaxSize);
    } else if (arg == "--sizes") {
        o.sizes = size_list(arg, next());   // never empty
    } else if (arg == "--reps") {
        o.reps = count_option(arg, next(), 1000000);
    } else if (arg == "--warmup") {
        o.warmup = static_cast<int>(whole_option(arg, next(), 0, 1000000));
    } else if (arg == "--threads") {
        o.threads = threads_option(arg, next(), kThreadsPerCpu);
    } else if (arg == "--csv") {
        const std::string_view file = next();
        if (file.empty()) bad(arg, file, "needs a file name");
        o.csv = file;
    } else if (arg == "--no-verify") {
        no_value();
        o.verify = false;
    } else if (arg == "--plan") {
        no_value();
        o.plan = true;
    } else if (arg == "--time-limit") {
        o.time_limit = real_option(arg, next(), 0, kMaxTimeLimit, true);
    } else if (arg == "--kernel") {
        o.kernel = kernel_name(arg, next(), step);
    } else if (const Param* p = arg.rfind("--", 0) == 0 ? step.find_param(arg.substr(2)) : nullptr; p != nullptr) {
        int v = 0;
        if (std::string problem = parse_param(arg, next(), v); !problem.empty()) throw UsageError(problem);
        o.params.emplace_back(p, v);
    } else {
        bad("", arg, "unknown option (see --help)");
    }
}

}  // namespace

ParseResult parse_options(int argc, const char* const* argv, const Step& step) {
    ParseResult r;
    const std::string program = argc > 0 ? argv[0] : "gemm";
    // --help anywhere prints the usage and nothing else, whatever else the line holds.
    if (wants_help(argc, argv)) {
        r.exit_code = kExitOk;
        r.message = usage(step, program);
        return r;
    }
    try {
        if (const std::string twice = repeated_option(argc, argv); !twice.empty()) bad(twice, "", "given twice");
        Sweep sweep;
        for (int i = 1; i < argc; ++i) parse_one(argc, argv, i, step, r.options, sweep);
        if (r.options.sizes.empty()) r.options.sizes = sweep.sizes();
        else if (sweep.given()) bad("--sizes", "", "cannot be combined with --first/--last/--inc");
    } catch (const UsageError& e) {
        r.exit_code = kExitUsage;
        r.message = shown(program) + ": " + e.what();
    }
    return r;
}

}  // namespace gemm
