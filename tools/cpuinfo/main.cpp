// bin/cpuinfo: what the steps see here (the report of `peak --info`, tools/peak/report.cpp);
// --steps, --uarch and --identity one-line answers for scripts (run_all.sh, tools/tune.py), and
// --json all of it for plots/machine.py (docs/contracts.md, "bin/cpuinfo --json"). The report,
// --steps and --json come from one gathering (peak.hpp's context).
#include "meter_cli.hpp"
#include "peak.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>
#include <gemm/registry.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using gemm::peak::StepFacts;

constexpr const char* kUsage =
    "usage: cpuinfo [--steps | --uarch | --identity | --json [--sizes N,N,...] [--threads T,T,...]]\n"
    "Prints the CPU, its instruction sets (CPUID or HWCAP), cores, clock, caches and\n"
    "the variant and block sizes each step uses here. --steps: one line per step,\n"
    "NUMBER SLUG parallel|serial VARIANT|unsupported, for scripts. --uarch: the\n"
    "microarchitecture's name (or vendor, family and model when not in the table).\n"
    "--identity: the two lines a wisdom file records and step 10 compares,\n"
    "'cpu VENDOR FAMILY MODEL MICROARCH' and 'caches L1D L2 L3' (bytes, after GEMM_CACHES).\n"
    "--json: all of the report but the measured clock as one JSON object (identity, caches,\n"
    "cores, features, peak formula inputs, libraries, the CSV's columns, each step's variant,\n"
    "register tile and block sizes); with --sizes and --threads, each step's plan for every\n"
    "m = n = k in the list on each thread count (sizes 1 to 46340; threads 1 to 4 x the CPUs).\n"
    "A bad option or value: one line on stderr, exit 2.\n";

// A small JSON writer for --json: objects, arrays, strings (quote, backslash and every control
// character escaped), numbers and booleans, in order, with two-space indents. It checks only the
// commas: keys go in objects, bare values in arrays.
class Json {
public:
    Json& object(std::string_view key = {}) { return open(key, '{'); }   // key: inside an object
    Json& array(std::string_view key = {}) { return open(key, '['); }
    Json& value(std::string_view key, std::string_view text) { return raw(key, quoted(text)); }
    Json& value(std::string_view key, long long number) { return raw(key, std::to_string(number)); }
    Json& flag(std::string_view key, bool yes) { return raw(key, yes ? "true" : "false"); }
    Json& null(std::string_view key) { return raw(key, "null"); }
    Json& element(std::string_view text) { return value({}, text); }   // a string in an array
    const std::string& text() const { return out_; }

    Json& real(std::string_view key, double number) {   // null when not finite
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", number);
        return raw(key, std::isfinite(number) ? buf : "null");
    }

    Json& end() {   // closes the innermost
        const Open closing = open_.back();
        open_.pop_back();
        if (closing.has_items) out_ += '\n' + std::string(2 * open_.size(), ' ');
        out_ += closing.bracket;
        if (open_.empty()) out_ += '\n';
        return *this;
    }

private:
    struct Open {
        char bracket;      // the one that closes it
        bool has_items;    // whether something is in it yet (a comma before the next)
    };
    std::vector<Open> open_;
    std::string out_;

    static std::string quoted(std::string_view text) {
        std::string s = "\"";
        for (const char ch : text) {
            const auto c = static_cast<unsigned char>(ch);
            char buf[8];
            if (c == '"' || c == '\\') {
                s += {'\\', ch};
            } else if (c == '\n') {
                s += "\\n";
            } else if (c == '\t') {
                s += "\\t";
            } else if (c < 0x20 || c == 0x7f) {   // the other control characters as \u00XX
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                s += buf;
            } else {
                s += ch;   // UTF-8 bytes pass as they are
            }
        }
        return s + '"';
    }

    // `json` after the comma, the newline and indent, and "key": when given.
    Json& raw(std::string_view key, std::string_view json) {
        if (!open_.empty()) {
            out_ += open_.back().has_items ? ",\n" : "\n";
            open_.back().has_items = true;
            out_.append(2 * open_.size(), ' ');
        }
        if (!key.empty()) out_ += quoted(key) + ": ";
        out_ += json;
        return *this;
    }

    Json& open(std::string_view key, char bracket) {
        raw(key, std::string_view(&bracket, 1));
        open_.push_back({bracket == '{' ? '}' : ']', false});
        return *this;
    }
};

// What --json's plans are for: the sizes and thread counts given.
struct PlanRequest {
    std::vector<int> sizes, threads;
};

void steps_lines(const std::vector<StepFacts>& steps) {
    for (const StepFacts& s : steps)
        std::cout << s.step->number << ' ' << s.step->slug << ' ' << (s.step->def->parallel ? "parallel" : "serial")
                  << ' ' << (s.variant ? s.variant->name : std::string_view("unsupported")) << '\n';
}

// "mc=112 kc=256 note=x" as an object; a value of digits is a number, anything else a string.
void pairs(Json& j, std::string_view key, const std::string& text) {
    j.object(key);
    std::istringstream words(text);
    for (std::string item; words >> item;) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
        const bool digits = !value.empty() && value.size() < 16 && value.find_first_not_of("0123456789") == std::string::npos;
        if (digits) j.value(name, std::stoll(value));
        else j.value(name, value);
    }
    j.end();
}

// The variant's register tile, null when it has none (or there is no variant).
void tile(Json& j, const gemm::Variant* v) {
    if (v != nullptr && v->mr > 0 && v->nr > 0) j.object("tile").value("mr", v->mr).value("nr", v->nr).end();
    else j.null("tile");
}

void step_json(Json& j, const StepFacts& s, const PlanRequest& request) {
    const gemm::StepDef& def = *s.step->def;
    j.object().value("number", s.step->number).value("slug", s.step->slug);
    j.value("threading", def.parallel ? "parallel" : "serial");
    j.value("variant", s.variant ? s.variant->name : std::string_view("unsupported"));
    tile(j, s.variant);
    j.array("variants");
    for (const gemm::Variant& v : def.variants) {
        j.object().value("name", v.name).flag("supported", v.is_supported()).value("requirement", v.requirement);
        tile(j, &v);
        j.end();
    }
    j.end().array("params");
    for (const StepFacts::Value& p : s.params) j.object().value("name", p.name).value("value", p.value).value("help", p.help).end();
    j.end();
    if (s.has_tuned) j.object("tuned").value("source", s.tuned.source).value("note", s.tuned.note).end();
    j.array("plans");
    if (s.variant) {
        // What a run on each thread count would take: the wisdom file's values for that count.
        std::vector<gemm::Setting> settings;
        for (int threads : request.threads) settings.push_back(gemm::make_setting(*s.step, s.variant->name, threads));
        for (int size : request.sizes)
            for (std::size_t t = 0; t < request.threads.size(); ++t) {
                const int threads = request.threads[t];
                j.object().value("size", size).value("threads", threads);
                pairs(j, "plan", def.plan ? def.plan(settings[t], size, size, size, threads) : std::string());
                j.end();
            }
    }
    j.end().end();
}

void identity_json(Json& j) {
    const gemm::cpu::Identity& id = gemm::cpu::identity();
    const gemm::cpu::MachineLines lines = gemm::cpu::machine_lines();
    j.object("identity").value("name", gemm::cpu::name()).value("arch", gemm::cpu::arch());
    j.value("vendor", id.vendor).value("family", id.family).value("model", id.model).value("stepping", id.stepping);
    j.value("microarch", gemm::cpu::microarch().name).value("label", gemm::cpu::microarch_label());
    j.array("wisdom_lines").element(lines.cpu).element(lines.caches).end();
    j.end();
    const gemm::cpu::Caches& c = gemm::cpu::caches();
    j.object("caches").value("l1d", c.l1d).value("l2", c.l2).value("l3", c.l3).value("source", c.source).end();
}

void peak_json(Json& j, const gemm::peak::Context& ctx) {
    j.object("cpus").value("logical", ctx.logical_cpus).value("physical_cores", ctx.physical_cores);
    j.value("pinning_note", gemm::cpu::pinning_note());
    j.value("core_kinds", gemm::cpu::core_kinds_line(gemm::cpu::core_kinds())).end();
    j.object("clock").real("os_ghz", ctx.os_clock.ghz).value("source", ctx.os_clock.source).end();
    j.object("features").array("names");
    for (std::string_view f : ctx.features) j.element(f);
    j.end().value("source", ctx.feature_source).end();
    // bin/peak's formula: physical cores x GHz x FLOPs per cycle, per ISA (os_ghz: 0 = unknown).
    j.object("peak").value("formula", "physical_cores x ghz x fp32_per_cycle");
    j.value("pipes", gemm::cpu::microarch().pipes).array("isas");
    for (const gemm::peak::IsaFacts& isa : ctx.isas)
        j.object().value("name", isa.isa->name).real("fp32_per_cycle", isa.flops.fp32)
            .real("fp64_per_cycle", isa.flops.fp32 * isa.isa->fp64_share).value("source", isa.flops.source)
            .value("why", isa.flops.why).end();
    j.end().end();
    j.object("libraries").value("openblas", ctx.openblas).value("blis", ctx.blis).end();
}

void json_report(const PlanRequest& request) {
    const gemm::peak::Context ctx = gemm::peak::context();
    Json j;
    j.object().value("format", "gemm-steps cpuinfo 1");
    identity_json(j);
    peak_json(j, ctx);
    j.array("csv_columns");
    for (std::string_view column : gemm::csv_columns()) j.element(column);
    j.end().array("steps");
    for (const StepFacts& s : ctx.steps) step_json(j, s, request);
    j.end().end();
    std::cout << j.text();
}

// --json's own options: --sizes and --threads, each at most once (repeated_option sees to it).
PlanRequest plan_request(int argc, char** argv) {
    PlanRequest request;
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--sizes") {
            request.sizes = gemm::meter::whole_list(arg, gemm::option_value(argc, argv, i), gemm::kMaxSize);
        } else if (arg == "--threads") {
            request.threads =
                gemm::meter::whole_list(arg, gemm::option_value(argc, argv, i), gemm::max_threads(gemm::kThreadsPerCpu));
        } else {
            throw gemm::UsageError(gemm::quoted("", arg) + ": unexpected argument (see --help)");
        }
    }
    if (request.threads.empty() && !request.sizes.empty()) request.threads = {1};
    return request;
}

// Throws gemm::UsageError. Only --json takes more than one option, so only it can repeat one.
void run(int argc, char** argv) {
    if (const std::string problem = gemm::environment_problem(); !problem.empty()) throw gemm::UsageError(problem);
    const std::string_view arg = argc > 1 ? argv[1] : "";
    if (arg == "--json") {
        if (const std::string twice = gemm::repeated_option(argc, argv); !twice.empty())
            throw gemm::UsageError(gemm::shown(twice) + ": given twice");
        json_report(plan_request(argc, argv));
    } else if (argc > 2) {
        throw gemm::UsageError(gemm::quoted("", argv[2]) + ": unexpected argument (see --help)");
    } else if (arg == "--uarch") {   // "Zen 4", or "GenuineIntel family 6 model 1"
        std::cout << gemm::cpu::microarch_label() << '\n';
    } else if (arg == "--identity") {   // the lines step 10's wisdom is compared with (gemm/cpu.hpp)
        const gemm::cpu::MachineLines lines = gemm::cpu::machine_lines();
        std::cout << lines.cpu << '\n' << lines.caches << '\n';
    } else if (arg == "--steps") {
        steps_lines(gemm::peak::step_facts());
    } else if (!arg.empty()) {
        throw gemm::UsageError(gemm::quoted("", arg) + ": unknown option (see --help)");
    } else {
        gemm::peak::cpu_report(std::cout);
    }
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    int status = 0;
    if (gemm::wants_help(argc, argv)) {
        std::cout << kUsage;
    } else {
        try {
            run(argc, argv);
        } catch (const gemm::UsageError& e) {
            std::cerr << "cpuinfo: " << e.what() << '\n';
            status = 2;
        }
    }
    return gemm::finish_stdout("cpuinfo", status);
}
