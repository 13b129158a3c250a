// Step 10's rules as functions of an explicit configuration (steps/10_tuned/config.hpp,
// blocks.hpp): the depth of the slices of k, --no-even-k on every thread count, the plan hook
// bin/cpuinfo --json shows, and the nests' results against each other bit for bit.
#include "kernel_check.hpp"
#include "steps/10_tuned/nests.hpp"
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

// C (m x n) after the nest, from the same random A, B and C every time.
std::vector<float> product(bool parallel, const step10::Config& config, const step10::TileShape& tile, int m, int n,
                           int k) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
        C(static_cast<std::size_t>(m) * n);
    for (float& x : A) x = u(rng);
    for (float& x : B) x = u(rng);
    for (float& x : C) x = u(rng);
    const step10::Operands p{m, n, k, A.data(), k, B.data(), n, C.data(), n};
    if (parallel) step10::parallel_gemm(config, tile, p);
    else step10::serial_gemm(config, tile, p);
    return C;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("step 10: the depth of k's slices - one slice, even slices, --no-even-k", "[step10][config]") {
    const step10::Config even = sliced(false), uneven = sliced(true);
    const step10::Blocks blocks{112, 64, 1024, 64};
    CHECK(step10::slice_depth(even, blocks, 64) == 64);
    CHECK(step10::slice_depth(even, blocks, 165) == 55);
    CHECK(step10::slice_depth(uneven, blocks, 165) == 64);
    const step10::Blocks one_slice{112, 64, 1024, 200};
    CHECK(step10::slice_depth(even, one_slice, 165) == 165);
    CHECK(step10::slice_depth(uneven, one_slice, 165) == 165);
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
            CHECK(same_bits(product(true, config, tile, 61, 77, 165), serial));
            CHECK(step10::threads_used() == threads);
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
    const std::string small = step->def->plan(variant, 37, 37, 37, 2);
    const std::string large = step->def->plan(variant, 1000, 1000, 1000, 2);
    INFO(small << "\n" << large);
    CHECK(small.find(variant == "neon" ? "path=packed " : "path=direct ") == 0);
    CHECK(large.find("path=packed ") == 0);
    for (const char* key : {" mc=", " kc=", " nc=", " one_slice=", " threads=", " outer_bytes_per_flop=",
                            " max_outer_bytes_per_flop=0.0250"})
        CHECK(large.find(key) != std::string::npos);
    // The blocks are those the params show, k in one slice up to one-slice.
    const int kc = step->find_param("kc")->get(), one_slice = step->find_param("one-slice")->get();
    CHECK(large.find(" mc=" + std::to_string(step->find_param("mc")->get()) + " ") != std::string::npos);
    CHECK(large.find(" nc=" + std::to_string(step->find_param("nc")->get()) + " ") != std::string::npos);
    CHECK(large.find(" one_slice=" + std::to_string(one_slice) + " ") != std::string::npos);
    if (1000 <= one_slice) CHECK(large.find(" kc=1000 ") != std::string::npos);
    else CHECK(large.find(" kc=" + std::to_string(step10::even_split(1000, kc)) + " ") != std::string::npos);
    // --no-even-k through the step's own param, as the command line sets it.
    const gemm::Param* no_even_k = step->find_param("no-even-k");
    const gemm::Param* slice = step->find_param("one-slice");
    slice->set(1);
    const int k = 2 * kc + kc / 2 + 1;
    const std::string even = step->def->plan(variant, 500, 500, k, 2);
    no_even_k->set(1);
    const std::string uneven = step->def->plan(variant, 500, 500, k, 2);
    no_even_k->set(0);
    slice->set(0);
    INFO(even << "\n" << uneven);
    CHECK(even.find(" kc=" + std::to_string(step10::even_split(k, kc)) + " ") != std::string::npos);
    CHECK(uneven.find(" kc=" + std::to_string(kc) + " ") != std::string::npos);
    CHECK(step->def->plan("no-such-kernel", 100, 100, 100, 1) == "");
}
