// The instruments must tell the truth on any CPU (issue "honest instruments"): the
// microarchitecture table and the peak formula built on it, the measured clock, the meter's
// refusal to count a CPU twice, and the choice of a BLAS library's kernel set. Pure functions
// are checked on made-up CPUs; the measured parts only for being sane, never for a speed.
#include "kernel_choice.hpp"
#include "peak.hpp"

#include <gemm/cpu.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

gemm::cpu::Microarch core(const char* vendor, int family, int model, int stepping = 0) {
    return gemm::cpu::classify({vendor, family, model, stepping});
}

}  // namespace

TEST_CASE("the microarchitecture table names the cores and their FMA width", "[instruments]") {
    struct Case {
        const char* vendor;
        int family, model;
        const char* name;
        double avx2, avx512;
    };
    const std::vector<Case> cases = {
        {"AuthenticAMD", 0x19, 0x11, "Zen 4", 32, 32},          // EPYC 9004: 512-bit in two halves
        {"AuthenticAMD", 0x19, 0x61, "Zen 4", 32, 32},          // Ryzen 7000
        {"AuthenticAMD", 0x1a, 0x02, "Zen 5", 32, 64},          // EPYC 9005: two full 512-bit pipes
        {"AuthenticAMD", 0x1a, 0x44, "Zen 5", 32, 64},          // Ryzen 9000
        {"AuthenticAMD", 0x1a, 0x24, "Zen 5 (mobile)", 32, 32}, // Strix Point
        {"AuthenticAMD", 0x19, 0x01, "Zen 3", 32, 0},
        {"AuthenticAMD", 0x17, 0x31, "Zen 2", 32, 0},
        {"AuthenticAMD", 0x17, 0x01, "Zen", 16, 0},
        {"GenuineIntel", 6, 0xcf, "Emerald Rapids", 32, 64},
        {"GenuineIntel", 6, 0x8f, "Sapphire Rapids", 32, 64},
        {"GenuineIntel", 6, 0x6a, "Ice Lake-SP", 32, 64},
        {"GenuineIntel", 6, 0x7e, "Ice Lake (client)", 32, 32},
        {"GenuineIntel", 6, 0x3f, "Haswell", 32, 0},
        {"GenuineIntel", 6, 0x97, "Alder Lake", 32, 0},
    };
    for (const Case& c : cases) {
        INFO(c.vendor << " family " << c.family << " model " << c.model);
        const auto u = core(c.vendor, c.family, c.model);
        CHECK(u.name == c.name);
        CHECK(u.avx2 == c.avx2);
        CHECK(u.avx512 == c.avx512);
        CHECK_FALSE(u.pipes.empty());
    }
    // Skylake-SP and Cascade Lake parts have one or two 512-bit units: the table says it varies.
    CHECK(core("GenuineIntel", 6, 0x55, 4).name == "Skylake-SP");
    CHECK(core("GenuineIntel", 6, 0x55, 7).name == "Cascade Lake");
    CHECK(core("GenuineIntel", 6, 0x55, 7).avx512_width_varies);
    // AArch64: MIDR implementer 0x41 (Arm), part numbers.
    CHECK(core("arm", 0x41, 0xd0c).neon == 16);   // Neoverse N1: two 128-bit pipes
    CHECK(core("arm", 0x41, 0xd40).neon == 32);   // Neoverse V1: four
    // Not in the table: no name, no figures, and the label says what the CPU is.
    CHECK(core("GenuineIntel", 6, 0x01).name.empty());
    CHECK(core("AuthenticAMD", 0x30, 0x00).name.empty());
    CHECK(core("", 0, 0).name.empty());
}

TEST_CASE("this CPU is identified, and named in its label", "[instruments]") {
    const auto& id = gemm::cpu::identity();
    const std::string label = gemm::cpu::microarch_label();
    if (std::string(gemm::cpu::arch()) == "x86_64") {
        CHECK_FALSE(id.vendor.empty());
        CHECK(id.family > 0);
        CHECK_FALSE(label.empty());
    }
    if (!gemm::cpu::microarch().name.empty()) CHECK(label == gemm::cpu::microarch().name);
}

TEST_CASE("the formula: the table where it knows, the measured ratio where the part decides", "[instruments]") {
    using gemm::peak::flops_per_cycle;
    const auto zen4 = core("AuthenticAMD", 0x19, 0x11), zen5 = core("AuthenticAMD", 0x1a, 0x02);
    CHECK(flops_per_cycle("avx512", zen4).fp32 == 32);
    CHECK(flops_per_cycle("avx512", zen5).fp32 == 64);
    CHECK(flops_per_cycle("avx512", zen5, 1.0).fp32 == 64);   // the table wins where it is sure
    CHECK(flops_per_cycle("avx2", zen5).source.rfind("table (Zen 5)", 0) == 0);
    CHECK(flops_per_cycle("sse", zen4).fp32 == 16);
    CHECK(flops_per_cycle("scalar", core("GenuineIntel", 6, 0xcf)).fp32 == 3);

    const auto cascade = core("GenuineIntel", 6, 0x55, 7);
    CHECK(flops_per_cycle("avx512", cascade, 1.02).fp32 == 32);   // one 512-bit unit
    CHECK(flops_per_cycle("avx512", cascade, 1.96).fp32 == 64);   // two
    CHECK(flops_per_cycle("avx512", cascade, 1.96).source.find("inferred") != std::string::npos);

    const auto unknown = core("GenuineIntel", 6, 0x01);
    CHECK(flops_per_cycle("avx512", unknown, 1.9).fp32 == 64);
    CHECK(flops_per_cycle("avx512", unknown, 1.1).fp32 == 32);
    CHECK(flops_per_cycle("avx512", unknown, 1.1).source.find("inferred") != std::string::npos);
    CHECK(flops_per_cycle("avx2", unknown).source.find("assumed") != std::string::npos);
    for (const gemm::peak::Isa& isa : gemm::peak::built_isas()) {
        INFO(isa.name);
        const auto f = flops_per_cycle(isa.name, gemm::cpu::microarch());
        CHECK(f.fp32 > 0);
        CHECK_FALSE(f.why.empty());
        CHECK_FALSE(f.source.empty());
    }
}

TEST_CASE("the measured clock is positive and stable across repetitions", "[instruments]") {
    std::vector<double> ghz;
    for (int i = 0; i < 3; ++i) ghz.push_back(gemm::peak::measure_clock(1, 0.02).ghz);
    std::sort(ghz.begin(), ghz.end());
    INFO(ghz[0] << " " << ghz[1] << " " << ghz[2]);
    CHECK(ghz[0] > 0.2);     // no core of the last 20 years runs slower, none faster than 10 GHz
    CHECK(ghz[2] < 10);
    CHECK(ghz[2] / ghz[0] < 1.15);   // CPU time, differenced: a busy neighbour does not show
}

TEST_CASE("the meter never runs more threads than usable CPUs", "[instruments]") {
    const int usable = gemm::cpu::cores();
    const auto isas = gemm::peak::available_isas();
    REQUIRE_FALSE(isas.empty());
    CHECK_THROWS_AS(gemm::peak::measure(*isas[0], gemm::peak::Precision::fp32, usable + 1, 0.01, 1),
                    std::invalid_argument);
    CHECK_THROWS_AS(gemm::peak::measure_clock(usable + 1, 0.01), std::invalid_argument);
    const std::string too_many = std::to_string(usable + 1);
    const char* argv[] = {"peak", "--threads", too_many.c_str(), "--seconds", "0.01"};
    std::ostringstream out, err;
    CHECK(gemm::peak::run(5, argv, out, err) == 2);
    const std::string message = err.str();
    CHECK(message.find("--threads '" + too_many + "'") != std::string::npos);
    CHECK(std::count(message.begin(), message.end(), '\n') == 1);
}

TEST_CASE("a library whose own kernels are narrower than the CPU is moved to its best set", "[instruments]") {
    using gemm::ref::Library;
    const gemm::ref::CpuVectors avx512{true, true, true}, avx2{false, true, true}, old{false, false, false};
    // Debian's OpenBLAS 0.3.21: Prescott on Emerald Rapids, Haswell on Zen 5, Cooperlake on Zen 4.
    auto c = gemm::ref::choose(Library::openblas, "Prescott", avx512, nullptr, false);
    CHECK(c.change);
    CHECK(c.env_var == "OPENBLAS_CORETYPE");
    CHECK(c.kernel_set == "SkylakeX");
    CHECK(c.reason.find("Prescott") != std::string::npos);
    CHECK(gemm::ref::choose(Library::openblas, "Haswell", avx512, nullptr, false).kernel_set == "SkylakeX");
    CHECK_FALSE(gemm::ref::choose(Library::openblas, "Cooperlake", avx512, nullptr, false).change);
    CHECK_FALSE(gemm::ref::choose(Library::openblas, "Zen", avx2, nullptr, false).change);
    CHECK(gemm::ref::choose(Library::openblas, "Nehalem", avx2, nullptr, false).kernel_set == "Haswell");
    CHECK_FALSE(gemm::ref::choose(Library::openblas, "Nehalem", old, nullptr, false).change);
    // The user's variable and --as-detected are obeyed.
    CHECK_FALSE(gemm::ref::choose(Library::openblas, "Prescott", avx512, "Haswell", false).change);
    CHECK_FALSE(gemm::ref::choose(Library::openblas, "Prescott", avx512, nullptr, true).change);
    // BLIS 0.9.0: generic on Zen 5, haswell on Emerald Rapids.
    c = gemm::ref::choose(Library::blis, "generic", avx512, nullptr, false);
    CHECK(c.change);
    CHECK(c.env_var == "BLIS_ARCH_TYPE");
    CHECK(c.kernel_set == "skx");
    CHECK(gemm::ref::choose(Library::blis, "haswell", avx512, nullptr, false).kernel_set == "skx");
    CHECK_FALSE(gemm::ref::choose(Library::blis, "zen3", avx2, nullptr, false).change);
    CHECK_FALSE(gemm::ref::choose(Library::blis, "zen4", avx512, nullptr, false).change);
    // Names are the libraries' own, case-insensitive.
    CHECK(gemm::ref::isa_of(Library::openblas, "skylakex") == "avx512");
    CHECK(gemm::ref::isa_of(Library::openblas, "SKYLAKEX") == "avx512");
    CHECK(gemm::ref::isa_of(Library::openblas, "Prescott") == "sse");
    CHECK(gemm::ref::isa_of(Library::blis, "generic") == "generic");
    CHECK(gemm::ref::isa_of(Library::blis, "nonsense") == "unknown");
}
