// End to end: the harness's main loop in-process on made-up steps (a right one, a wrong
// one, one this CPU cannot run), and the real step executables as a user runs them.
#include <gemm/harness.hpp>
#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
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

// Scratch files live in a folder of this test run's own, not in the working directory.
std::string scratch(const std::string& name) {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() / ("gemm_tests_" + std::to_string(getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return (dir / name).string();
}

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

int run(const gemm::Step& step, std::vector<std::string> args) {
    args.insert(args.begin(), "test");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return gemm::run_main(static_cast<int>(args.size()), argv.data(), step);
}

// Runs a step executable; in a cross build through the emulator (qemu-aarch64 -L ...), since
// without binfmt_misc the system cannot start a foreign binary by itself. Standard output goes
// to `out` (/dev/null unless told), standard error to scratch("stderr.txt").
int shell(const std::string& command, const std::string& out = "/dev/null") {
#if defined(GEMM_TEST_EMULATOR)
    const std::string line = GEMM_TEST_EMULATOR " " + command;
#else
    const std::string& line = command;
#endif
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

TEST_CASE("output that cannot be written is exit 3 - /dev/null and /dev/stdout simply work", "[e2e]") {
    const gemm::Step* step = nullptr;
    for (const gemm::Step& s : gemm::steps())
        if (s.supported()) step = &s;
    REQUIRE(step != nullptr);
    const std::string exe = std::string(GEMM_TEST_BIN_DIR) + "/step" + std::string(step->slug) + " --sizes 8 --reps 1";
    CHECK(shell(exe + " --csv /dev/null") == 0);
    const std::string out = scratch("stdout.txt");
    CHECK(shell(exe + " --csv /dev/stdout", out) == 0);
    const std::string text = slurp(out);
    INFO(text);
    CHECK(text.find("n=    8") != std::string::npos);           // the progress line, and after it
    CHECK(text.find("step,m,n,k,") > text.find("n=    8"));      // the CSV, not over it
    if (::access("/dev/full", W_OK) == 0) {
        CHECK(shell(exe + " --csv /dev/full") == 3);
        CHECK(slurp(scratch("stderr.txt")).find("/dev/full") != std::string::npos);
        CHECK(shell(exe, "/dev/full") == 3);                        // stdout itself
        CHECK(slurp(scratch("stderr.txt")).find("standard output") != std::string::npos);
        CHECK(shell(exe + " --help", "/dev/full") == 3);
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
