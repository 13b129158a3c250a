// End to end: the harness's main loop in-process on made-up steps (a right one, a wrong
// one, one this CPU cannot run), and the real step executables as a user runs them.
#include "build_kind.hpp"
#include "kernel_choice.hpp"
#include "replacements.hpp"
#include "scratch.hpp"

#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>
#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

void right_kernel(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < k; ++p)
            for (int j = 0; j < n; ++j) C[i * ldc + j] += A[i * lda + p] * B[p * ldb + j];
}

// Right everywhere but one element of sizes above 20: the kind of edge bug steps have.
void wrong_kernel(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    right_kernel(m, n, k, A, lda, B, ldb, C, ldc);
    if (m > 20) C[(m - 1) * ldc + (n - 1)] += 0.5f;
}

bool never() { return false; }

// Scratch files live in a folder of this test process's own (tests/scratch.hpp).
using gemm::test::scratch;

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string field(const std::string& line, int index) {
    std::stringstream ss(line);
    std::string f;
    for (int i = 0; i <= index; ++i) std::getline(ss, f, ',');
    return f;
}

const gemm::Step* find_parallel_step() {
    for (const gemm::Step& s : gemm::steps())
        if (s.def->parallel) return &s;
    return nullptr;
}

int run(const gemm::Step& step, std::vector<std::string> args) {
    args.insert(args.begin(), "test");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return gemm::run_main(static_cast<int>(args.size()), argv.data(), step);
}

// Runs a step executable; in a cross build through the emulator (qemu-aarch64 -L ...), since
// without binfmt_misc the system cannot start a foreign binary by itself.
// env: VAR=value settings for the program, given to env(1) before the emulator. Standard
// output goes to `out`, standard error to scratch("stderr.txt").
int shell(const std::string& command, const std::string& env = "", const std::string& out = "/dev/null") {
#if defined(GEMM_TEST_EMULATOR)
    std::string line = GEMM_TEST_EMULATOR " " + command;
#else
    std::string line = command;
#endif
    if (!env.empty()) line = "env " + env + " " + line;
    const int status = std::system((line + " > " + out + " 2> " + scratch("stderr.txt")).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

int calls = 0;
void counting_kernel(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    ++calls;
    right_kernel(m, n, k, A, lda, B, ldb, C, ldc);
}

}  // namespace

TEST_CASE("a right kernel: exit 0 - one verified CSV row per size", "[e2e]") {
    static constexpr gemm::Variant v[] = {{"plain", right_kernel}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{11, "11_right", right_kernel, [] { return true; }, &def};
    CHECK(run(step, {"--sizes", "5,16,33", "--reps", "2", "--csv", scratch("e2e_right.csv")}) == gemm::kExitOk);
    const auto lines = read_lines(scratch("e2e_right.csv"));
    REQUIRE(lines.size() == 4);
    CHECK(field(lines[1], 0) == "11_right");
    CHECK(field(lines[1], 1) == "5");
    CHECK(field(lines[3], 3) == "33");
    for (int i = 1; i <= 3; ++i) {
        CHECK(field(lines[i], 9) == "1");
        CHECK(std::stod(field(lines[i], 5)) > 0);
        CHECK(std::stod(field(lines[i], 5)) >= std::stod(field(lines[i], 6)));   // best >= median
        CHECK(field(lines[i], 11) == "2");
    }
    std::remove(scratch("e2e_right.csv").c_str());
}

TEST_CASE("a wrong kernel: exit 1 - and the wrong size's row still written with verified=0", "[e2e]") {
    static constexpr gemm::Variant v[] = {{"plain", wrong_kernel}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{12, "12_wrong", wrong_kernel, [] { return true; }, &def};
    CHECK(run(step, {"--sizes", "8,30", "--reps", "1", "--csv", scratch("e2e_wrong.csv")}) == gemm::kExitWrong);
    const auto lines = read_lines(scratch("e2e_wrong.csv"));
    REQUIRE(lines.size() == 3);
    CHECK(field(lines[1], 9) == "1");
    CHECK(field(lines[2], 9) == "0");
    // Without verification nothing is judged, so nothing fails, and the row does not
    // pretend it was checked.
    CHECK(run(step, {"--sizes", "30", "--reps", "1", "--no-verify", "--csv", scratch("e2e_wrong.csv")}) == gemm::kExitOk);
    const auto unchecked = read_lines(scratch("e2e_wrong.csv"));
    REQUIRE(unchecked.size() == 2);
    CHECK(field(unchecked[1], 9) == "0");
    CHECK(field(unchecked[1], 8) == "nan");
    std::remove(scratch("e2e_wrong.csv").c_str());
}

TEST_CASE("a step this CPU cannot run exits 77 - and so does a forced variant it lacks", "[e2e]") {
    static constexpr gemm::Variant v[] = {{"future", right_kernel, never, "AVX-1024"}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{13, "13_future", right_kernel, never, &def};
    CHECK(run(step, {"--sizes", "8"}) == gemm::kExitUnsupported);

    static constexpr gemm::Variant two[] = {{"plain", right_kernel}, {"future", right_kernel, never, "AVX-1024"}};
    static constexpr gemm::StepDef def2{.variants = two};
    const gemm::Step step2{14, "14_two", right_kernel, [] { return true; }, &def2};
    CHECK(run(step2, {"--sizes", "8", "--kernel", "future"}) == gemm::kExitUnsupported);
    CHECK(run(step2, {"--sizes", "8", "--kernel", "plain", "--reps", "1"}) == gemm::kExitOk);

    // A variant of another architecture, listed without a kernel in this build.
    static constexpr gemm::Variant other[] = {{"plain", right_kernel}, {"neon", nullptr, nullptr, "NEON (an AArch64 build)"}};
    static constexpr gemm::StepDef def3{.variants = other};
    const gemm::Step step3{16, "16_other", right_kernel, [] { return true; }, &def3};
    CHECK_FALSE(other[1].is_supported());
    CHECK(run(step3, {"--sizes", "8", "--kernel", "neon"}) == gemm::kExitUnsupported);
    CHECK(run(step3, {"--sizes", "8", "--reps", "1"}) == gemm::kExitOk);   // the best is "plain"
}

TEST_CASE("a size that cannot fit in memory is refused with exit 3 - not a crash", "[e2e]") {
    static constexpr gemm::Variant v[] = {{"plain", right_kernel}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{15, "15_big", right_kernel, [] { return true; }, &def};
    if (gemm::available_memory() == 0) {
        WARN("this system does not report available memory: skipped");
        return;
    }
    // 46340^2 floats x 4 matrices is 32 GiB: larger than this test's machines have free.
    if (gemm::available_memory() > 40ULL << 30) return;
    CHECK(run(step, {"--sizes", "46340"}) == gemm::kExitResource);
}

TEST_CASE("the step executables run as the README says", "[e2e]") {
    const std::string bin = GEMM_TEST_BIN_DIR;
    for (const gemm::Step& step : gemm::steps()) {
        const std::string exe = bin + "/step" + std::string(step.slug);
        const std::string csv = scratch("e2e_" + std::string(step.slug) + ".csv");
        INFO(exe);
        const int expected = step.supported() ? 0 : 77;
        REQUIRE(shell(exe + " --sizes 16,37 --reps 1 --csv " + csv) == expected);
        if (expected == 77) continue;
        const auto lines = read_lines(csv);
        REQUIRE(lines.size() == 3);
        CHECK(field(lines[1], 0) == std::string(step.slug));
        CHECK(field(lines[2], 2) == "37");
        CHECK(field(lines[2], 9) == "1");
        std::remove(csv.c_str());
        CHECK(shell(exe + " --reps 0") == 2);
        CHECK(shell(exe + " --help") == 0);
    }
}

// Valgrind (cachegrind counts what a product reads from each cache, noise or not) cannot run
// /proc/self/exe, which the parallel steps re-run themselves as to set short OpenMP spins:
// under it they skip that, and run (they ended with status 1 and no word before).
TEST_CASE("a parallel step runs under valgrind", "[e2e]") {
    // An AddressSanitizer build's steps are too: valgrind cannot run them.
    if (gemm::test::kAddressSanitizer || shell("valgrind --version") != 0) {
        WARN("valgrind is not installed, or the build is AddressSanitizer's: skipped");
        return;
    }
    const std::string out = scratch("valgrind.txt");
    CHECK(shell("valgrind -q --tool=none " + std::string(GEMM_TEST_BIN_DIR) + "/step10_tuned --sizes 16 --reps 1",
                "-u GOMP_SPINCOUNT -u OMP_WAIT_POLICY -u KMP_BLOCKTIME -u GEMM_SPIN_SET GEMM_WISDOM=off", out) == 0);
    CHECK(slurp(out).find("n=   16") != std::string::npos);
    std::remove(out.c_str());
}

// Step 10's block rules bound what a product reads beyond L2, the traffic a neighbour streaming
// memory slows (steps/10_tuned/blocks.hpp, outer_bytes_per_flop): the B panel once per A block
// of mc rows and C once per slice of kc, 2 / mc + 4 / kc bytes a FLOP, at most 0.025. On a
// 512 KiB L2 the AVX2 tile cannot get there with its A block in a quarter of L2 (the least is
// 0.035, at kc 416); the rules made 0.086 there before (mc 24, kc 1488).
TEST_CASE("step 10's blocks keep the traffic beyond L2 bounded on every cache", "[e2e]") {
    const std::string csv = scratch("traffic.csv");
    struct Case {
        const char* caches;
        const char* kernel;
        double most;
    };
#if defined(__x86_64__)
    const Case cases[] = {{"32K,512K,32M", "avx2", 0.036},  {"32K,256K,8M", "avx2", 0.066},
                          {"32K,1M,32M", "avx2", 0.025},    {"48K,1280K,30M", "avx2", 0.025},
                          {"48K,2M,300M", "avx2", 0.025},   {"32K,1M,32M", "avx512", 0.025},
                          {"48K,2M,300M", "avx512", 0.025}, {"48K,1M,32M", "avx512", 0.025}};
#else
    const Case cases[] = {{"64K,1M,32M", "neon", 0.025}};
#endif
    for (const Case& c : cases) {
        INFO("GEMM_CACHES=" << c.caches << " --kernel " << c.kernel);
        const int status = shell(std::string(GEMM_TEST_BIN_DIR) + "/step10_tuned --kernel " + c.kernel +
                                     " --sizes 20 --reps 1 --csv " + csv,
                                 "GEMM_CACHES=" + std::string(c.caches) + " GEMM_WISDOM=off");
        if (status == 77) continue;   // this CPU lacks the variant
        REQUIRE(status == 0);
        const auto lines = read_lines(csv);
        REQUIRE(lines.size() == 2);
        const std::string params = field(lines[1], 14);
        INFO(params);
        const auto value = [&](const std::string& name) {
            const std::size_t at = params.find(name + "=");
            REQUIRE(at != std::string::npos);
            return std::stod(params.substr(at + name.size() + 1));
        };
        const double mc = value("mc"), kc = value("kc");
        CHECK(2 / mc + 4 / kc <= c.most);
    }
    std::remove(csv.c_str());
}

// The CSV's params column and the progress line name the block sizes of the variant that
// ran, which differ per register tile: a forced --kernel avx2 shows the 6 x 16 tile's
// (kc from 16-float rows of the B sliver in step 08), not those of the AVX-512 kernel the CPU would pick,
// and only the tunables that change that variant (step 10's AVX2 run has no AVX-512 kernel
// switches, its AVX-512 run has them). GEMM_CACHES fixes the caches, so the expected values
// are the same on every machine; GEMM_WISDOM=off keeps step 10 on its rules whatever a tuner
// left in the build's wisdom folder, and its params end with where they came from.
TEST_CASE("the CSV names the block sizes of the variant that ran", "[e2e]") {
    const std::string bin = GEMM_TEST_BIN_DIR;
    const std::string csv = scratch("params.csv");
    struct Case {
        const char* step;
        const char* kernel;
        const char* params;
    };
#if defined(__x86_64__)
    // Step 10's AVX2 kernel on Zen 3's caches: kc 416, the depth of least traffic beyond L2
    // (no depth keeps it within 0.025 bytes a FLOP there), and k up to 784 in one slice.
    const Case cases[] = {{"08_avx512_14x32", "avx2", "mc=252 kc=256 nc=8192"},
                          {"08_avx512_14x32", "avx512", "mc=504 kc=128 nc=16384"},
                          {"09_openmp", "avx2", "mc=252 kc=256 nc=8192"},
                          {"10_tuned", "avx2",
                           "mc=78 kc=416 nc=10080 one-slice=784 min-kflops=1500 no-direct=0 no-vector-pack=0 "
                           "no-even-k=0 old-blocks=0 no-copy-b=0 source=rules"}};
#else
    const Case cases[] = {{"08_avx512_14x32", "neon", "mc=192 kc=336 nc=6240"}};
#endif
    for (const Case& c : cases) {
        INFO(c.step << " --kernel " << c.kernel);
        const int status = shell(bin + "/step" + c.step + " --kernel " + c.kernel + " --sizes 20 --reps 1 --csv " + csv,
                                 "GEMM_CACHES=32K,512K,32M GEMM_WISDOM=off");
        if (status == 77) continue;   // this CPU lacks the variant
        REQUIRE(status == 0);
        const auto lines = read_lines(csv);
        REQUIRE(lines.size() == 2);
        CHECK(field(lines[0], 14) == "params");
        CHECK(field(lines[1], 14) == c.params);
    }
#if defined(__x86_64__)
    // Step 10's AVX-512 run ends with that kernel's switches (its blocks depend on the FMA
    // units, so only the end is compared). Its broadcasts are not folded where two load ports
    // serve two 512-bit FMA units (Skylake-SP, Cascade Lake, Ice Lake-SP).
    if (shell(bin + "/step10_tuned --kernel avx512 --sizes 20 --reps 1 --csv " + csv, "GEMM_WISDOM=off") == 0) {
        const auto lines = read_lines(csv);
        REQUIRE(lines.size() == 2);
        const auto& u = gemm::cpu::microarch();
        const bool fold = !(u.loads == 2 && u.avx512 == 64);
        const std::string params = field(lines[1], 14),
                          tail = std::string(" fold=") + (fold ? "1" : "2") + " tile-rows=14 tile-cols=32 source=rules";
        CHECK(params.size() > tail.size());
        CHECK(params.compare(params.size() - tail.size(), tail.size(), tail) == 0);
    }
#endif
    CHECK(shell(bin + "/step08_avx512_14x32 --sizes 20", "GEMM_CACHES=32K") == 2);   // not three sizes
    std::remove(csv.c_str());
}

// Step 08's block rule (steps/08_avx512_14x32/loop_nest.cpp, block_sizes), the analytical
// model: kc puts the B sliver (kc x NR floats) in half of L1d, mc the A block (mc x kc) in half
// of L2, nc the B panel (kc x nc) in a quarter of L3; kc a multiple of 16, mc of MR, nc of NR,
// each at least one unit and at most 65536. The values are worked out here by hand, not by the
// formula, for real and odd geometries. Step 09 builds the same code: it must agree.
TEST_CASE("step 08's blocks follow the cache rule on every geometry", "[e2e]") {
    const std::string bin = GEMM_TEST_BIN_DIR;
    const std::string csv = scratch("rule08.csv");
    struct Case {
        const char* caches;
        const char* kernel;
        const char* options;
        const char* params;
    };
#if defined(__x86_64__)
    const Case cases[] = {
        // Zen 3: kc = 16384 / 64 = 256; mc = 262144 / 1024 = 256 -> 252; nc = 8 MiB / 1024 = 8192
        {"32K,512K,32M", "avx2", "", "mc=252 kc=256 nc=8192"},
        // Zen 5: kc = 24576 / 128 = 192; mc = 524288 / 768 = 682.7 -> 672; nc = 8 MiB / 768 = 10922.7 -> 10912
        {"48K,1M,32M", "avx512", "", "mc=672 kc=192 nc=10912"},
        {"48K,1M,32M", "avx2", "", "mc=336 kc=384 nc=5456"},
        // Zen 4: kc = 16384 / 128 = 128; mc = 524288 / 512 = 1024 -> 1022; nc = 16384
        {"32K,1M,32M", "avx512", "", "mc=1022 kc=128 nc=16384"},
        // Emerald Rapids: mc = 1 MiB / 768 = 1365.3 -> 1358; nc = 65 MiB / 768 = 88746.7, held to 65536
        {"48K,2M,260M", "avx512", "", "mc=1358 kc=192 nc=65536"},
        // odd sizes: kc = 16896 / 64 = 264 -> 256; mc = 153600 / 1024 = 150; nc = 1835008 / 1024 = 1792
        {"33K,300K,7M", "avx2", "", "mc=150 kc=256 nc=1792"},
        // kc = 20480 / 128 = 160; mc = 655360 / 640 = 1024 -> 1022; nc = 4718592 / 640 = 7372.8 -> 7360
        {"40K,1280K,18M", "avx512", "", "mc=1022 kc=160 nc=7360"},
        // tiny caches: every block at least one unit (kc 16, mc one tile, nc one sliver)
        {"1K,1K,1K", "avx2", "", "mc=6 kc=16 nc=16"},
        // huge ones: kc and nc held to 65536; mc = 8 GiB / 262144 = 32768 -> 32760
        {"1G,16G,1024G", "avx512", "", "mc=32760 kc=65536 nc=65536"},
        // a kc given: mc and nc follow it (262144 / 400 = 655.4 -> 654; 8 MiB / 400 = 20971.5 -> 20960)
        {"32K,512K,32M", "avx2", "--kc 100", "mc=654 kc=100 nc=20960"},
        // mc and nc given: rounded up to whole tiles and slivers, kc still from L1
        {"32K,512K,32M", "avx2", "--mc 50 --nc 100", "mc=54 kc=256 nc=112"},
        // given at the cap: rounded up to whole tiles would pass 65536 (65538, 65548), so rounded down
        {"32K,512K,32M", "avx2", "--mc 65536 --nc 65536", "mc=65532 kc=256 nc=65536"},
        {"32K,512K,32M", "avx512", "--mc 65535 --nc 65535", "mc=65534 kc=128 nc=65536"}};
#else
    const Case cases[] = {
        // kc = 32768 / 48 = 682.7 -> 672; mc = 524288 / 2688 = 195 -> 192; nc = 8 MiB / 2688 = 3120.8 -> 3120
        {"64K,1M,32M", "neon", "", "mc=192 kc=672 nc=3120"},
        // kc = 16384 / 48 = 341.3 -> 336; mc = 262144 / 1344 = 195 -> 192; nc = 6241.5 -> 6240
        {"32K,512K,32M", "neon", "", "mc=192 kc=336 nc=6240"},
        {"1K,1K,1K", "neon", "", "mc=8 kc=16 nc=12"}};
#endif
    for (const char* step : {"08_avx512_14x32", "09_openmp"}) {
        for (const Case& c : cases) {
            INFO(step << " GEMM_CACHES=" << c.caches << " --kernel " << c.kernel << " " << c.options);
            const int status = shell(bin + "/step" + step + " --kernel " + c.kernel + " " + c.options +
                                         " --sizes 20 --reps 1 --csv " + csv,
                                     "GEMM_CACHES=" + std::string(c.caches));
            if (status == 77 || (status == 127 && std::string(step) == "09_openmp")) continue;   // no such variant or step here
            REQUIRE(status == 0);
            const auto lines = read_lines(csv);
            REQUIRE(lines.size() == 2);
            CHECK(field(lines[1], 14) == c.params);
        }
    }
    std::remove(csv.c_str());
}

TEST_CASE("probe runs a step at a leading dimension of its own - and refuses what it cannot do", "[e2e][probe]") {
    const std::string probe = std::string(GEMM_TEST_BIN_DIR) + "/probe";
    const std::string csv = scratch("probe.csv");
    // ld = 64 for sizes 37 and 40: A, B and C padded with NaN, which must not reach C.
    REQUIRE(shell(probe + " 07_packing --sizes 37,40 --ld 64 --reps 2 --csv " + csv) == 0);
    const auto lines = read_lines(csv);
    REQUIRE(lines.size() == 3);
    CHECK(field(lines[0], 4) == "ld");
    CHECK(field(lines[2], 1) == "40");
    CHECK(field(lines[2], 4) == "64");
    CHECK(field(lines[2], 10) == "1");
    CHECK(shell(probe + " 5 --sizes 33 --pad 3 --reps 1 --kc 8") == 2);       // step 05 has no --kc
    CHECK(shell(probe + " 6 --sizes 33 --pad 3 --reps 1 --kc 8") == 0);
    CHECK(shell(probe + " 7 --sizes 100 --ld 64") == 2);                        // ld below the size
    CHECK(shell(probe + " 7 --ld 2048 --pad 1") == 2);
    CHECK(shell(probe + " no_such_step") == 2);
    CHECK(shell(probe + " 8 --kernel no_such_kernel --sizes 8") == 2);
    CHECK(shell(probe) == 2);
    if (const gemm::Step* parallel = find_parallel_step(); parallel != nullptr)   // runs on one thread
        CHECK(shell(probe + " " + std::to_string(parallel->number) + " --sizes 37,130 --pad 3 --reps 1") == 0);
    CHECK(shell(probe + " --help") == 0);
}

// --help (or -h) anywhere on the line prints the usage and nothing else, exit 0, whatever else
// the line holds: an unknown option, a bad value, a repeated option. Every program built.
TEST_CASE("a help option wins wherever it stands, in every program", "[e2e]") {
    const std::string bin = GEMM_TEST_BIN_DIR;
    std::vector<std::string> programs{"probe 10", "peak", "bandwidth", "cpuinfo", "ref_openblas", "ref_blis"};
    for (const gemm::Step& step : gemm::steps()) programs.push_back("step" + std::string(step.slug));
    const std::string out = scratch("help.txt");
    int ran = 0;
    for (const std::string& program : programs) {
        const std::string exe = bin + "/" + program.substr(0, program.find(' '));
        if (::access(exe.c_str(), X_OK) != 0) continue;   // a runner not built here
        ++ran;
        for (const char* rest : {"--bogus --help", "--seconds abc --help", "--reps 1 --reps 2 -h", "--help --bogus"}) {
            INFO(program << " " << rest);
            CHECK(shell(bin + "/" + program + " " + rest, "", out) == 0);
            CHECK(slurp(out).rfind("usage", 0) == 0);
            CHECK(slurp(scratch("stderr.txt")).empty());
        }
    }
    CHECK(ran >= 5);
    std::remove(out.c_str());
}

TEST_CASE("the CSV path is checked before the first size is measured", "[e2e]") {
    static constexpr gemm::Variant v[] = {{"plain", counting_kernel}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{17, "17_count", counting_kernel, [] { return true; }, &def};
    calls = 0;
    CHECK(run(step, {"--sizes", "8", "--reps", "1", "--csv", scratch("no/such/folder/x.csv")}) == gemm::kExitResource);
    CHECK(calls == 0);
    CHECK(run(step, {"--sizes", "8", "--reps", "1", "--csv", scratch("")}) == gemm::kExitResource);   // a folder
    CHECK(calls == 0);
    CHECK(run(step, {"--sizes", "8", "--reps", "1", "--csv", "/dev/null"}) == gemm::kExitOk);
    CHECK(calls > 0);
}

// The calls a size costs: the verified one, then the warm-ups and --reps timed ones; with
// --warmup 0 the verified call is the first timed one (a sample of tools/interleave.py that
// verifies costs no call more than one that does not). A busy machine may time the reps again
// (the harness's busy retries: whole sets of --reps), so the count is checked modulo --reps;
// a time limit that one call exceeds allows no retry.
TEST_CASE("with --warmup 0 the verified call is the first timed one", "[e2e]") {
    static constexpr gemm::Variant v[] = {{"plain", counting_kernel}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{17, "17_count", counting_kernel, [] { return true; }, &def};
    const std::string csv = scratch("warmup.csv");
    struct Case {
        std::vector<std::string> args;
        int untimed, reps;   // calls = untimed + reps x (1 + retries)
        const char* verified;
    };
    const Case cases[] = {{{"--warmup", "0", "--reps", "3"}, 0, 3, "1"},
                          {{"--warmup", "0", "--reps", "3", "--no-verify"}, 0, 3, "0"},
                          {{"--warmup", "1", "--reps", "3"}, 1, 3, "1"},
                          {{"--warmup", "2", "--reps", "3"}, 2, 3, "1"},
                          {{"--warmup", "0", "--reps", "20", "--time-limit", "1e-9"}, 0, 1, "1"}};
    for (const Case& c : cases) {
        std::vector<std::string> args = {"--sizes", "24", "--csv", csv};
        args.insert(args.end(), c.args.begin(), c.args.end());
        INFO("--warmup " << c.args[1] << " --reps " << c.args[3] << " " << (c.args.size() > 4 ? c.args[4] : ""));
        calls = 0;
        REQUIRE(run(step, args) == gemm::kExitOk);
        CHECK(calls >= c.untimed + c.reps);
        CHECK((calls - c.untimed) % c.reps == 0);
        if (c.args.size() > 4 && c.args[4] == "--time-limit") CHECK(calls == 1);
        const auto lines = read_lines(csv);
        REQUIRE(lines.size() == 2);
        CHECK(field(lines[1], 11) == std::to_string(c.reps));
        CHECK(field(lines[1], 9) == c.verified);
    }
    std::remove(csv.c_str());
}

TEST_CASE("output that cannot be written is exit 3 - /dev/null and /dev/stdout simply work", "[e2e]") {
    const gemm::Step* step = nullptr;
    for (const gemm::Step& s : gemm::steps())
        if (s.supported()) step = &s;
    REQUIRE(step != nullptr);
    const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(step->slug) + " --sizes 8 --reps 1";
    CHECK(shell(exe + " --csv /dev/null") == 0);
    const std::string out = scratch("stdout.txt");
    CHECK(shell(exe + " --csv /dev/stdout", "", out) == 0);
    const std::string text = slurp(out);
    INFO(text);
    CHECK(text.find("n=    8") != std::string::npos);           // the progress line, and after it
    CHECK(text.find("step,m,n,k,") > text.find("n=    8"));      // the CSV, not over it
    if (::access("/dev/full", W_OK) == 0) {
        CHECK(shell(exe + " --csv /dev/full") == 3);
        CHECK(slurp(scratch("stderr.txt")).find("/dev/full") != std::string::npos);
        CHECK(shell(exe, "", "/dev/full") == 3);                        // stdout itself
        CHECK(slurp(scratch("stderr.txt")).find("standard output") != std::string::npos);
        CHECK(shell(exe + " --help", "", "/dev/full") == 3);
    }
}

TEST_CASE("a library that calls exit() inside the kernel gives exit 3 - not 1, wrong result", "[e2e]") {
    // libgomp does this when it cannot start a thread. Run in a child process: it ends.
    static constexpr gemm::Variant v[] = {{"plain", [](int, int, int, const float*, int, const float*, int, float*, int) {
                                               std::exit(1);
                                           }}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{18, "18_exits", v[0].kernel, [] { return true; }, &def};
    const std::string err_file = scratch("exit_stderr.txt");   // named by the parent's pid
    std::fflush(nullptr);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::freopen("/dev/null", "w", stdout);
        std::freopen(err_file.c_str(), "w", stderr);
        run(step, {"--sizes", "8", "--reps", "1"});
        std::_Exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == gemm::kExitResource);
    CHECK(slurp(err_file).find("a library ended the program") != std::string::npos);
}

// ---- Thread counts: what ran, whatever asked for it (docs/contracts.md: the threads column) --------------

namespace {

// The threads column of every data row of a CSV.
std::vector<std::string> threads_column(const std::string& csv) {
    std::vector<std::string> out;
    const auto lines = read_lines(csv);
    for (std::size_t i = 1; i < lines.size(); ++i) out.push_back(field(lines[i], 4));
    return out;
}

const gemm::Step* parallel_step() {
    for (const gemm::Step& s : gemm::steps())
        if (s.def->parallel && s.supported()) return &s;
    return nullptr;
}

}  // namespace

TEST_CASE("a parallel step records the threads OpenMP gave it", "[e2e][threads]") {
    const gemm::Step* step = parallel_step();
    if (step == nullptr) return;   // built without OpenMP
    const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(step->slug);
    const std::string csv = scratch("threads.csv");
    const std::string usable = std::to_string(std::min(gemm::cpu::cores(), 4));
    const std::string run = " --sizes 256,300 --reps 1 --csv " + csv;   // large enough for every thread
    const std::vector<std::string> one = {"1", "1"};

    REQUIRE(shell(exe + run, "OMP_NUM_THREADS=1") == 0);
    CHECK(threads_column(csv) == one);              // OMP_NUM_THREADS is honoured
    REQUIRE(shell(exe + " --threads 2" + run, "OMP_THREAD_LIMIT=1") == 0);
    CHECK(threads_column(csv) == one);              // the limit caps even --threads
    REQUIRE(shell(exe + " --threads " + usable + run, "OMP_NUM_THREADS=1") == 0);
    CHECK(threads_column(csv) == std::vector<std::string>{usable, usable});   // --threads wins
    if (gemm::cpu::cores() >= 2) {
        // OMP_PROC_BIND pins the main thread at start-up; the step must still use every CPU.
        const std::string all = std::to_string(gemm::cpu::cores());
        for (const char* bind : {"true", "close", "spread"}) {
            INFO("OMP_PROC_BIND=" << bind);
            REQUIRE(shell(exe + run, std::string("-u OMP_NUM_THREADS OMP_PROC_BIND=") + bind) == 0);
            CHECK(threads_column(csv) == std::vector<std::string>{all, all});
        }
    }
    std::remove(csv.c_str());
}

TEST_CASE("a sample with no untimed call (--warmup 0 --no-verify) records the threads its calls ran on",
          "[e2e][threads]") {
    // tools/interleave.py samples so; the threads are known only once a call has run.
    const gemm::Step* step = parallel_step();
    if (step == nullptr || gemm::cpu::cores() < 2) return;
    const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(step->slug);
    const std::string csv = scratch("sample_threads.csv");
    REQUIRE(shell(exe + " --threads 2 --sizes 300 --warmup 0 --reps 2 --no-verify --csv " + csv) == 0);
    CHECK(threads_column(csv) == std::vector<std::string>{"2"});
    std::remove(csv.c_str());
}

TEST_CASE("a serial step given --threads records the one thread it ran on", "[e2e][threads]") {
    const std::string csv = scratch("serial_threads.csv");
    const gemm::Step& first = gemm::steps().front();
    REQUIRE_FALSE(first.def->parallel);
    REQUIRE(shell(std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(first.slug) +
                  " --threads 2 --sizes 16 --reps 1 --csv " + csv) == 0);
    CHECK(threads_column(csv) == std::vector<std::string>{"1"});
    std::remove(csv.c_str());
}

// ---- Reference runners: the library's best kernels for this CPU, named --------------------

TEST_CASE("the reference runners name the kernels they ran - the widest this CPU can run", "[e2e][ref]") {
    for (const std::string lib : {"openblas", "blis"}) {
        const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/ref_" + lib;
        if (!std::filesystem::exists(exe)) continue;
        INFO(exe);
        auto report = [&](const std::string& env, const std::string& args) {
            std::string text;
            if (FILE* p = popen((env + " " + exe + " --kernels " + args + " 2>&1").c_str(), "r")) {
                char buf[256];
                while (std::fgets(buf, sizeof buf, p) != nullptr) text += buf;
                pclose(p);
            }
            return text;
        };
        auto line = [](const std::string& text, const std::string& key) {
            const auto at = text.find(key + " ");
            return at == std::string::npos ? std::string() : text.substr(at + key.size() + 1, text.find('\n', at) - at - key.size() - 1);
        };
        const std::string var = lib == "openblas" ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE";
        const std::string normal = report("env -u " + var, "");
        INFO(normal);
        const auto lib_enum = lib == "openblas" ? gemm::ref::Library::openblas : gemm::ref::Library::blis;
        const auto vectors = gemm::ref::cpu_vectors();
        const std::string widest = vectors.avx512 ? "avx512" : vectors.avx2_fma ? "avx2" : vectors.avx ? "avx" : "";
        const std::string detected_isa = gemm::ref::isa_of(lib_enum, line(normal, "detected"));
        if (!widest.empty() && detected_isa != widest && !(widest == "avx2" && detected_isa == "avx512")) {
            // The library misdetected this CPU: the runner must have moved it, and say so.
            CHECK(line(normal, "isa") == widest);
            CHECK(line(normal, "label").find("(detected: " + line(normal, "detected") + ")") != std::string::npos);
        } else {
            CHECK(line(normal, "running") == line(normal, "detected"));
        }
        // --as-detected runs the library's own choice; a variable set by the user is obeyed.
        const std::string as_detected = report("env -u " + var, "--as-detected");
        CHECK(line(as_detected, "running") == line(normal, "detected"));
        if (lib == "openblas" && vectors.avx2_fma) {
            CHECK(line(report("env OPENBLAS_CORETYPE=haswell", ""), "running") == "Haswell");
        }
        // The CSV's kernel column is the label: the library, its version and the kernels.
        const std::string csv = scratch("ref_" + lib + ".csv");
        REQUIRE(shell(exe + " --sizes 32 --reps 1 --threads 2 --csv " + csv, "-u " + var) == 0);
        const auto lines = read_lines(csv);
        REQUIRE(lines.size() == 2);
        CHECK(field(lines[1], 10) == line(normal, "label"));
        CHECK(field(lines[1], 4) == "2");   // the library's own thread count
        std::remove(csv.c_str());
    }
}

namespace {

// A FIFO's reader, in a thread: what the writer sends until it closes. release() lets a reader
// that no writer ever came to go (a FIFO replaced by a file, or never opened), so the test
// fails instead of hanging.
class FifoReader {
public:
    explicit FifoReader(std::string path) : path_(std::move(path)), thread_([this] { received_ = slurp(path_); }) {}
    std::string release() {
        ::close(::open(path_.c_str(), O_WRONLY | O_NONBLOCK));   // ENXIO when the reader is gone
        thread_.join();
        return received_;
    }

private:
    std::string path_, received_;
    std::thread thread_;
};

bool is_fifo(const std::string& path) {
    struct stat st{};
    return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// A device of the test's own, "null" or "full" (Linux's numbers), or "" when none can be made:
// run as root, a writer that renames over its path would otherwise replace the system's
// /dev/null. Another user cannot make one, nor replace /dev/null: that one is used.
std::string own_device(const std::string& name) {
    const std::string path = scratch("dev_" + name);
    ::unlink(path.c_str());
    if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, name == "null" ? 3 : 7)) == 0) return path;
    return ::geteuid() == 0 ? "" : "/dev/" + name;
}

bool is_device(const std::string& path) {
    struct stat st{};
    return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace

TEST_CASE("probe --csv: checked before measuring - a link kept, a FIFO and a device written through, never replaced",
          "[e2e][probe][output]") {
    namespace fs = std::filesystem;
    const std::string run = std::string(GEMM_TEST_BIN_DIR) + "/probe 1 --sizes 16 --reps 1 --csv ";
    const std::string out = scratch("probe_stdout.txt");
    // A folder that is not there: exit 3 and one line naming it, before anything is measured.
    CHECK(shell(run + scratch("no/such/folder/p.csv"), "", out) == 3);
    CHECK(slurp(out).empty());
    const std::string err = slurp(scratch("stderr.txt"));
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(err.find("no/such/folder/p.csv") != std::string::npos);

    const std::string target = scratch("probe_target.csv"), link = scratch("probe_link.csv");
    std::ofstream(target) << "old\n";
    fs::remove(link);
    fs::create_symlink(target, link);
    CHECK(shell(run + link) == 0);
    CHECK(fs::is_symlink(link));
    const auto lines = read_lines(target);
    CHECK(lines.size() == 2);
    CHECK((lines.size() == 2 && field(lines[1], 1) == "16"));

    const std::string fifo = scratch("probe_fifo");
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    FifoReader reader(fifo);
    CHECK(shell(run + fifo) == 0);
    const std::string received = reader.release();
    CHECK(received.rfind("step,m,n,k,ld,", 0) == 0);
    CHECK(std::count(received.begin(), received.end(), '\n') == 2);
    CHECK(is_fifo(fifo));

    const std::string null = own_device("null"), full = own_device("full");
    if (!null.empty()) {
        CHECK(shell(run + null) == 0);
        CHECK(is_device(null));
    }
    if (!full.empty() && ::access(full.c_str(), W_OK) == 0) {
        CHECK(shell(run + full) == 3);                                    // the CSV lost
        CHECK(slurp(scratch("stderr.txt")).find(full) != std::string::npos);
        CHECK(is_device(full));
        CHECK(shell(run + scratch("probe_ok.csv"), "", full) == 3);       // the report lost
    }
    if (null.rfind(scratch(""), 0) == 0) fs::remove(null);
    if (full.rfind(scratch(""), 0) == 0) fs::remove(full);
    fs::remove(target);
    fs::remove(link);
    fs::remove(fifo);
    fs::remove(scratch("probe_ok.csv"));
}

TEST_CASE("a sweep of thousands of sizes rewrites its CSV a bounded number of times - complete at the end",
          "[e2e][output]") {
    // Rewriting the whole CSV after every size made 3,000 quick sizes quadratic (seconds of
    // rewriting for milliseconds of measuring). Counted, not timed: the renames onto the CSV.
    const std::string csv = scratch("many_sizes.csv");
    std::string sizes;
    for (int i = 0; i < 3000; ++i) sizes += std::to_string(2 + i % 3) + ',';
    sizes.pop_back();
    Replacements replaced(std::filesystem::path(csv).parent_path().string(), "many_sizes.csv");
    REQUIRE(replaced.watching());
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(shell(std::string(GEMM_TEST_BIN_DIR) + "/step01_baseline --reps 1 --sizes " + sizes + " --csv " + csv) == 0);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto lines = read_lines(csv);
    REQUIRE(lines.size() == 3001);
    CHECK(field(lines[1], 1) == "2");
    CHECK(field(lines[3000], 1) == "4");   // size 2 + 2999 % 3
    const long count = replaced.count();
    INFO(count << " replacements in " << elapsed << " s");
    CHECK(count >= 1);
    // The first row at once, one replacement per interval at most, the last one at the end.
    CHECK(count <= 2 + static_cast<long>(elapsed / gemm::OutputFile::kGrowingInterval));
    std::remove(csv.c_str());
}

namespace {

std::string slow_csv;
long slow_csv_lines = -1;
void slow_kernel(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    static int last_m = 0;
    const bool first_call = m != last_m;
    last_m = m;
    // Size 6 takes longer than the interval at which the CSV may be rewritten; size 7, as it
    // starts, looks at what is on disk.
    if (m == 6 && first_call)
        std::this_thread::sleep_for(std::chrono::duration<double>(gemm::OutputFile::kGrowingInterval + 0.1));
    if (m == 7 && first_call) slow_csv_lines = static_cast<long>(read_lines(slow_csv).size());
    right_kernel(m, n, k, A, lda, B, ldb, C, ldc);
}

}  // namespace

TEST_CASE("a size that took longer than the CSV's interval is on disk before the next size starts", "[e2e][output]") {
    static constexpr gemm::Variant v[] = {{"plain", slow_kernel}};
    static constexpr gemm::StepDef def{.variants = v};
    const gemm::Step step{19, "19_slow", slow_kernel, [] { return true; }, &def};
    slow_csv = scratch("slow.csv");
    CHECK(run(step, {"--sizes", "5,6,7", "--reps", "1", "--csv", slow_csv}) == gemm::kExitOk);
    CHECK(slow_csv_lines == 3);   // the header, sizes 5 and 6
    CHECK(read_lines(slow_csv).size() == 4);
    std::remove(slow_csv.c_str());
}

// ---- One thread cap, however the count arrives (docs/contracts.md, "Threads") ---------------

namespace {

std::string stderr_text() { return slurp(scratch("stderr.txt")); }
long line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

}  // namespace

TEST_CASE("OMP_NUM_THREADS over the cap is refused as --threads over it is - exit 2, one line, nothing run",
          "[e2e][threads]") {
    const gemm::Step* step = parallel_step();
    if (step == nullptr) return;   // built without OpenMP
    const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(step->slug);
    const std::string csv = scratch("cap.csv");
    const std::string run = " --sizes 16 --reps 1 --csv " + csv;
    const int cap = gemm::max_threads(gemm::kThreadsPerCpu);
    const std::string over = std::to_string(cap + 1);
    std::remove(csv.c_str());
    for (const std::string& asked : {over, std::string("999"), over + ",2"}) {   // a list: its first level counts
        INFO("OMP_NUM_THREADS=" << asked);
        CHECK(shell(exe + run, "OMP_NUM_THREADS=" + asked) == gemm::kExitUsage);
        const std::string err = stderr_text();
        CHECK(line_count(err) == 1);
        CHECK(err.find("OMP_NUM_THREADS '" + asked + "': must be from 1 to " + std::to_string(cap)) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(csv));   // refused before anything was measured
    }
    CHECK(shell(exe + " --threads " + over + run) == gemm::kExitUsage);   // the same cap
    CHECK(stderr_text().find("--threads '" + over + "': must be from 1 to " + std::to_string(cap)) != std::string::npos);
    REQUIRE(shell(exe + " --threads 1" + run, "OMP_NUM_THREADS=999") == 0);   // --threads overrides it
    CHECK(threads_column(csv) == std::vector<std::string>{"1"});
    CHECK(shell(exe + run, "OMP_NUM_THREADS=" + std::to_string(cap)) == 0);   // at the cap: runs
    std::remove(csv.c_str());
}

TEST_CASE("the header, each progress line and each CSV row agree on the threads", "[e2e][threads]") {
    const gemm::Step* step = parallel_step();
    if (step == nullptr) return;
    const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(step->slug);
    const std::string csv = scratch("agree.csv"), out = scratch("agree.txt");
    // 16: a product too small to share out (steps 09 and 10 run it on one thread); 300: on two.
    REQUIRE(shell(exe + " --sizes 16,300 --reps 1 --csv " + csv, "OMP_NUM_THREADS=2", out) == 0);
    const auto lines = read_lines(out);
    REQUIRE_FALSE(lines.empty());
    INFO(slurp(out));
    // The header gives the plan: "up to 2 threads" when the step takes fewer for small products.
    const bool takes_fewer = step->def->threads_used != nullptr || step->def->run != nullptr;
    const std::string plan = takes_fewer ? "up to 2 threads," : " 2 threads,";
    CHECK(lines[0].find(plan) != std::string::npos);
    std::vector<std::string> progress;   // "n size: threads" from the progress lines
    for (const std::string& line : lines) {
        const auto n = line.find(" n=");
        const auto t = line.find(" thread");
        if (n == std::string::npos || t == std::string::npos) continue;
        const auto count_start = line.rfind(' ', t - 1) + 1;
        progress.push_back(std::to_string(std::stoi(line.substr(n + 3))) + ": " + line.substr(count_start, t - count_start));
    }
    std::vector<std::string> rows;
    const auto csv_lines = read_lines(csv);
    for (std::size_t i = 1; i < csv_lines.size(); ++i) rows.push_back(field(csv_lines[i], 1) + ": " + field(csv_lines[i], 4));
    CHECK(progress == rows);
    CHECK(rows.size() == 2);
    std::remove(csv.c_str());
}

TEST_CASE("a reference runner's library runs on --threads or 1 - whatever its own variables ask", "[e2e][ref][threads]") {
    const std::string all_asks = "OPENBLAS_NUM_THREADS=999 GOTO_NUM_THREADS=999 BLIS_NUM_THREADS=999 OMP_NUM_THREADS=999";
    const std::string over = std::to_string(gemm::max_threads(gemm::kThreadsPerCpu) + 1);
    for (const std::string lib : {"openblas", "blis"}) {
        const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/ref_" + lib;
        if (!std::filesystem::exists(exe)) continue;
        INFO(exe);
        const std::string csv = scratch("ref_threads.csv"), out = scratch("ref_threads.txt");
        REQUIRE(shell(exe + " --sizes 32 --reps 1 --csv " + csv, all_asks, out) == 0);
        CHECK(threads_column(csv) == std::vector<std::string>{"1"});
        CHECK(slurp(out).find(", 1 thread,") != std::string::npos);   // the header says so too
        REQUIRE(shell(exe + " --sizes 32 --reps 1 --threads 2 --csv " + csv, all_asks) == 0);
        CHECK(threads_column(csv) == std::vector<std::string>{"2"});
        CHECK(shell(exe + " --sizes 32 --threads " + over, all_asks) == gemm::kExitUsage);
        std::remove(csv.c_str());
    }
}

// ---- Kernel sets forced through the library's variable (docs/contracts.md) ---------------------

TEST_CASE("a forced kernel set: exit 2 when the value names none, 77 when this CPU lacks it - never SIGILL",
          "[e2e][ref]") {
    struct Lib {
        std::string name, var;
        std::vector<std::string> names_nothing;
        std::string foreign;     // a set of another architecture's instructions
        std::string widest;      // the library's AVX-512 set
    };
    const Lib libs[] = {{"openblas", "OPENBLAS_CORETYPE", {"garbage", "", "3"}, "armv8", "SkylakeX"},
                        {"blis", "BLIS_ARCH_TYPE", {"", "1x", "garbage", "999"}, "cortexa57", "skx"}};
    for (const Lib& lib : libs) {
        const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/ref_" + lib.name;
        if (!std::filesystem::exists(exe)) continue;
        auto expect = [&](const std::string& value, const std::string& args, int code) {
            INFO(lib.var << "='" << value << "' ref_" << lib.name << args);
            CHECK(shell(exe + args, lib.var + "='" + value + "'") == code);
            if (code == 0) return;
            const std::string err = stderr_text();
            CHECK(line_count(err) == 1);
            CHECK(err.find(lib.var + " '" + value + "'") != std::string::npos);
        };
        for (const std::string& value : lib.names_nothing) {
            expect(value, " --sizes 32 --reps 1", gemm::kExitUsage);
            expect(value, " --kernels", gemm::kExitUsage);
        }
#if defined(__x86_64__)
        expect(lib.foreign, " --sizes 32 --reps 1", gemm::kExitUnsupported);
        expect(lib.widest, " --sizes 32 --reps 1", gemm::ref::cpu_vectors().avx512 ? 0 : gemm::kExitUnsupported);
#endif
    }
}

TEST_CASE("ref_* --kernels checks the rest of the command line as a run would", "[e2e][ref]") {
    for (const std::string lib : {"openblas", "blis"}) {
        const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/ref_" + lib;
        if (!std::filesystem::exists(exe)) continue;
        INFO(exe);
        const std::string unset = "-u OPENBLAS_CORETYPE -u BLIS_ARCH_TYPE";
        CHECK(shell(exe + " --kernels --sizes 64", unset) == 0);
        for (const char* bad : {" --kernels --sizes abc", " --sizes abc --kernels", " --kernels --reps 1 --reps 2",
                                " --kernels --kernels", " --kernels --bogus"}) {
            INFO(bad);
            CHECK(shell(exe + bad, unset) == gemm::kExitUsage);
            CHECK(line_count(stderr_text()) == 1);
        }
    }
}

// ---- What a hostile user found: each answers as docs/contracts.md says -----------------------

namespace {

// These run the programs through /bin/sh with redirections of their own, which a cross build
// cannot put behind its emulator: they run in the native builds (GCC, ASan, clang), whose
// code is the same.
#if defined(GEMM_TEST_EMULATOR)
#define GEMM_NATIVE_ONLY() return
#else
#define GEMM_NATIVE_ONLY() (void)0
#endif

std::string bin_dir() { return GEMM_TEST_BIN_DIR; }
bool built(const std::string& program) { return ::access((bin_dir() + "/" + program).c_str(), X_OK) == 0; }

// Runs a /bin/sh command line as it is (its own redirections: `>&-`), standard error to
// scratch("stderr.txt"); -1 for a signal, 124 from timeout(1) for a hang.
int sh_raw(const std::string& command) {
    const int status = std::system(("(" + command + ") 2> " + scratch("stderr.txt")).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The positive numbers after "NAME = " in cpuinfo's block-size lines.
std::vector<long> block_values(const std::string& report) {
    std::vector<long> values;
    std::istringstream in(report);
    for (std::string line; std::getline(in, line);) {
        for (const char* name : {" mc = ", " kc = ", " nc = ", " one-slice = "}) {
            const auto at = line.find(name);
            if (at != std::string::npos) values.push_back(std::atol(line.c_str() + at + std::strlen(name)));
        }
    }
    return values;
}

}  // namespace

// Block sizes come from the cache sizes through rules computed in 64 bits and held to
// [one tile, 65536]: no cache size GEMM_CACHES accepts makes a block 0, negative or absurd
// (nc = 0 looped for ever, a negative nc read as out of memory, 0 divided: SIGFPE).
TEST_CASE("extreme GEMM_CACHES: every block positive, every step verifies at small odd sizes", "[e2e][caches]") {
    GEMM_NATIVE_ONLY();
    const std::vector<std::string> extremes = {"1K,1K,1K",   "1K,1K,1024G", "1K,1K,512G", "1K,1K,256G",
                                               "32K,512K,1024G", "1K,16G,1024G", "1G,16G,0"};
    const std::string out = scratch("cpuinfo.txt");
    for (const std::string& caches : extremes) {
        INFO("GEMM_CACHES=" << caches);
        CHECK(shell(bin_dir() + "/cpuinfo", "GEMM_CACHES=" + caches, out) == 0);
        const std::vector<long> blocks = block_values(slurp(out));
        CHECK(blocks.size() >= 8);
        for (const long b : blocks) {
            CHECK(b >= 1);
            CHECK(b <= 65536);
        }
        // bandwidth measures each level once, under its own name (1K,1K,1K made L2 and L3 one
        // working set, measured twice as "L3"), and only what fits in memory. A 16G L2 is left
        // out here: its 8 GiB working set fits on most machines and takes half a minute to touch.
        const std::string bw_csv = scratch("bw_caches.csv");
        const std::string levels_arg = caches.find(",16G,") == std::string::npos ? "" : " --levels L1,L3,DRAM";
        CHECK(shell(bin_dir() + "/bandwidth --threads 1 --seconds 0.01" + levels_arg + " --csv " + bw_csv,
                    "GEMM_CACHES=" + caches) == 0);
        std::vector<std::string> levels;
        for (const std::string& row : read_lines(bw_csv))
            if (row.rfind("read,", 0) == 0) levels.push_back(field(row, 4));
        CHECK_FALSE(levels.empty());
        CHECK(std::set<std::string>(levels.begin(), levels.end()).size() == levels.size());
        for (const gemm::Step& step : gemm::steps()) {
            if (step.def->params.empty() || !step.supported()) continue;
            const std::string exe = "timeout 120 " + bin_dir() + "/step" + std::string(step.slug);
            INFO(step.slug);
            CHECK(shell(exe + " --sizes 1,7,33 --reps 1", "GEMM_CACHES=" + caches) == 0);
            CHECK(shell(exe + " --sizes 5 --reps 1 --kc 1", "GEMM_CACHES=" + caches) == 0);
            if (step.def->parallel)
                CHECK(shell(exe + " --sizes 200 --reps 1 --threads 2", "GEMM_CACHES=" + caches) == 0);
        }
    }
}

// A malformed GEMM_CACHES is exit 2 with one line in every program, before anything is
// printed, and only after --help had its chance; a value is three sizes, no more, no less.
TEST_CASE("a malformed GEMM_CACHES is refused alike by every program - after --help", "[e2e][caches]") {
    GEMM_NATIVE_ONLY();
    std::vector<std::string> programs{"probe 1 --sizes 4 --reps 1", "cpuinfo", "peak --info",
                                      "bandwidth --levels L1 --seconds 0.01 --threads 1",
                                      "ref_openblas --sizes 4 --reps 1", "ref_blis --sizes 4 --reps 1"};
    for (const gemm::Step& step : gemm::steps())
        if (step.supported()) programs.push_back("step" + std::string(step.slug) + " --sizes 4 --reps 1");
    const std::string out = scratch("caches_out.txt");
    for (const std::string& program : programs) {
        const std::string name = program.substr(0, program.find(' '));
        if (!built(name)) continue;
        for (const char* bad : {"'32K,512K,32M,'", "'abc'", "'32K,512K'", "\"$(printf '32K\\n,512K,32M')\"",
                                "'32K,512K,32M,1M'", "'32K,,32M'", "'99999999999999999999K,1M,1M'"}) {
            INFO(program << " with GEMM_CACHES=" << bad);
            CHECK(shell(bin_dir() + "/" + program, std::string("GEMM_CACHES=") + bad, out) == gemm::kExitUsage);
            const std::string err = stderr_text();
            CHECK(line_count(err) == 1);
            CHECK(err.find("GEMM_CACHES") != std::string::npos);
            CHECK(slurp(out).empty());   // no header line left unterminated
        }
        INFO(program << " --help with a bad GEMM_CACHES");
        CHECK(shell(bin_dir() + "/" + name + " --help", "GEMM_CACHES=abc", out) == 0);
        CHECK(slurp(out).rfind("usage", 0) == 0);
        CHECK(stderr_text().empty());
    }
}

TEST_CASE("a closed standard output is exit 3 - a later file never takes descriptor 1", "[e2e][output]") {
    GEMM_NATIVE_ONLY();
    const std::string fifo = scratch("closed.fifo"), got = scratch("closed.got");
    std::remove(fifo.c_str());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // The FIFO's reader must get the CSV or nothing, never the progress lines.
    const int code = sh_raw("cat " + fifo + " > " + got + " & " + bin_dir() + "/step01_baseline --sizes 4 --reps 1 --csv " +
                            fifo + " >&-; s=$?; wait; exit $s");
    CHECK(code == gemm::kExitResource);
    CHECK(stderr_text().find("standard output") != std::string::npos);
    CHECK(slurp(got).find("step01_baseline:") == std::string::npos);
    CHECK(slurp(got).find("n=    4") == std::string::npos);
    std::remove(fifo.c_str());
    for (const std::string program : {"step01_baseline --sizes 4 --reps 1 --csv /dev/null", "cpuinfo", "probe --help",
                                      "write_file --help", "peak --help", "bandwidth --help"}) {
        INFO(program << " >&-");
        CHECK(sh_raw(bin_dir() + "/" + program + " >&-") == gemm::kExitResource);
        CHECK(line_count(stderr_text()) == 1);
    }
    // A closed standard input is unreadable, not empty: write_file leaves the file alone.
    const std::string kept = scratch("kept.txt");
    { std::ofstream(kept) << "old\n"; }
    CHECK(sh_raw(bin_dir() + "/write_file " + kept + " <&-") == gemm::kExitUsage);
    CHECK(slurp(kept) == "old\n");
}

TEST_CASE("probe: a value that is an option is a forgotten value - no file named --no-verify", "[e2e][probe]") {
    GEMM_NATIVE_ONLY();
    const std::string dir = scratch("probe_dir");
    std::filesystem::create_directories(dir);
    for (const char* args : {"1 --sizes 4 --csv --no-verify", "1 --csv --sizes 4", "1 --sizes --reps 2",
                             "1 --reps --sizes 4", "1 --kernel --sizes 4"}) {
        INFO("probe " << args);
        CHECK(shell("cd " + dir + " && " + bin_dir() + "/probe " + args) == gemm::kExitUsage);
        CHECK(line_count(stderr_text()) == 1);
        CHECK(stderr_text().find(": needs a value") != std::string::npos);
    }
    CHECK(std::filesystem::is_empty(dir));
}

TEST_CASE("write_file: --help anywhere wins - usage on standard output, exit 0", "[e2e]") {
    GEMM_NATIVE_ONLY();
    const std::string out = scratch("wf_help.txt");
    for (const char* args : {"--check --help", "out --help", "--help --check", "-h x y z", "--bogus --help"}) {
        INFO("write_file " << args);
        CHECK(shell(bin_dir() + "/write_file " + args, "", out) == 0);
        CHECK(slurp(out).rfind("usage", 0) == 0);
        CHECK(stderr_text().empty());
    }
    CHECK_FALSE(std::filesystem::exists("out"));
}

// Text from the command line reaches a message through gemm::shown(): one line, no control
// characters (an ESC could drive the terminal).
TEST_CASE("an option or value holding a newline or ESC gives one line - in every program", "[e2e]") {
    GEMM_NATIVE_ONLY();
    std::vector<std::string> lines{"probe \"$(printf -- '--x\\ny')\"",
                                   "probe \"$(printf '1\\033[31m')\"",
                                   "probe 1 --sizes \"$(printf '4\\n5')\"",
                                   "peak --reps \"$(printf '1\\n2')\"",
                                   "peak --isa \"$(printf 'sse\\033')\"",
                                   "peak \"$(printf -- '--x\\ny')\"",
                                   "bandwidth --seconds \"$(printf '1\\n2')\"",
                                   "bandwidth --levels \"$(printf 'L1\\nL2')\"",
                                   "bandwidth \"$(printf -- '--x\\033y')\"",
                                   "cpuinfo \"$(printf -- '--x\\ny')\"",
                                   "cpuinfo --steps \"$(printf 'x\\ny')\"",
                                   "write_file \"$(printf -- '-x\\ny')\"",
                                   "write_file \"$(printf '/no/such\\ndir/x')\"",
                                   "step01_baseline --csv \"$(printf '/no/such\\ndir/x')\"",
                                   "ref_openblas \"$(printf -- '--x\\ny')\""};
    for (const std::string& line : lines) {
        if (!built(line.substr(0, line.find(' ')))) continue;
        INFO(line);
        const int code = shell(bin_dir() + "/" + line);
        CHECK((code == gemm::kExitUsage || code == gemm::kExitResource));
        const std::string err = stderr_text();
        CHECK(line_count(err) == 1);
        CHECK(err.find('\033') == std::string::npos);
    }
}

TEST_CASE("an invalid OpenMP variable is reported once - the re-run does not repeat libgomp's line", "[e2e][threads]") {
    GEMM_NATIVE_ONLY();
#if defined(__clang__) || !defined(__GNUC__)
    // libgomp's behaviour: clang's libomp words its warnings its own way, and on
    // OMP_NUM_THREADS=abc it aborts ("Out of heap memory") by itself (contracts: the runtime's
    // to refuse).
    return;
#endif
    const gemm::Step* step = find_parallel_step();
    if (step == nullptr || !step->supported()) return;
    const std::string exe = bin_dir() + "/step" + std::string(step->slug) + " --sizes 4 --reps 1";
    for (const char* env : {"OMP_NUM_THREADS=abc", "OMP_THREAD_LIMIT=abc", "OMP_PLACES=bogus", "OMP_PROC_BIND=bogus"}) {
        INFO(env);
        CHECK(shell(exe, env) == 0);
        const std::string err = stderr_text();
        INFO(err);
        // libgomp's one line (it puts an empty line before it), not two.
        long lines = 0;
        std::istringstream in(err);
        for (std::string line; std::getline(in, line);) lines += line.empty() ? 0 : 1;
        CHECK(lines <= 1);
        std::size_t warnings = 0;
        for (std::size_t at = err.find("libgomp"); at != std::string::npos; at = err.find("libgomp", at + 1)) ++warnings;
        CHECK(warnings <= 1);
    }
}

TEST_CASE("a legal --csv name of 250 characters is written - its temporary is cut short", "[e2e][output]") {
    GEMM_NATIVE_ONLY();
    const std::string csv = scratch(std::string(246, 'n') + ".csv");
    CHECK(shell(bin_dir() + "/step01_baseline --sizes 4 --reps 1 --csv " + csv) == 0);
    CHECK(read_lines(csv).size() == 2);
    std::remove(csv.c_str());
}

TEST_CASE("ref_*: the command line is checked before anything is printed", "[e2e][ref]") {
    GEMM_NATIVE_ONLY();
    const std::string out = scratch("ref_out.txt");
    const std::string over = std::to_string(gemm::max_threads(gemm::kThreadsPerCpu) + 1);
    for (const std::string lib : {"ref_openblas", "ref_blis"}) {
        if (!built(lib)) continue;
        for (const std::string& args : std::vector<std::string>{" --bogus", " --threads " + over, " --sizes 0", " --csv /no/such/dir/x.csv"}) {
            INFO(lib << args);
            const int code = shell(bin_dir() + "/" + lib + args, "-u OPENBLAS_CORETYPE -u BLIS_ARCH_TYPE", out);
            CHECK((code == gemm::kExitUsage || code == gemm::kExitResource));
            CHECK(slurp(out).empty());
            CHECK(line_count(stderr_text()) == 1);
        }
    }
}

namespace {
std::vector<std::string> planned;   // what plan_hook was asked, "size/threads" each
std::string plan_hook(const gemm::Setting& setting, int m, int n, int k, int threads) {
    planned.push_back(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "/" +
                      std::to_string(threads) + " " + std::string(setting.variant));
    return "path=test";
}
}  // namespace

// --plan: the command line checked as for a run, then the step's plan per size instead of
// the run: no kernel call, no CSV, no matrices (a size no memory holds is planned all the same).
TEST_CASE("the option --plan asks the plan hook for every size - and runs nothing, writes no CSV", "[e2e][plan]") {
    static constexpr gemm::Variant v[] = {{"plain", counting_kernel}};
    static constexpr gemm::StepDef def{.variants = v, .plan = plan_hook};
    const gemm::Step step{15, "15_planned", counting_kernel, [] { return true; }, &def};
    const std::string csv = scratch("plan.csv");
    std::remove(csv.c_str());
    calls = 0;
    planned.clear();
    CHECK(run(step, {"--plan", "--sizes", "8,46340,8", "--csv", csv}) == gemm::kExitOk);
    CHECK(calls == 0);
    CHECK_FALSE(std::filesystem::exists(csv));
    CHECK(planned == std::vector<std::string>{"8x8x8/1 plain", "46340x46340x46340/1 plain", "8x8x8/1 plain"});
    CHECK(run(step, {"--plan=1", "--sizes", "8"}) == gemm::kExitUsage);
    CHECK(run(step, {"--plan", "--sizes", "0"}) == gemm::kExitUsage);
    CHECK(run(step, {"--plan", "--plan"}) == gemm::kExitUsage);
    static constexpr gemm::Variant lacking[] = {{"future", counting_kernel, never, "AVX-1024"}};
    static constexpr gemm::StepDef def2{.variants = lacking, .plan = plan_hook};
    const gemm::Step step2{16, "16_future", counting_kernel, never, &def2};
    planned.clear();
    CHECK(run(step2, {"--plan", "--sizes", "8"}) == gemm::kExitUnsupported);
    CHECK(planned.empty());
}

// The step executables' --plan: step 10's lines as its plan hook words them, from the same
// command line a run takes (GEMM_CACHES fixes the blocks, GEMM_WISDOM=off the rules).
TEST_CASE("step10_tuned --plan prints each size's plan from the run's options - a lesson just n=SIZE", "[e2e][plan]") {
    const std::string bin = GEMM_TEST_BIN_DIR, out = scratch("plan.txt");
    const std::string env = "GEMM_CACHES=48K,2M,32M GEMM_WISDOM=off OMP_NUM_THREADS=2";
    CHECK(shell(bin + "/step01_baseline --plan --sizes 64,100", "", out) == 0);
    CHECK(slurp(out) == "n=64\nn=100\n");
    const auto plan = [&](const std::string& args) {
        const int status = shell(bin + "/step10_tuned --plan " + args, env, out);
        INFO("--plan " << args << "\n" << slurp(out) << slurp(scratch("stderr.txt")));
        REQUIRE(status == 0);
        CHECK(slurp(scratch("stderr.txt")).empty());
        return read_lines(out);
    };
    const gemm::Step* step = nullptr;
    for (const gemm::Step& s : gemm::steps())
        if (s.slug == "10_tuned") step = &s;
    if (step == nullptr || step->best_variant() == nullptr) return;   // built without OpenMP
    const gemm::Variant& best = *step->best_variant();
    const bool direct = best.name != "neon";   // NEON has no unpacked path
    const auto value = [](const std::string& line, const std::string& key) {
        const std::size_t at = line.find(" " + key + "=");
        REQUIRE(at != std::string::npos);
        return std::stoi(line.substr(at + key.size() + 2));
    };
    const auto lines = plan("--sizes 64,1000 --threads 1");
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].rfind(direct ? "n=64 path=direct mc=" : "n=64 path=packed mc=", 0) == 0);
    CHECK(lines[1].rfind("n=1000 path=packed mc=", 0) == 0);
    for (const char* key : {" nc=", " one_slice=", " threads=1 ", " outer_bytes_per_flop=",
                            " max_outer_bytes_per_flop=0.0250"})
        CHECK(lines[1].find(key) != std::string::npos);
    // The blocks asked for: mc rounded up to the tile, kc at most 512, every size packed.
    // One more than the rule's mc is asked, so the answer differs from it on every machine.
    const int mr = best.mr, wanted = value(lines[1], "mc") + 1;
    REQUIRE(mr > 1);
    const auto asked = plan("--sizes 64,1000 --threads 1 --mc " + std::to_string(wanted) +
                            " --kc 512 --one-slice 1");
    REQUIRE(asked.size() == 2);
    CHECK(asked[0].rfind("n=64 path=packed ", 0) == 0);
    CHECK(value(asked[1], "mc") == (wanted + mr - 1) / mr * mr);
    CHECK(value(asked[1], "kc") <= 512);
    CHECK(value(asked[1], "kc") > 256);   // 1000 in two slices
    CHECK(value(lines[1], "mc") != value(asked[1], "mc"));
    // An idea switched off, the threads of the run (--threads, else OMP_NUM_THREADS).
    CHECK(plan("--sizes 64 --threads 1 --no-direct 1")[0].rfind("n=64 path=packed ", 0) == 0);
    CHECK(value(plan("--sizes 1000")[0], "threads") == 2);
    CHECK(value(plan("--sizes 1000 --threads 1")[0], "threads") == 1);
    // No matrices: a size no memory here holds is planned, and a --csv is never written.
    const std::string csv = scratch("plan10.csv");
    std::remove(csv.c_str());
    CHECK(plan("--sizes 46340 --threads 1 --csv " + csv).size() == 1);
    CHECK_FALSE(std::filesystem::exists(csv));
    // The run's refusals: a kernel this CPU lacks, a bad value.
    CHECK(shell(bin + "/step10_tuned --plan --sizes 64 --kernel " + (direct ? "neon" : "avx512"), env, out) == 77);
    CHECK(shell(bin + "/step10_tuned --plan --sizes 64 --mc x", env, out) == 2);
    CHECK(shell(bin + "/step10_tuned --plan --sizes 64 --threads 0", env, out) == 2);
}
