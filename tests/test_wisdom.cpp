// Step 10's wisdom file (steps/10_tuned/wisdom.cpp; docs/contracts.md, "Wisdom (step 10)"):
// a file for this CPU is taken, under the command line; anything else is refused whole with
// one line on standard error, and the run takes the rules, verified, exit 0. The executables
// run as a user runs them; each with GEMM_WISDOM unset or set here, never the caller's.
#include "steps/10_tuned/wisdom.hpp"

#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// These run the programs through /bin/sh with redirections of their own, which a cross build
// cannot put behind its emulator (as in test_executables.cpp).
#if defined(GEMM_TEST_EMULATOR)
#define WISDOM_NATIVE_ONLY() return
#else
#define WISDOM_NATIVE_ONLY() (void)0
#endif

const gemm::Step* tuned_step() {
    for (const gemm::Step& s : gemm::steps())
        if (s.slug == "10_tuned") return s.supported() ? &s : nullptr;
    return nullptr;   // built without OpenMP
}

std::string bin() { return GEMM_TEST_BIN_DIR; }

// A folder of this process's own, removed when it ends (FIFOs, a copy of the executable).
std::string scratch(const std::string& name) {
    static const struct Dir {
        fs::path path = fs::temp_directory_path() / ("gemm_wisdom_" + std::to_string(getpid()));
        Dir() { fs::create_directories(path); }
        ~Dir() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    } dir;
    return (dir.path / name).string();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::vector<std::string> split(const std::string& text, char at) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string part; std::getline(ss, part, at);) out.push_back(part);
    return out;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }   // no ' in our paths

// A run of step 10 (or a copy of it) at tiny sizes: its exit status, standard error, the
// progress header and, per CSV row, its params and verified columns.
struct Run {
    int status = -1;
    std::string err, header;
    std::vector<std::string> params, verified;
    std::size_t header_fields = 0;
    bool fields_agree = true;   // every row has as many fields as the header
};

Run run10(const std::string& env, const std::string& args, const std::string& exe = bin() + "/step10_tuned",
          const std::string& cwd = ".") {
    const std::string csv = scratch("run.csv"), out = scratch("out.txt"), err = scratch("err.txt");
    std::remove(csv.c_str());
    // timeout: a run that waits for ever (on a FIFO) is a failure, not a hung test.
    const std::string command = "cd " + cwd + " && env -u GEMM_WISDOM " + env + " timeout 60 " + exe + " " + args +
                                " --reps 1 --csv " + csv + " > " + out + " 2> " + err;
    const int status = std::system(command.c_str());
    Run r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    r.header = split(slurp(out), '\n').empty() ? "" : split(slurp(out), '\n')[0];
    const std::vector<std::string> lines = split(slurp(csv), '\n');
    if (lines.empty()) return r;
    const std::vector<std::string> names = split(lines[0], ',');
    r.header_fields = names.size();
    const auto column = [&](const char* name) {
        return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string> f = split(lines[i], ',');
        r.fields_agree = r.fields_agree && f.size() == names.size();
        r.params.push_back(column("params") < f.size() ? f[column("params")] : "");
        r.verified.push_back(column("verified") < f.size() ? f[column("verified")] : "");
    }
    return r;
}

long lines_in(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// The first lines of a file for this machine and kernel, as tools/tune.py writes them (the
// machine from cpuinfo --identity).
std::string head(const std::string& kernel) {
    const gemm::cpu::MachineLines m = gemm::cpu::machine_lines();
    return "# gemm-steps wisdom: step 10's parameters measured best on this CPU (tools/tune.py)\nformat 1\n" + m.cpu +
           "\n" + m.caches + "\nkernel " + kernel + "\n";
}

std::string best_kernel() { return std::string(tuned_step()->best_variant()->name); }

// The params column of a run on the rules (GEMM_WISDOM=off) with these options.
std::string rules_params(const std::string& args) {
    const Run r = run10("GEMM_WISDOM=off", args);
    REQUIRE(r.status == 0);
    REQUIRE(r.params.size() == 1);
    return r.params[0];
}

std::string with_source(std::string params, const std::string& source) {
    const std::string rules = "source=rules";
    REQUIRE(params.size() > rules.size());
    REQUIRE(params.compare(params.size() - rules.size(), rules.size(), rules) == 0);
    return params.replace(params.size() - rules.size(), rules.size(), "source=" + source);
}

}  // namespace

TEST_CASE("wisdom: a file for this CPU is taken - its line for the thread count, under the command line", "[wisdom]") {
    WISDOM_NATIVE_ONLY();
    if (tuned_step() == nullptr) return;
    const std::string file = scratch("good.txt");
    write(file, head(best_kernel()) + "threads 1 mc=30 kc=100 nc=200 no-even-k=1\n"
                                      "threads all mc=45 kc=77 nc=96 min-kflops=1 no-copy-b=1\n\n# the end\nnoise 0.021\n");
    const std::string source = "wisdom:" + file;
    struct Case {
        const char* args;       // the run's
        const char* same_as;    // the command line that gives the same params on the rules
    };
    for (const Case& c : {Case{"--sizes 37 --threads 1", "--sizes 37 --threads 1 --mc 30 --kc 100 --nc 200 --no-even-k 1"},
                          Case{"--sizes 37 --threads 2",
                               "--sizes 37 --threads 2 --mc 45 --kc 77 --nc 96 --min-kflops 1 --no-copy-b 1"},
                          // The command line wins, for its own params only.
                          Case{"--sizes 37 --threads 1 --mc 96", "--sizes 37 --threads 1 --mc 96 --kc 100 --nc 200 --no-even-k 1"},
                          Case{"--sizes 37 --threads 1 --kc 0", "--sizes 37 --threads 1 --mc 30 --nc 200 --no-even-k 1"}}) {
        INFO(c.args);
        const Run r = run10("GEMM_WISDOM=" + file, c.args);
        CHECK(r.status == 0);
        CHECK(r.err == "");
        REQUIRE(r.params.size() == 1);
        CHECK(r.verified[0] == "1");
        CHECK(r.params[0] == with_source(rules_params(c.same_as), source));
        CHECK(r.header.find(", source=" + source) != std::string::npos);
    }
    // A relative GEMM_WISDOM is named by its absolute path.
    const Run relative = run10("GEMM_WISDOM=good.txt", "--sizes 37 --threads 1", bin() + "/step10_tuned", scratch(""));
    CHECK(relative.status == 0);
    REQUIRE(relative.params.size() == 1);
    CHECK(relative.params[0].find(" source=" + source) != std::string::npos);

    // A path with a space, a comma, a quote and a percent sign stays one word of the params and
    // one field of the CSV.
    const std::string odd_dir = scratch("tuned here, 100% \"mine\"");
    write(odd_dir + "/w.txt", slurp(file));
    const Run odd = run10("GEMM_WISDOM=" + quoted(odd_dir + "/w.txt"), "--sizes 37,40 --threads 1");
    CHECK(odd.status == 0);
    CHECK(odd.err == "");
    CHECK(odd.fields_agree);
    REQUIRE(odd.params.size() == 2);
    const std::string word = "source=wisdom:" + scratch("") + "tuned%20here%2C%20100%25%20%22mine%22/w.txt";
    CHECK(odd.params[1].substr(odd.params[1].size() - word.size()) == word);
    CHECK(split(odd.params[1], ' ').back() == word);
    CHECK(odd.header.find(", " + word) != std::string::npos);
}

TEST_CASE("wisdom: a damaged file, or one from another machine, is refused with one line - the rules, verified", "[wisdom]") {
    WISDOM_NATIVE_ONLY();
    if (tuned_step() == nullptr) return;
    const std::string good = head(best_kernel());
    const gemm::cpu::MachineLines m = gemm::cpu::machine_lines();
    const std::vector<std::string> caches = split(m.caches, ' ');
    std::vector<std::string> cpu = split(m.cpu, ' ');
    cpu[3] = std::to_string(std::stol(cpu[3]) + 1);   // the next model
    std::string other_cpu;
    for (const std::string& w : cpu) other_cpu += (other_cpu.empty() ? "" : " ") + w;
    const std::string other_kernel = best_kernel() == "avx512" ? "avx2" : "avx512";
    const std::string body = "threads 1 mc=30 kc=100\n";
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string text = good + body;
        text.replace(text.find(from), from.size(), to);
        return text;
    };
    struct Case {
        std::string what, text, expect;   // text: the file's, or "<fifo>", "<folder>", ...
    };
    const std::vector<Case> cases = {
        {"unknown key", good + "colour blue\n" + body, "line 6: unknown key \"colour\""},
        {"unknown parameter", good + "threads 1 mc=30 foo=3\n", "line 6: unknown parameter \"foo\""},
        {"not a whole number", good + "threads 1 mc=3.5\n", "line 6: mc '3.5': not a whole number"},
        {"above the range", good + "threads 1 kc=65537\n", "kc '65537': must be from 0 to 65536 (0: automatic)"},
        {"below the range", good + "threads all nc=-1\n", "nc '-1': must be from 0 to 65536"},
        {"not NAME=VALUE", good + "threads 1 mc\n", "'mc': not NAME=VALUE"},
        {"a key twice", good + "format 1\n" + body, "line 6: a second \"format\" line (the first is line 2)"},
        {"threads 1 twice", good + body + body, "line 7: a second \"threads 1\" line (the first is line 6)"},
        {"a parameter twice", good + "threads 1 mc=30 mc=40\n", "\"mc\" given twice"},
        {"no kernel", replaced("kernel " + best_kernel() + "\n", ""), "no \"kernel\" line"},
        {"no threads line", good + "noise 0.02\n", "no \"threads\" line"},
        {"another format", replaced("format 1", "format 2"), "line 2: format '2': not 1"},
        {"threads 3", good + "threads 3 mc=30\n", "threads '3': not 1 or all"},
        {"a line too long", good + "# " + std::string(2000, 'x') + "\n" + body, "line 6: longer than 1024 characters"},
        {"a file too large", good + std::string(70000, '\n') + body, "larger than 65536 bytes"},
        {"a NUL byte", good + std::string("threads 1 mc=30\0\n", 17), "line 6: a NUL byte"},
        {"negative noise", good + body + "noise -1\n", "noise '-1': must be from 0"},
        {"no kernel of the step", replaced("kernel " + best_kernel(), "kernel sse"), "kernel 'sse': not one of"},
        {"another CPU", replaced(m.cpu, other_cpu), "was measured on"},
        {"other caches", replaced(m.caches, "caches " + std::to_string(std::stol(caches[1]) * 2) + " " + caches[2] + " " +
                                                caches[3]),
         "was measured on"},
        {"another kernel", replaced("kernel " + best_kernel(), "kernel " + other_kernel),
         "was measured with kernel " + other_kernel + ", this run's is " + best_kernel() + ": using the rules"},
        {"a folder", "<folder>", ": not a regular file (a folder); using the rules"},
        {"a FIFO", "<fifo>", ": not a regular file (a FIFO); using the rules"},
        {"a device", "<device>", ": not a regular file (a device); using the rules"},
        {"no such file", "<missing>", ": cannot read it: No such file or directory; using the rules"},
    };
    const std::string rules = rules_params("--sizes 37 --threads 1");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        INFO(c.what);
        std::string path = scratch("bad" + std::to_string(i) + ".txt");
        if (c.text == "<folder>") fs::create_directories(path);
        else if (c.text == "<fifo>") REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
        else if (c.text == "<device>") path = "/dev/null";
        else if (c.text != "<missing>") write(path, c.text);
        const Run r = run10("GEMM_WISDOM=" + path, "--sizes 37 --threads 1");
        CHECK(r.status == 0);
        CHECK(lines_in(r.err) == 1);
        CHECK(r.err.rfind("step10_tuned: wisdom " + path + (c.text[0] == '<' ? ":" : ""), 0) == 0);
        CHECK(r.err.find(c.expect) != std::string::npos);
        CHECK(r.err.find("using the rules\n") != std::string::npos);
        REQUIRE(r.params.size() == 1);
        CHECK(r.params[0] == rules);
        CHECK(r.verified[0] == "1");
        CHECK(r.header.find(", source=rules") != std::string::npos);
    }
    // The kernel the run takes decides, --kernel's too: the file for the other kernel is taken
    // with --kernel of it (where this CPU runs it).
    const std::string other = scratch("other_kernel.txt");
    write(other, head(other_kernel) + body);
    const Run forced = run10("GEMM_WISDOM=" + other, "--sizes 37 --threads 1 --kernel " + other_kernel);
    if (forced.status != 77) {
        CHECK(forced.status == 0);
        CHECK(forced.err == "");
        REQUIRE(forced.params.size() == 1);
        CHECK(forced.params[0].find("kc=100 ") != std::string::npos);
    }
}

TEST_CASE("wisdom: bin/probe takes it as the step does - its source in the header, a refusal in one line", "[wisdom]") {
    WISDOM_NATIVE_ONLY();
    if (tuned_step() == nullptr) return;
    const std::string file = scratch("probe-wisdom.txt");
    write(file, head(best_kernel()) + "threads 1 kc=100\n");
    const std::string probe = bin() + "/probe";
    const Run taken = run10("GEMM_WISDOM=" + file, "10 --sizes 37", probe);
    CHECK(taken.status == 0);
    CHECK(taken.err == "");
    CHECK(taken.header.find(", source=wisdom:" + file) != std::string::npos);
    write(file, head(best_kernel()) + "threads 1 kc=banana\n");
    const Run refused = run10("GEMM_WISDOM=" + file, "10 --sizes 37", probe);
    CHECK(refused.status == 0);
    CHECK(lines_in(refused.err) == 1);
    CHECK(refused.err.rfind("probe: ", 0) == 0);
    CHECK(refused.header.find(", source=rules") != std::string::npos);
}

TEST_CASE("wisdom: the default place is beside the executable - silent when missing, off when asked", "[wisdom]") {
    WISDOM_NATIVE_ONLY();
    if (tuned_step() == nullptr) return;
    // A copy of the executable in a folder of its own: <dir>/bin/step10_tuned reads
    // <dir>/wisdom/step10_tuned.txt, and the build's own wisdom folder is never touched.
    const std::string dir = scratch("install"), exe = dir + "/bin/step10_tuned";
    fs::create_directories(dir + "/bin");
    fs::copy_file(bin() + "/step10_tuned", exe, fs::copy_options::overwrite_existing);
    const std::string rules = rules_params("--sizes 37 --threads 2");

    // Nothing there: the rules, not a word said.
    fs::remove_all(dir + "/wisdom");
    Run r = run10("", "--sizes 37 --threads 2", exe);
    CHECK(r.status == 0);
    CHECK(r.err == "");
    REQUIRE(r.params.size() == 1);
    CHECK(r.params[0] == rules);

    // A file there is taken.
    const std::string file = dir + "/wisdom/step10_tuned.txt";
    write(file, head(best_kernel()) + "threads all kc=77\n");
    r = run10("", "--sizes 37 --threads 2", exe);
    CHECK(r.status == 0);
    CHECK(r.err == "");
    REQUIRE(r.params.size() == 1);
    CHECK(r.params[0].find("kc=77 ") != std::string::npos);
    CHECK(r.params[0].find(" source=wisdom:" + file) != std::string::npos);
    // A file without a line for the run's thread count leaves the rules, silently.
    r = run10("", "--sizes 37 --threads 1", exe);
    CHECK(r.status == 0);
    CHECK(r.err == "");
    REQUIRE(r.params.size() == 1);
    CHECK(r.params[0] == rules_params("--sizes 37 --threads 1"));

    // A damaged one is refused aloud, as a named one is; GEMM_WISDOM=off or empty never reads it.
    write(file, head(best_kernel()) + "threads all kc=seventy\n");
    r = run10("", "--sizes 37 --threads 2", exe);
    CHECK(r.status == 0);
    CHECK(lines_in(r.err) == 1);
    CHECK(r.err.rfind("step10_tuned: wisdom " + file + " line 6: kc 'seventy': not a whole number", 0) == 0);
    REQUIRE(r.params.size() == 1);
    CHECK(r.params[0] == rules);
    for (const char* off : {"GEMM_WISDOM=off", "GEMM_WISDOM="}) {
        INFO(off);
        r = run10(off, "--sizes 37 --threads 2", exe);
        CHECK(r.status == 0);
        CHECK(r.err == "");
        REQUIRE(r.params.size() == 1);
        CHECK(r.params[0] == rules);
    }
    // A usage error is still its own one line: the file is read once the command line is good.
    r = run10("", "--sizes 37 --reps 0", exe);
    CHECK(r.status == 2);
    CHECK(lines_in(r.err) == 1);
    CHECK(r.err.find(": wisdom ") == std::string::npos);
    fs::remove_all(dir);
}

// Odd tuned blocks and switches, on the blocked path (no-direct=1) and off it, on 1, 2 and 3
// threads: every size verified by the harness. A value goes through its param's set(), as
// --NAME N does: tile-cols=7 is the 16-column tile, not a 7-column one.
TEST_CASE("wisdom: tuned odd blocks and switches give verified results at odd sizes on 1, 2 and 3 threads", "[wisdom]") {
    WISDOM_NATIVE_ONLY();
    if (tuned_step() == nullptr) return;
    struct Values {
        const char* lines;
        const char *kc_one, *kc_all;   // as the params column shows them
    };
    for (const Values& v :
         {Values{"threads 1 mc=17 kc=19 nc=33 one-slice=1 no-even-k=1 no-direct=1 tile-rows=5 tile-cols=7 fold=2\n"
                 "threads all mc=23 kc=29 nc=47 min-kflops=1 no-copy-b=1 no-direct=1 no-narrow=1 no-prefetch=1\n",
                 " kc=19 ", " kc=29 "},
          Values{"threads 1 mc=3 kc=5 nc=7 no-vector-pack=1 no-strips=1\n"
                 "threads all mc=1 kc=3 nc=1 one-slice=4 min-kflops=1 old-blocks=1 tile-cols=16 no-fma=1\n",
                 " kc=5 ", " kc=3 "}}) {
        const std::string file = scratch("odd.txt");
        write(file, head(best_kernel()) + v.lines);
        for (const char* threads : {"1", "2", "3"}) {
            INFO(v.lines << "--threads " << threads);
            const Run r = run10("GEMM_WISDOM=" + file, std::string("--sizes 1,2,3,17,33,100,257 --threads ") + threads);
            CHECK(r.status == 0);
            CHECK(r.err == "");
            REQUIRE(r.params.size() == 7);
            for (std::size_t i = 0; i < r.params.size(); ++i) {
                CHECK(r.verified[i] == "1");
                CHECK(r.params[i].find(std::string(threads) == "1" ? v.kc_one : v.kc_all) != std::string::npos);
                CHECK(r.params[i].find(" source=wisdom:" + file) != std::string::npos);
            }
        }
    }
}

// In the process: what the hook gives, and that tuned blocks stand for the rules' blocks, not
// for --mc: small products still skip the packing (skip_packing, as the step's plan hook
// reports it: path=direct), which an asked block stops.
TEST_CASE("wisdom: tuned blocks replace the rules' and leave small products unpacked", "[wisdom]") {
    const gemm::Step* step = tuned_step();
    if (step == nullptr) return;
    const gemm::StepDef& def = *step->def;
    REQUIRE(def.tuned_params != nullptr);
    const std::string kernel = best_kernel();
    const std::string file = scratch("inproc.txt");
    write(file, head(kernel) + "threads 1 kc=100\nthreads all kc=77 mc=1\n");
    const char* before = std::getenv("GEMM_WISDOM");
    const std::string saved = before != nullptr ? before : "";
    ::setenv("GEMM_WISDOM", file.c_str(), 1);
    const auto kc = [&](const gemm::Setting& s) { return gemm::shown_value(*step, s, *step->find_param("kc")).value(); };
    const std::size_t mc = step->param_index(*step->find_param("mc"));
    const int rules_kc = kc(gemm::Setting{kernel});
    REQUIRE(def.plan != nullptr);
    const auto unpacked = [&](const gemm::Setting& s) { return def.plan(s, 37, 37, 37, 1).find("path=direct ") == 0; };
    const bool has_direct = kernel != "neon";   // NEON has no unpacked kernel: always packed

    // threads = 0 (cpuinfo) describes and gives nothing.
    gemm::TunedParams t = def.tuned_params(kernel, 0);
    CHECK(t.source == "wisdom:" + step10::wisdom::path_word(file));
    CHECK(t.note.find("a run on 1 thread takes kc=100; on more, kc=77 mc=1") != std::string::npos);
    CHECK(t.values == gemm::ParamValues{});

    gemm::Setting one = gemm::make_setting(*step, kernel, 1, {}, &t);
    CHECK(t.source == "wisdom:" + step10::wisdom::path_word(file));
    CHECK(t.note == "");
    CHECK(kc(one) == 100);
    CHECK(unpacked(one) == has_direct);
    one.given[mc] = 50;   // as --mc 50 does
    CHECK_FALSE(unpacked(one));
    one.given[mc] = 0;
    CHECK(unpacked(one) == has_direct);

    const gemm::Setting all = gemm::make_setting(*step, kernel, 3);
    CHECK(kc(all) == 77);
    CHECK(unpacked(all) == has_direct);
    CHECK(kc(gemm::Setting{kernel}) == rules_kc);

    ::setenv("GEMM_WISDOM", "off", 1);
    const gemm::Setting off = gemm::make_setting(*step, kernel, 1, {}, &t);
    CHECK(t.source == "rules");
    CHECK(kc(off) == rules_kc);
    if (before != nullptr) ::setenv("GEMM_WISDOM", saved.c_str(), 1);
    else ::unsetenv("GEMM_WISDOM");
}

TEST_CASE("wisdom: this machine's lines read back as this machine - cpuinfo --identity prints them", "[wisdom]") {
    const gemm::cpu::MachineLines m = gemm::cpu::machine_lines();
    CHECK(m.cpu.rfind("cpu ", 0) == 0);
    CHECK(split(m.cpu, ' ').size() >= 5);
    CHECK(m.caches.rfind("caches ", 0) == 0);
    CHECK(split(m.caches, ' ').size() == 4);
    if (const gemm::Step* step = tuned_step(); step != nullptr) {
        step10::wisdom::File file;
        CHECK(step10::wisdom::parse(head(best_kernel()) + "threads 1\n", step->def->params, step->def->variants, file) == "");
        CHECK(step10::wisdom::mismatch(file, step10::wisdom::this_machine(), best_kernel()) == "");
        CHECK(file.has_one);
        CHECK(file.one.empty());
    }
    WISDOM_NATIVE_ONLY();
    const std::string out = scratch("identity.txt");
    const auto cpuinfo = [&](const std::string& env, const std::string& args) {
        const int status = std::system(("env -u GEMM_WISDOM " + env + " " + bin() + "/cpuinfo " + args + " > " + out).c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    CHECK(cpuinfo("", "--identity") == 0);
    CHECK(slurp(out) == m.cpu + "\n" + m.caches + "\n");
    // The caches as the step sees them: GEMM_CACHES's.
    CHECK(cpuinfo("GEMM_CACHES=32K,512K,32M", "--identity") == 0);
    CHECK(split(slurp(out), '\n').at(1) == "caches 32768 524288 33554432");
    // The report says where step 10's values would come from.
    if (tuned_step() != nullptr) {
        const std::string file = scratch("report.txt");
        write(file, head(best_kernel()) + "threads 1 kc=100\n");
        CHECK(cpuinfo("GEMM_WISDOM=" + file, "") == 0);
        CHECK(slurp(out).find("source=wisdom:" + file + " (a run on 1 thread takes kc=100;") != std::string::npos);
        CHECK(cpuinfo("GEMM_WISDOM=off", "") == 0);
        CHECK(slurp(out).find("source=rules (GEMM_WISDOM is off") != std::string::npos);
    }
}

TEST_CASE("wisdom: a block at the cap, from --NAME or the file, runs at most 65536 - rounded down to the tile", "[wisdom]") {
    const gemm::Step* step = tuned_step();
    if (step == nullptr) return;
    const std::string kernel = best_kernel();
    const auto index = [&](const char* name) { return step->param_index(*step->find_param(name)); };
    gemm::Setting setting{kernel};
    const auto get = [&](const char* name) { return gemm::shown_value(*step, setting, *step->find_param(name)).value(); };
    const int mr = kernel == "avx512" ? 14 : kernel == "avx2" ? 6 : 8;
    const int nr = kernel == "avx512" ? 32 : kernel == "avx2" ? 16 : 12;
    const int cap = gemm::cpu::kMaxBlock;
    // --mc 65536 as the command line sets it: 65536 rounded up to 14 rows would be 65538.
    for (const char* name : {"mc", "kc", "nc", "one-slice"}) setting.given[index(name)] = cap;
    CHECK(get("mc") == cap / mr * mr);
    CHECK(get("nc") == cap / nr * nr);
    CHECK(get("kc") == cap);
    CHECK(get("one-slice") == cap);
    setting.given[index("old-blocks")] = 1;   // step 07's rules round alike
    CHECK(get("mc") == cap / mr * mr);
    CHECK(get("nc") == cap / nr * nr);
    // The same from a wisdom file.
    const std::string file = scratch("cap.txt");
    write(file, head(kernel) + "threads 1 mc=65536 nc=65536 kc=65536\n");
    const char* before = std::getenv("GEMM_WISDOM");
    const std::string saved = before != nullptr ? before : "";
    ::setenv("GEMM_WISDOM", file.c_str(), 1);
    setting = gemm::make_setting(*step, kernel, 1);
    CHECK(get("mc") == cap / mr * mr);
    CHECK(get("nc") == cap / nr * nr);
    CHECK(get("kc") == cap);
    if (before != nullptr) ::setenv("GEMM_WISDOM", saved.c_str(), 1);
    else ::unsetenv("GEMM_WISDOM");
}

// --plan reads the file as a run does: its line for the run's thread count, under the command
// line; its blocks leave a small product unpacked where the same blocks asked for pack it.
TEST_CASE("wisdom: --plan plans with the file's values - as the run would take them", "[wisdom][plan]") {
    WISDOM_NATIVE_ONLY();
    if (tuned_step() == nullptr) return;
    const std::string file = scratch("plan.txt");
    write(file, head(best_kernel()) + "threads 1 mc=30 kc=100 nc=200 one-slice=1\n"
                                      "threads all kc=77 one-slice=1 min-kflops=1\n");
    const auto lines = [](const Run& r) {
        CHECK(r.status == 0);
        CHECK(r.params.empty());   // no CSV written
        return r.header;           // the first line: n=1000's plan
    };
    const std::string tuned = lines(run10("GEMM_WISDOM=" + file, "--plan --sizes 1000,37 --threads 1"));
    CHECK(tuned == lines(run10("GEMM_WISDOM=off", "--plan --sizes 1000 --threads 1 --mc 30 --kc 100 --nc 200 --one-slice 1")));
    CHECK(tuned.find(" kc=100 ") != std::string::npos);
    CHECK(tuned != lines(run10("GEMM_WISDOM=off", "--plan --sizes 1000 --threads 1")));
    CHECK(lines(run10("GEMM_WISDOM=" + file, "--plan --sizes 1000 --threads 1 --kc 50")).find(" kc=50 ") != std::string::npos);
    const std::string all = lines(run10("GEMM_WISDOM=" + file, "--plan --sizes 1000 --threads 2"));
    CHECK(all == lines(run10("GEMM_WISDOM=off", "--plan --sizes 1000 --threads 2 --kc 77 --one-slice 1 --min-kflops 1")));
    // The small size: unpacked under the file's blocks (but on NEON), packed under --mc.
    const std::string out = scratch("out.txt");
    run10("GEMM_WISDOM=" + file, "--plan --sizes 37 --threads 1");
    const bool direct = best_kernel() != "neon";
    CHECK(slurp(out).rfind(direct ? "n=37 path=direct " : "n=37 path=packed ", 0) == 0);
    run10("GEMM_WISDOM=off", "--plan --sizes 37 --threads 1 --mc 30");
    CHECK(slurp(out).rfind("n=37 path=packed ", 0) == 0);
}
