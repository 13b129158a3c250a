// Every step on random shapes large enough for its own block sizes to matter: the awkward
// shapes of test_steps.cpp are small, so there the tuned step runs its unpacked path and k
// fits one slice. Here m, n and k reach past the packed path's threshold, past kc and the
// one-slice depth, with padded leading dimensions, on one thread and two. The shapes come
// from a fixed seed (a failure names its shape, and it stays the same from run to run).
#include "build_kind.hpp"
#include "kernel_check.hpp"

#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

// Multiply-adds per shape at most: a scalar lesson and the double-precision reference take
// about a second for all shapes together; under an emulator (the AArch64 build) or
// AddressSanitizer, a tenth to a twentieth of that (CI runs all four builds' suites).
#if defined(GEMM_TEST_EMULATOR)
constexpr double kMaxWork = 6e6;
#else
constexpr double kMaxWork = gemm::test::kAddressSanitizer ? 1e7 : 1.2e8;
#endif
constexpr int kShapes = 8;

std::vector<gemm::test::Shape> random_shapes(unsigned seed) {
    std::mt19937 rng(seed);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<gemm::test::Shape> shapes;
    while (static_cast<int>(shapes.size()) < kShapes) {
        // Four kinds in turn: A too big for the unpacked path and k past the one-slice depth
        // of every core the rules know (several slices); wide and tall (several A blocks and
        // B panels' slivers, edge tiles); anything; deep and narrow.
        gemm::test::Shape s{};
        switch (shapes.size() % 4) {
            case 0: s = {pick(250, 500), pick(1, 100), pick(1990, 2600)}; break;
            case 1: s = {pick(300, 900), pick(300, 900), pick(50, 250)}; break;
            case 2: s = {pick(1, 900), pick(1, 900), pick(1, 700)}; break;
            default: s = {pick(1, 300), pick(1, 300), pick(700, 2300)}; break;
        }
        if (static_cast<double>(s.m) * s.n * s.k > kMaxWork) continue;
        if (shapes.size() % 3 != 0) s.pad_a = pick(1, 40), s.pad_b = pick(1, 40), s.pad_c = pick(1, 40);
        shapes.push_back(s);
    }
    return shapes;
}

}  // namespace

TEST_CASE("every variant is right on large random shapes - with its own block sizes", "[steps][random]") {
    const std::vector<gemm::test::Shape> shapes = random_shapes(2026);
#if defined(_OPENMP)
    const int before = omp_get_max_threads();
#endif
    for (const gemm::Step& step : gemm::steps()) {
        for (const gemm::Variant& variant : step.def->variants) {
            if (!variant.is_supported()) continue;
            for (const int threads : {1, 2}) {
                if (threads > 1 && !step.def->parallel) continue;
#if defined(_OPENMP)
                omp_set_num_threads(threads);
#endif
                for (const auto& shape : shapes) {
                    INFO("step " << step.slug << ", kernel " << variant.name << ", " << threads << " thread(s), "
                                 << gemm::test::describe(shape));
                    CHECK(gemm::test::check_kernel(variant.kernel, shape, 11) == "");
                }
            }
        }
    }
#if defined(_OPENMP)
    omp_set_num_threads(before);
#endif
}
