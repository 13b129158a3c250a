// The harness's own pieces: the command line, the verification tolerance, the CSV, GFLOPS.
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <vector>

namespace {

void noop_kernel(int, int, int, const float*, int, const float*, int, float*, int) {}

int tunable = 0;
int get_tunable() { return tunable ? tunable : 64; }
void set_tunable(int v) { tunable = v; }
bool never() { return false; }

constexpr gemm::Variant variants[] = {{"plain", noop_kernel}, {"fancy", noop_kernel, never, "FANCY-ISA"}};
constexpr gemm::Param params[] = {{"kc", "a block size", get_tunable, set_tunable},
                                   {"no-wide", "a switch of a kernel this CPU lacks", get_tunable, set_tunable,
                                    [] { return false; }}};
constexpr gemm::StepDef def{.variants = variants, .params = params};
const gemm::Step step{42, "42_test", noop_kernel, [] { return true; }, &def};

gemm::ParseResult parse(std::vector<std::string> args) {
    args.insert(args.begin(), "prog");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    return gemm::parse_options(static_cast<int>(argv.size()), argv.data(), step);
}

// A product computed the slow, sure way, rounded to float: what a correct kernel returns.
struct Product {
    int m, n, k;
    std::vector<float> A, B, C0, C;
    Product(int m_, int n_, int k_) : m(m_), n(n_), k(k_), A(m * k), B(k * n), C0(m * n), C(m * n) {
        gemm::fill_random(A.data(), A.size(), 11);
        gemm::fill_random(B.data(), B.size(), 12);
        gemm::fill_random(C0.data(), C0.size(), 13);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double s = C0[i * n + j];
                for (int p = 0; p < k; ++p) s += static_cast<double>(A[i * k + p]) * B[p * n + j];
                C[i * n + j] = static_cast<float>(s);
            }
    }
    gemm::CheckResult check() const {
        return gemm::check_result(m, n, k, A.data(), k, B.data(), n, C0.data(), C.data(), n);
    }
};

}  // namespace

TEST_CASE("the default sweep is 100 to 1500 by 100 - 3 reps - 1 warm-up - verified", "[cli]") {
    const auto r = parse({});
    REQUIRE(r.exit_code == -1);
    REQUIRE(r.options.sizes.size() == 15);
    CHECK(r.options.sizes.front() == 100);
    CHECK(r.options.sizes.back() == 1500);
    CHECK(r.options.reps == 3);
    CHECK(r.options.warmup == 1);
    CHECK(r.options.verify);
    CHECK(r.options.csv.empty());
}

TEST_CASE("good options are taken as given", "[cli]") {
    auto r = parse({"--first", "64", "--last", "256", "--inc", "64", "--reps", "5", "--threads=2", "--warmup", "0",
                    "--csv", "out.csv", "--no-verify", "--kernel", "plain", "--kc", "32", "--time-limit", "1.5"});
    REQUIRE(r.exit_code == -1);
    CHECK(r.options.sizes == std::vector<int>{64, 128, 192, 256});
    CHECK(r.options.reps == 5);
    CHECK(r.options.threads == 2);
    CHECK(r.options.warmup == 0);
    CHECK(r.options.csv == "out.csv");
    CHECK_FALSE(r.options.verify);
    CHECK(r.options.kernel == "plain");
    REQUIRE(r.options.params.size() == 1);
    CHECK(r.options.params[0].second == 32);
    CHECK(r.options.time_limit == 1.5);

    r = parse({"--sizes", "7,300,13"});
    REQUIRE(r.exit_code == -1);
    CHECK(r.options.sizes == std::vector<int>{7, 300, 13});
}

TEST_CASE("the thread count is capped at 4 x the usable CPUs", "[cli]") {
    const int cap = 4 * gemm::cpu::cores();
    CHECK(parse({"--threads", std::to_string(cap)}).exit_code == -1);
    const auto r = parse({"--threads", std::to_string(cap + 1)});
    CHECK(r.exit_code == gemm::kExitUsage);
    CHECK(r.message.find("from 1 to " + std::to_string(cap)) != std::string::npos);
}

TEST_CASE("an option given twice is a usage error - neither value silently wins", "[cli]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> twice = {
        {{"--reps", "3", "--reps", "5"}, "--reps"},
        {{"--threads=2", "--sizes", "8", "--threads", "1"}, "--threads"},
        {{"--no-verify", "--no-verify"}, "--no-verify"},
        {{"--kc", "8", "--kc=16"}, "--kc"},
        {{"--sizes", "8", "--csv", "a.csv", "--csv", "b.csv"}, "--csv"},
    };
    for (const auto& [args, option] : twice) {
        INFO(args[0] << " ... " << option);
        const auto r = parse(args);
        CHECK(r.exit_code == gemm::kExitUsage);
        CHECK(r.message == "prog: " + option + ": given twice");
    }
    CHECK(parse({"--sizes", "8", "--reps", "3", "--warmup", "3"}).exit_code == -1);   // the same value, other options
    CHECK(parse({"--reps", "3", "--help", "--reps", "5"}).exit_code == gemm::kExitOk);  // --help still wins
    CHECK(gemm::usage(step, "prog").find("an option may be given once") != std::string::npos);
}

TEST_CASE("help anywhere on the line prints the usage and exits 0, whatever else is there", "[cli]") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--help", "--bogus"}, {"--bogus", "--help"}, {"--reps", "0", "-h"}}) {
        const auto r = parse(args);
        CHECK(r.exit_code == 0);
        CHECK(r.message.rfind("usage:", 0) == 0);
    }
    CHECK(parse({"--csv=--no-verify"}).options.csv == "--no-verify");   // said explicitly: taken
}

TEST_CASE("help: --help prints the usage and exits 0", "[cli]") {
    const auto r = parse({"--help"});
    CHECK(r.exit_code == 0);
    CHECK(r.message.find("--sizes") != std::string::npos);
    CHECK(r.message.find("--kc N") != std::string::npos);
    CHECK(r.message.find("fancy (not on this CPU)") != std::string::npos);
    CHECK(r.message.find("--kc N") < r.message.find("(here: "));
    CHECK(r.message.find("a switch of a kernel this CPU lacks (changes nothing on this CPU)") != std::string::npos);
    CHECK(r.message.find("512") != std::string::npos);   // says what is verified, and how
}

TEST_CASE("bad input is a usage error that names the option and the value", "[cli]") {
    struct Bad {
        std::vector<std::string> args;
        std::string named;   // must appear in the one-line message
    };
    const std::vector<Bad> cases = {
        {{"--sizes", "-5"}, "-5"},          {{"--sizes", "0"}, "--sizes '0'"},
        {{"--sizes", "abc"}, "abc"},        {{"--sizes", ""}, "empty"},
        {{"--sizes", "10,,20"}, "empty"},   {{"--sizes", "10,x"}, "--sizes 'x'"},
        {{"--first", "0"}, "--first"},      {{"--last", "-1"}, "--last"},
        {{"--inc", "0"}, "--inc"},          {{"--first", "500", "--last", "100"}, "--last"},
        {{"--reps", "0"}, "--reps '0'"},    {{"--reps", "2.5"}, "--reps '2.5'"},
        {{"--threads", "0"}, "--threads"},  {{"--warmup", "-1"}, "--warmup"},
        {{"--bogus"}, "--bogus"},           {{"--reps"}, "--reps: needs a value"},
        {{"--csv"}, "--csv"},               {{"--kernel", "avx9000"}, "avx9000"},
        {{"--kc", "-3"}, "--kc"},           {{"--time-limit", "0"}, "--time-limit"},
        {{"--sizes", "99999"}, "99999"},    {{"--no-verify=1"}, "--no-verify"},
        {{"--sizes", "10", "--first", "5"}, "--sizes"},
        {{"--reps", "99999999999999999999"}, "--reps"},
        // A value that is an option means the value is missing: no file named --no-verify.
        {{"--csv", "--no-verify"}, "--csv: needs a value"},   {{"--sizes", "--reps", "3"}, "--sizes: needs a value"},
        // The message gives the real range, and names the option the user gave.
        {{"--reps", "1000001"}, "--reps '1000001': must be from 1 to 1000000"},
        {{"--warmup", "-1"}, "from 0 to 1000000"},
        {{"--first", "2000"}, "--first '2000': is above the default --last 1500"},
        {{"--last", "50"}, "--last '50': is below the default --first 100"},
        {{"--first", "500", "--last", "100"}, "--last '100': is below --first 500"},
        {{"--threads", "4096"}, "4 x the"},
        // Found by tests/fuzz/fuzz_cli.cpp: a newline in an argument broke the one-line rule.
        {{"--bo\ngus"}, "'--bo?gus'"}, {{"--sizes", "1\n2"}, "--sizes '1?2'"},
        // One number parser (gemm/numbers.hpp), one set of messages: the whole text is the
        // number (no space, newline or sign before it), then its range.
        {{"--reps", "\n3"}, "--reps '?3': not a whole number"}, {{"--reps", " 3"}, "--reps ' 3': not a whole number"},
        {{"--time-limit", "0"}, "--time-limit '0': must be above 0"},
        {{"--time-limit", "abc"}, "--time-limit 'abc': not a number"},
        {{"--time-limit", "inf"}, "--time-limit 'inf': not a number"},
        {{"--kc", "70000"}, "--kc '70000': must be from 0 to 65536 (0: automatic)"},
    };
    for (const auto& c : cases) {
        std::string joined;
        for (const auto& a : c.args) joined += a + " ";
        INFO("arguments: " << joined);
        const auto r = parse(c.args);
        CHECK(r.exit_code == gemm::kExitUsage);
        CHECK(r.message.find(c.named) != std::string::npos);
        CHECK(r.message.find('\n') == std::string::npos);   // one line
        CHECK(r.message.rfind("prog: ", 0) == 0);
    }
}

TEST_CASE("verification accepts a correct product", "[verify]") {
    for (const int size : {1, 17, 64, 520}) {   // 520: the sampled path
        Product p(size, size + 3, size + 5);
        const auto r = p.check();
        INFO("size " << size);
        CHECK(r.ok);
        CHECK(r.max_rel_err < r.tolerance);
        CHECK(r.sampled == (size == 520));
    }
}

TEST_CASE("verification catches one wrong element anywhere up to 512", "[verify]") {
    Product p(512, 512, 512);
    REQUIRE(p.check().ok);
    // Drop a single term of the sum, the smallest error a real kernel bug makes, at the
    // corners, the edges and inside.
    for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {511, 511}, {0, 511}, {511, 0}, {257, 130}}) {
        Product q = p;
        const int p_drop = (i * 31 + j) % 512;
        q.C[i * 512 + j] -= q.A[i * 512 + p_drop] * q.B[p_drop * 512 + j];
        const auto r = q.check();
        INFO("element " << i << ", " << j);
        CHECK_FALSE(r.ok);
        CHECK(r.first_problem.find("C(" + std::to_string(i) + ", " + std::to_string(j) + ")") != std::string::npos);
    }
}

TEST_CASE("verification fails on a NaN or an Inf anywhere - at any size", "[verify]") {
    for (const int size : {9, 520}) {
        Product p(size, size, size);
        for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
            Product q = p;
            q.C[(size / 2) * size + size / 3] = bad;   // not on a sampled row or column
            const auto r = q.check();
            INFO("size " << size << ", value " << bad);
            CHECK_FALSE(r.ok);
            CHECK(std::isinf(r.max_rel_err));
        }
    }
}

TEST_CASE("above 512 - a wrong tile off the sampled rows and columns is caught by the sums", "[verify]") {
    Product p(520, 520, 520);
    // A 14x32 tile that the kernel forgot to update (C left at C0), inside the matrix.
    for (int i = 300; i < 314; ++i)
        for (int j = 200; j < 232; ++j) p.C[i * 520 + j] = p.C0[i * 520 + j];
    const auto r = p.check();
    CHECK(r.sampled);
    CHECK_FALSE(r.ok);
}

TEST_CASE("verification wants C0 + A*B - not A*B: the kernel must accumulate", "[verify]") {
    Product p(20, 20, 20);
    for (int i = 0; i < 400; ++i) p.C[i] -= p.C0[i];
    CHECK_FALSE(p.check().ok);
}

TEST_CASE("GFLOPS is 2*m*n*k / seconds / 1e9", "[csv]") {
    CHECK(gemm::gflops(1000, 1000, 1000, 2.0) == Approx(1.0));
    CHECK(gemm::gflops(100, 200, 300, 0.012) == Approx(1.0));
    CHECK(gemm::gflops(10, 10, 10, 0.0) == 0.0);
}

TEST_CASE("random fill is reproducible and within -1 and 1", "[random]") {
    std::vector<float> a(1000), b(1000), c(1000);
    gemm::fill_random(a.data(), a.size(), 5);
    gemm::fill_random(b.data(), b.size(), 5);
    gemm::fill_random(c.data(), c.size(), 6);
    CHECK(a == b);
    CHECK(a != c);
    double sum = 0;
    for (float v : a) {
        CHECK(v >= -1.0f);
        CHECK(v < 1.0f);
        sum += v;
    }
    CHECK(std::fabs(sum / 1000) < 0.1);   // centred
}

TEST_CASE("the CSV has the SPEC columns first and is replaced whole", "[csv]") {
    const std::string path = "test_harness_out.csv";
    gemm::CsvRow row;
    row.step = "05_simd_4x4";
    row.m = row.n = row.k = 300;
    row.threads = 2;
    row.gflops_best = 12.5;
    row.gflops_median = 12.25;
    row.seconds_best = 2.0 * 300 * 300 * 300 / 12.5e9;
    row.max_rel_err = 1.5e-7;
    row.verified = true;
    row.kernel = "sse";
    row.reps = 3;
    row.cpu = "Some CPU, 8 cores";   // the comma must not break the row
    row.uarch = "Zen 4";
    row.params = "mc=112 kc=1168";
    row.cpu_wait = 0.25;
    REQUIRE(gemm::write_csv(path, {row, row}) == "");
    std::ifstream in(path);
    std::string header, line;
    std::getline(in, header);
    CHECK(header.rfind("step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified", 0) == 0);
    int rows = 0;
    while (std::getline(in, line)) {
        ++rows;
        std::vector<std::string> fields;
        std::stringstream ss(line);
        std::string f;
        while (std::getline(ss, f, ',')) fields.push_back(f);
        REQUIRE(fields.size() == 16);
        CHECK(fields[0] == "05_simd_4x4");
        CHECK(fields[1] == "300");
        CHECK(fields[4] == "2");
        CHECK(std::stod(fields[5]) == Approx(12.5));
        CHECK(std::stod(fields[7]) == Approx(row.seconds_best).epsilon(1e-5));
        CHECK(fields[9] == "1");
        CHECK(fields[10] == "sse");
        CHECK(fields[13] == "Zen 4");
        CHECK(fields[14] == "mc=112 kc=1168");
        CHECK(fields[15] == "0.250");
    }
    CHECK(rows == 2);
    std::ifstream tmp(path + ".tmp");
    CHECK_FALSE(tmp.good());   // the temporary was renamed away
    std::remove(path.c_str());
    CHECK(gemm::write_csv("/nonexistent-dir/x.csv", {row}) != "");
}

// The one number parser (gemm/numbers.hpp) that the harness, the tools and GEMM_CACHES share:
// one set of rules and messages.
TEST_CASE("numbers: one parser - the whole word is the number, in range, one message each", "[numbers]") {
    long long w = 0;
    CHECK(gemm::parse_whole("--reps", "7", 1, 100, w).empty());
    CHECK(w == 7);
    CHECK(gemm::parse_whole("--warmup", "-0", 0, 5, w).empty());
    CHECK(gemm::parse_whole("--reps", "0", 1, 100, w) == "--reps '0': must be from 1 to 100");
    CHECK(gemm::parse_whole("--threads", "9", 1, 8, w, "4 x the 2 CPUs") == "--threads '9': must be from 1 to 8 (4 x the 2 CPUs)");
    for (const char* bad : {"", " 3", "3 ", "+3", "0x10", "2.5", "3\n", "\t3", "1e3", "-"})
        CHECK(gemm::parse_whole("--reps", bad, 1, 100, w) == "--reps '" + gemm::shown(bad) + "': not a whole number");
    CHECK(gemm::parse_whole("--reps", "99999999999999999999", 1, 100, w) ==
          "--reps '99999999999999999999': must be from 1 to 100");
    double r = 0;
    CHECK(gemm::parse_real("--seconds", "0.5", 0.001, 60, r).empty());
    CHECK(r == 0.5);
    CHECK(gemm::parse_real("--seconds", "1e-9", 0.001, 60, r) == "--seconds '1e-9': must be from 0.001 to 60");
    CHECK(gemm::parse_real("--ghz", "0", 0, 20, r, true) == "--ghz '0': must be above 0 and at most 20");
    for (const char* bad : {"", "inf", "nan", "0x1p3", " 1", "+1", "1s", "1\n"})
        CHECK(gemm::parse_real("--ghz", bad, 0, 20, r, true) == "--ghz '" + gemm::shown(bad) + "': not a number");
    long long b = 0;
    CHECK(gemm::parse_bytes("L2", "512K", 1024, 1LL << 34, b).empty());
    CHECK(b == 512 * 1024);
    CHECK(gemm::parse_bytes("L3", "1024G", 0, 1LL << 40, b).empty());
    CHECK(b == 1LL << 40);
    CHECK(gemm::parse_bytes("L3", "1025G", 0, 1LL << 40, b) == "L3 '1025G': must be from 0 to 1T");
    CHECK(gemm::parse_bytes("L1D", "512", 1024, 1LL << 30, b) == "L1D '512': must be from 1K to 1G");
    CHECK(gemm::parse_bytes("L2", "99999999999999999999K", 1024, 1LL << 34, b) ==
          "L2 '99999999999999999999K': must be from 1K to 16G");
    for (const char* bad : {"", "K", "1T", "1KB", " 1K", "-1K", "1\nK"})
        CHECK(gemm::parse_bytes("L2", bad, 1024, 1LL << 34, b) ==
              "L2 '" + gemm::shown(bad) + "': not a size (digits, then K, M or G)");
    CHECK(gemm::list_option("--levels", "L1,L2") == std::vector<std::string>{"L1", "L2"});
    for (const auto& [list, problem] : std::vector<std::pair<std::string, std::string>>{
             {"", "--levels '': the list is empty"},           {"L1,", "--levels 'L1,': has an empty entry"},
             {",L1", "--levels ',L1': has an empty entry"},     {"L1,L1", "--levels 'L1,L1': lists L1 twice"},
             {"L\n1,L\n1", "--levels 'L?1,L?1': lists L?1 twice"}}) {
        INFO(list);
        try {
            gemm::list_option("--levels", list);
            FAIL("accepted");
        } catch (const gemm::UsageError& e) {
            CHECK(std::string(e.what()) == problem);
        }
    }
    // The block rule's clamp (gemm/cpu.hpp): a multiple of the unit, from one unit to 65536.
    CHECK(gemm::cpu::block_size(0, 16) == 16);
    CHECK(gemm::cpu::block_size(-5, 14) == 14);
    CHECK(gemm::cpu::block_size(2336, 16) == 2336);
    CHECK(gemm::cpu::block_size(1LL << 38, 32) == 65536);
    CHECK(gemm::cpu::block_size(1LL << 38, 14) == 65534);
}
