// Step 10's rules as functions of an explicit configuration (steps/10_tuned/config.hpp,
// blocks.hpp): the slices of k and the A blocks per product, --no-even-k on every thread count, the plan hook
// bin/cpuinfo --json shows, and the nests' results against each other bit for bit.
#include "kernel_check.hpp"
#include "steps/10_tuned/nests.hpp"
#include "steps/10_tuned/partition.hpp"
#include "steps/10_tuned/plan.hpp"

#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

using gemm::test::find_step;

// The best tile this CPU runs, or nullptr.
const step10::IsaTile* best_tile() {
    const gemm::Step* step = find_step("10_tuned");
    if (step == nullptr || step->best_variant() == nullptr) return nullptr;
    return step10::isa_tile(step->best_variant()->name);
}

// kc 64 asked for, one slice turned off: k = 165 is 3 slices of 55, or 64 + 64 + 37.
step10::Config sliced(bool no_even_k) {
    step10::Config c;
    c.kc = 64;
    c.blocks_asked = step10::kAskedKc;
    c.one_slice = 1;
    c.min_kflops = 1;   // every product on the whole team
    c.ablation.no_even_k = no_even_k;
    return c;
}

// C (m x n) after the nest, from the same random A, B and C every time; `team`: the threads it ran on.
std::vector<float> product(bool parallel, const step10::Config& config, const step10::TileShape& tile, int m, int n,
                           int k, int* team = nullptr) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
        C(static_cast<std::size_t>(m) * n);
    for (float& x : A) x = u(rng);
    for (float& x : B) x = u(rng);
    for (float& x : C) x = u(rng);
    const step10::Operands p{m, n, k, A.data(), k, B.data(), n, C.data(), n};
    const int ran = parallel ? step10::parallel_gemm(config, tile, p) : (step10::serial_gemm(config, tile, p), 1);
    if (team != nullptr) *team = ran;
    return C;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("step 10: blocks asked for keep their slices - one slice, even slices, --no-even-k", "[step10][config]") {
    const step10::Config even = sliced(false), uneven = sliced(true);
    const step10::Blocks blocks{112, 64, 1024, 64};
    const auto depth = [](const step10::Config& c, const step10::Blocks& b, int k) {
        const step10::Blocks run = step10::product_blocks(c, b, 500, k, 14, 32, 64);
        CHECK(run.mc == b.mc);   // the block asked for, whatever m
        return run.kc;
    };
    CHECK(depth(even, blocks, 64) == 64);
    CHECK(depth(even, blocks, 165) == 55);
    CHECK(depth(uneven, blocks, 165) == 64);
    const step10::Blocks one_slice{112, 64, 1024, 200};
    CHECK(depth(even, one_slice, 165) == 165);
    CHECK(depth(uneven, one_slice, 165) == 165);
}

// The rules' blocks on Zen 3's caches (L2 512 KiB) for the AVX2 tile, 6 x 16 at 32 FLOPs a
// cycle: kc 416, mc 78, one slice up to 784 (README: "Block sizes").
TEST_CASE("step 10: slices and A blocks per product - the least traffic beyond L2", "[step10][config]") {
    const step10::Config rules;
    const step10::Blocks zen3{78, 416, 10080, 784};
    const long l2 = 512 * 1024;
    const auto run = [&](int m, int k) { return step10::product_blocks(rules, zen3, m, k, 6, 16, 32, l2); };
    // What cachegrind counted lowest at n = 512 on these caches (docs/tuning-log.md): 2 x 256
    // with three A blocks of 174 rows (3/8 of L2), not one slice of 512 with seven of 78.
    CHECK(run(512, 512).kc == 256);
    CHECK(run(512, 512).mc == 174);
    CHECK(run(768, 768).kc == 256);
    CHECK(run(768, 768).mc == 192);
    const auto traffic = [](int m, int k, const step10::Blocks& b) {   // bytes a FLOP beyond L2
        return 2.0 * ((m + b.mc - 1) / b.mc) / m + 4.0 * ((k + b.kc - 1) / b.kc) / k;
    };
    for (const int m : {6, 100, 333, 512, 1000, 2048})
        for (const int k : {1, 17, 300, 416, 785, 1024, 1536, 2048, 5000}) {
            const step10::Blocks b = run(m, k);
            INFO("m " << m << ", k " << k << ": kc " << b.kc << ", mc " << b.mc);
            CHECK(b.mc % 6 == 0);
            CHECK(b.kc <= (k <= zen3.one_slice ? k : zen3.kc));
            CHECK(b.kc >= (k < 200 ? k : 200));   // the C tile's cost per call within 2 %: kc_fma / 2
            CHECK((k + b.kc - 1) / b.kc * b.kc - k < (k + b.kc - 1) / b.kc);   // equal slices
            const int blocks_of_m = (m + b.mc - 1) / b.mc;
            CHECK(blocks_of_m * b.mc - m < 6 * blocks_of_m);   // m cut into nearly equal blocks
            // Never more traffic than the step's own blocks, cut as before.
            const step10::Blocks before{78, k <= zen3.one_slice ? k : step10::even_split(k, zen3.kc), 10080, 784};
            CHECK(traffic(m, k, b) <= traffic(m, k, before) + 1e-12);
        }
    // Blocks within the bound (the AVX-512 tile on Zen 4's caches) are cut as they say.
    const step10::Blocks zen4{112, 704, 5952, 992};
    for (const int n : {512, 1536}) {
        const step10::Blocks b = step10::product_blocks(rules, zen4, n, n, 14, 32, 32, 1024 * 1024);
        CHECK(b.mc == 112);
        CHECK(b.kc == (n <= 992 ? n : step10::even_split(n, 704)));
    }
    // --no-even-k: slices of kc and a thinner last one.
    step10::Config uneven;
    uneven.ablation.no_even_k = 1;
    CHECK(step10::product_blocks(uneven, zen3, 1536, 1536, 6, 16, 32, l2).kc == 416);
    CHECK(step10::product_blocks(uneven, zen3, 512, 512, 6, 16, 32, l2).kc == 512);
}

TEST_CASE("step 10's plan: --no-even-k changes the kc it runs at 1 and 2 threads", "[step10][config]") {
    const step10::IsaTile* entry = best_tile();
    if (entry == nullptr) return;
    for (const int threads : {1, 2}) {
        INFO(threads << " threads");
        const step10::Config even = sliced(false), uneven = sliced(true);
        const step10::Plan a = step10::plan_for(even, step10::tile_for(*entry, even.ablation), 200, 200, 165, 200, threads);
        const step10::Plan b = step10::plan_for(uneven, step10::tile_for(*entry, uneven.ablation), 200, 200, 165, 200,
                                                threads);
        CHECK_FALSE(a.direct);
        CHECK(a.blocks.kc == 55);
        CHECK(b.blocks.kc == 64);
        CHECK(a.threads == threads);
        CHECK(step10::plan_text(b).find("path=packed mc=") == 0);
        CHECK(step10::plan_text(b).find(" kc=64 ") != std::string::npos);
        CHECK(step10::plan_text(b).find(" threads=" + std::to_string(threads) + " ") != std::string::npos);
    }
}

// Every element of C is the same chain of FMAs whichever thread computes it, so with the same
// slices the parallel nest's result is the serial nest's bit for bit; other slices round
// differently. So the parallel nest honours --no-even-k when its result is the serial one's
// with the switch, and not the one without it.
TEST_CASE("step 10: --no-even-k slices k alike on one thread and on 2 or 3", "[step10][config]") {
    const step10::IsaTile* entry = best_tile();
    if (entry == nullptr) return;
#if defined(_OPENMP)
    const int before = omp_get_max_threads();
    for (const int threads : {2, 3}) {
        omp_set_num_threads(threads);
        for (const bool no_even_k : {false, true}) {
            INFO(threads << " threads, --no-even-k " << no_even_k);
            const step10::Config config = sliced(no_even_k), other = sliced(!no_even_k);
            const step10::TileShape tile = step10::tile_for(*entry, config.ablation);
            const std::vector<float> serial = product(false, config, tile, 61, 77, 165);
            int team = 0;
            CHECK(same_bits(product(true, config, tile, 61, 77, 165, &team), serial));
            CHECK(team == threads);
            CHECK_FALSE(same_bits(product(false, other, tile, 61, 77, 165), serial));
        }
    }
    omp_set_num_threads(before);
#endif
}

TEST_CASE("step 10's plan hook: the step's own rules in the params column's form", "[step10][config]") {
    const gemm::Step* step = find_step("10_tuned");
    if (step == nullptr || step->best_variant() == nullptr) return;
    REQUIRE(step->def->plan != nullptr);
    const std::string variant(step->best_variant()->name);
    gemm::Setting setting{variant};   // nothing given or tuned: the rules
    const std::string small = step->def->plan(setting, 37, 37, 37, 2);
    const std::string large = step->def->plan(setting, 1000, 1000, 1000, 2);
    INFO(small << "\n" << large);
    CHECK(small.find(variant == "neon" ? "path=packed " : "path=direct ") == 0);
    CHECK(large.find("path=packed ") == 0);
    for (const char* key : {" mc=", " kc=", " nc=", " one_slice=", " threads=", " outer_bytes_per_flop=",
                            " max_outer_bytes_per_flop=0.0250"})
        CHECK(large.find(key) != std::string::npos);
    // The blocks are those the params show, cut for this product (product_blocks) from the
    // rows of one row group of the team.
    const auto value = [&](const char* name) { return gemm::shown_value(*step, setting, *step->find_param(name)).value(); };
    const int kc = value("kc"), one_slice = value("one-slice");
    const step10::Blocks shown{value("mc"), kc, value("nc"), one_slice};
    const step10::TileShape tile = step10::tile_for(*step10::isa_tile(variant), step10::Ablation{});
    const auto run = [&](int m, int n, int k, int threads) {
        const int rows = step10::group_rows(threads, m, n, tile.mr, tile.nr);
        return step10::product_blocks(step10::Config{}, shown, rows, k, tile.mr, tile.nr, tile.flops);
    };
    const step10::Blocks b = run(1000, 1000, 1000, 2);
    CHECK(large.find(" mc=" + std::to_string(b.mc) + " kc=" + std::to_string(b.kc) + " ") != std::string::npos);
    CHECK(large.find(" nc=" + std::to_string(shown.nc) + " ") != std::string::npos);
    CHECK(large.find(" one_slice=" + std::to_string(one_slice) + " ") != std::string::npos);
    CHECK(b.kc <= (1000 <= one_slice ? 1000 : kc));
    // --no-even-k through the step's own param, as the command line sets it.
    setting.given[step->param_index(*step->find_param("one-slice"))] = 1;
    const int k = 2 * kc + kc / 2 + 1;
    const std::string even = step->def->plan(setting, 500, 500, k, 2);
    setting.given[step->param_index(*step->find_param("no-even-k"))] = 1;
    const std::string uneven = step->def->plan(setting, 500, 500, k, 2);
    INFO(even << "\n" << uneven);
    step10::Config sliced_rules;
    sliced_rules.one_slice = 1;
    const int rows = step10::group_rows(2, 500, 500, tile.mr, tile.nr);
    const int even_kc = step10::product_blocks(sliced_rules, {shown.mc, kc, shown.nc, kc}, rows, k, tile.mr, tile.nr,
                                               tile.flops).kc;
    CHECK(even_kc < kc);   // equal slices, none deeper than kc
    CHECK(even.find(" kc=" + std::to_string(even_kc) + " ") != std::string::npos);
    CHECK(uneven.find(" kc=" + std::to_string(kc) + " ") != std::string::npos);
    CHECK(step->def->plan(gemm::Setting{"no-such-kernel"}, 100, 100, 100, 1) == "");
}

// Each call takes its configuration from the Setting it is given, and keeps nothing: a run
// with blocks and a team asked for, between two runs of the rules, changes neither the second
// one's result (bit for bit: other slices of k round differently) nor its team.
TEST_CASE("step 10: a Setting run after another takes its own values - nothing left by the first", "[step10][config]") {
    const gemm::Step* step = find_step("10_tuned");
    if (step == nullptr || step->best_variant() == nullptr) return;
    const int m = 61, n = 77, k = 165;
    const auto product = [&](const gemm::Setting& s, int& threads) {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-1, 1);
        std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
            C(static_cast<std::size_t>(m) * n);
        for (std::vector<float>* v : {&A, &B, &C})
            for (float& x : *v) x = u(rng);
        threads = gemm::run_setting(*step, s, m, n, k, A.data(), k, B.data(), n, C.data(), n);
        return C;
    };
#if defined(_OPENMP)
    const int before = omp_get_max_threads();
    omp_set_num_threads(2);
#endif
    const gemm::Setting rules{step->best_variant()->name};
    gemm::Setting asked = rules;
    asked.given[step->param_index(*step->find_param("kc"))] = 5;
    asked.given[step->param_index(*step->find_param("min-kflops"))] = 1;   // the whole team
    int first_team = 0, asked_team = 0, again_team = 0;
    const std::vector<float> first = product(rules, first_team);
    const std::vector<float> other = product(asked, asked_team);
    const std::vector<float> again = product(rules, again_team);
    CHECK_FALSE(same_bits(first, other));
    CHECK(same_bits(first, again));
    CHECK(again_team == first_team);
#if defined(_OPENMP)
    CHECK(first_team == 1);   // too small to share under the rules
    CHECK(asked_team == 2);
    omp_set_num_threads(before);
#endif
}
