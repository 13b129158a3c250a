// What of the macOS support can be checked on Linux: the table's entries for Apple's cores
// and Intel Macs, and the parsing of the sysctl values that give Apple silicon's kinds of
// core and the performance cores' caches (tools/test_macos.sh builds the rest for macOS).
#include "tools/peak/peak.hpp"

#include <gemm/cpu.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace {

// A MacBook Pro with an M1 Pro as `sysctl hw` shows it (8 performance, 2 efficiency cores).
const std::map<std::string, std::string> kM1Pro = {
    {"hw.nperflevels", "2"},
    {"hw.perflevel0.name", "Performance"},       {"hw.perflevel0.physicalcpu", "8"},
    {"hw.perflevel0.l1dcachesize", "131072"},    {"hw.perflevel0.l2cachesize", "12582912"},
    {"hw.perflevel0.cpusperl2", "4"},
    {"hw.perflevel1.name", "Efficiency"},        {"hw.perflevel1.physicalcpu", "2"},
    {"hw.perflevel1.l1dcachesize", "65536"},     {"hw.perflevel1.l2cachesize", "4194304"},
    {"hw.perflevel1.cpusperl2", "2"}};
const std::map<std::string, std::string>* table = &kM1Pro;
std::string fake_sysctl(const char* key) {
    const auto it = table->find(key);
    return it == table->end() ? "" : it->second;
}

}  // namespace

TEST_CASE("Apple silicon: kinds of core and the performance cores' caches from sysctl", "[macos]") {
    table = &kM1Pro;
    const std::vector<gemm::cpu::CoreKind> kinds = gemm::cpu::core_kinds_from(fake_sysctl);
    REQUIRE(kinds.size() == 2);
    CHECK(kinds[0].name == "Performance");
    CHECK(kinds[0].cores == 8);
    CHECK(kinds[0].l1d == 128 * 1024);
    CHECK(kinds[0].l2 == 12 * 1024 * 1024);
    CHECK(kinds[0].cores_per_l2 == 4);
    CHECK(kinds[1].name == "Efficiency");
    CHECK(kinds[1].l1d == 64 * 1024);
    CHECK(gemm::cpu::core_kinds_line(kinds) ==
          "8 Performance (L1d 128 KiB, L2 12 MiB per 4 cores), 2 Efficiency (L1d 64 KiB, L2 4 MiB per 2 cores)");

    // An Intel Mac (or an older macOS) has no perf levels: nothing, and the plain keys serve.
    const std::map<std::string, std::string> intel = {{"hw.l1dcachesize", "32768"}};
    table = &intel;
    CHECK(gemm::cpu::core_kinds_from(fake_sysctl).empty());
    // A level without cores (or garbage) ends the list there.
    const std::map<std::string, std::string> odd = {{"hw.nperflevels", "2"}, {"hw.perflevel0.physicalcpu", "4"},
                                                    {"hw.perflevel1.physicalcpu", "x"}};
    table = &odd;
    const auto one = gemm::cpu::core_kinds_from(fake_sysctl);
    REQUIRE(one.size() == 1);
    CHECK(one[0].name == "Performance");
    table = &kM1Pro;
}

TEST_CASE("Apple's cores and Intel Macs in the per-core FMA table", "[macos]") {
    using gemm::cpu::classify;
    // macOS: vendor apple, family 0x61, model hw.cpufamily (CPUFAMILY_ARM_FIRESTORM_ICESTORM).
    const gemm::cpu::Microarch m1 = classify({"apple", 0x61, static_cast<int>(0x1b588bb3u), 0});
    CHECK(m1.name == "Apple M1 (Firestorm)");
    CHECK(m1.neon == 32);   // four 128-bit FMA pipes: 4 x 4 lanes x 2 FLOPs
    CHECK(classify({"apple", 0x61, static_cast<int>(0xda33d83du), 0}).name == "Apple M2 (Avalanche)");
    const gemm::cpu::Microarch later = classify({"apple", 0x61, 12345, 0});
    CHECK(later.name == "Apple M-series");
    CHECK(later.neon == 32);
    const gemm::peak::FlopsPerCycle f = gemm::peak::flops_per_cycle("neon", m1);
    CHECK(f.fp32 == 32);
    CHECK(f.source.rfind("table", 0) == 0);
    // The blog's MacBook Pro: an i5-8257U, Coffee Lake (family 6 model 0x8e), by its CPUID.
    const gemm::cpu::Microarch mbp = classify({"GenuineIntel", 6, 0x8e, 12});
    CHECK(mbp.name == "Skylake (client)");
    CHECK(mbp.avx2 == 32);
}
