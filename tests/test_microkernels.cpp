// Steps 08, 09 and 10: every micro-kernel this CPU runs (AVX-512 14x32 and AVX2 6x16 on
// x86-64, NEON 8x12 on AArch64) on every edge-tile shape, with default and with tiny block
// sizes; the packing routines' layout and zero padding (step 08's plain ones, step 10's
// vectorised ones); step 10's tricks, its ablation switches, its row split and its thread
// counts; steps 09 and 10 on 1, 2, 3, 5 and 7 threads.
#include "kernel_check.hpp"
#include "steps/08_avx512_14x32/loop_nest.hpp"

#include "steps/08_avx512_14x32/packing.hpp"
#include "steps/10_tuned/microkernels.hpp"
#include "steps/10_tuned/packing.hpp"
#include "steps/10_tuned/partition.hpp"

#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

using gemm::test::check_kernel;
using gemm::test::describe;
using gemm::test::find_step;
using gemm::test::Shape;
using gemm::test::Tuning;

namespace {

struct Tile {
    std::string_view variant;
    int mr, nr;
};
constexpr Tile kTiles[] = {{"avx512", 14, 32}, {"avx2", 6, 16}, {"neon", 8, 12}};

// The step's --mc --kc --nc as the command line gives them; 0: the defaults.
void set_blocks(Tuning& tuning, int mc, int kc, int nc) {
    tuning.set("mc", mc);
    tuning.set("kc", kc);
    tuning.set("nc", nc);
}

// Every combination of m % MR and n % NR (m = 1 .. MR, n = 1 .. NR), each either alone or
// after a whole tile (m + MR, n + NR), in turn. Every third shape has padded leading
// dimensions. Returns the first failure, or "".
std::string check_edge_tiles(const gemm::test::Call& kernel, const Tile& tile, int k) {
    int t = 0;
    for (int rm = 1; rm <= tile.mr; ++rm)
        for (int rn = 1; rn <= tile.nr; ++rn, ++t) {
            const int m = rm + (t % 2 ? tile.mr : 0), n = rn + (t / 2 % 2 ? tile.nr : 0);
            const Shape s = t % 3 ? Shape{m, n, k} : Shape{m, n, k, 1 + t % 4, 1 + t % 5, 1 + t % 7};
            const std::string problem = check_kernel(kernel, s, static_cast<unsigned>(t + 1));
            if (!problem.empty()) return describe(s) + ": " + problem;
        }
    return "";
}

}  // namespace

TEST_CASE("steps 08, 09 and 10 list every micro-kernel of the architecture", "[microkernels]") {
    for (std::string_view slug : {"08_avx512_14x32", "09_openmp", "10_tuned"}) {
        const gemm::Step* step = find_step(slug);
        if (step == nullptr && slug != "08_avx512_14x32") continue;   // built without OpenMP
        REQUIRE(step != nullptr);
        INFO("step " << slug);
#if defined(__x86_64__)
        CHECK(step->find_variant("avx512") != nullptr);
        CHECK(step->find_variant("avx2") != nullptr);
        CHECK(step->def->variants.front().name == "avx512");
#elif defined(__aarch64__)
        CHECK(step->find_variant("neon") != nullptr);
#endif
        for (const char* p : {"mc", "kc", "nc"}) CHECK(step->find_param(p) != nullptr);
    }
}

TEST_CASE("each micro-kernel handles every edge tile", "[microkernels]") {
    for (std::string_view slug : {"08_avx512_14x32", "09_openmp", "10_tuned"}) {
        const gemm::Step* step = find_step(slug);
        if (step == nullptr) continue;
        int tested = 0;
        for (const Tile& tile : kTiles) {
            const gemm::Variant* variant = step->find_variant(tile.variant);
            if (variant == nullptr || !variant->is_supported()) continue;
            ++tested;
            INFO("step " << slug << ", kernel " << tile.variant);
            // Default blocks: one block in every direction; k = 7 is not a multiple of anything.
            CHECK(check_edge_tiles(variant->kernel, tile, 7) == "");
            // Tiny blocks: kc = 3 splits k = 7 into 3 + 3 + 1, mc = one tile, nc = one sliver,
            // so the packing and the loops run over several blocks with edges in each.
            Tuning tiny(*step);
            set_blocks(tiny, tile.mr, 3, tile.nr);
            CHECK(check_edge_tiles(tiny.kernel(*variant), tile, 7) == "");
            // Blocks that are not multiples of the tile: rounded up by the step.
            set_blocks(tiny, tile.mr + 1, 5, tile.nr + 3);
            CHECK(check_kernel(tiny.kernel(*variant), {3 * tile.mr + 2, 4 * tile.nr + 5, 23, 2, 3, 5}) == "");
        }
        CHECK(tested > 0);   // this machine runs at least one of the micro-kernels
    }
}

// Unpacked products (small enough for any L2 of 256 KiB) whose last 1-4 columns go to the
// narrow-strip kernel: k >= 48, n % 16 = 1..4. Rows 1-13 and 100 cover every remainder of
// its 6-row blocks; k = 63 and 97 end in a partial 16-step chunk; a third have padding (NaN)
// past A's rows, which the partial chunk must not read. Also with 3 and 7 threads,
// so that several claims, and claims of different column groups, reach the last columns.
TEST_CASE("the unpacked path's narrow last columns are right on every row count", "[microkernels]") {
    const int depths[] = {48, 63, 64, 97};
    std::vector<Shape> shapes;
    int t = 0;
    for (const int n : {1, 3, 4, 17, 20, 36, 100})
        for (const int m : {1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 100}) {
            const int k = depths[t % 4];
            shapes.push_back(t % 3 ? Shape{m, n, k} : Shape{m, n, k, 1 + t % 5, 2 + t % 3, 1 + t % 4});
            ++t;
        }
#if defined(_OPENMP)
    const int before = omp_get_max_threads();
    const int thread_counts[] = {1, 3, 7};
#else
    const int thread_counts[] = {1};
#endif
    for (std::string_view slug : {"10_tuned"}) {
        const gemm::Step* step = find_step(slug);
        if (step == nullptr) continue;
        const gemm::Variant* variant = step->find_variant("avx512");
        if (variant == nullptr || !variant->is_supported()) continue;
        Tuning tuning(*step);
        tuning.set("min-kflops", 1);   // split even these shapes
        for (const int threads : thread_counts) {
#if defined(_OPENMP)
            omp_set_num_threads(threads);
#endif
            for (const Shape& shape : shapes) {
                INFO("step " << slug << ", " << threads << " thread(s), " << describe(shape));
                CHECK(check_kernel(tuning.kernel(*variant), shape, 5) == "");
            }
        }
    }
#if defined(_OPENMP)
    omp_set_num_threads(before);
#endif
}

// The packed path of step 10 (AVX-512, one thread) copies every B sliver but a panel's first inside the
// first A block's kernel calls: here in shares over 1-4 calls, an edge tile (m % 14 rows)
// among them, the partial last sliver packed apart, k below 4 (no k loop) and odd, several
// A blocks, k slices and B panels. A third of the shapes have padding (NaN) in B, which the
// copies must not read.
TEST_CASE("step 10 copies B slivers inside the kernel calls correctly", "[microkernels]") {
    const gemm::Step* step = find_step("10_tuned");
    if (step == nullptr) return;   // built without OpenMP
    const gemm::Variant* variant = step->find_variant("avx512");
    if (variant == nullptr || !variant->is_supported()) return;
#if defined(_OPENMP)
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);   // the serial nest
#endif
    struct Blocks {
        int mc, kc, nc;
    };
    for (const Blocks& b : {Blocks{14, 0, 0}, Blocks{28, 5, 0}, Blocks{112, 3, 0}, Blocks{42, 0, 96}}) {
        Tuning blocks(*step);
        set_blocks(blocks, b.mc, b.kc, b.nc);
        int t = 0;
        for (const int m : {1, 14, 15, 30, 45})
            for (const int n : {33, 64, 65, 97, 130})
                for (const int k : {1, 2, 5, 16, 37}) {
                    const Shape s = t % 3 ? Shape{m, n, k} : Shape{m, n, k, 1 + t % 4, 1 + t % 5, 1 + t % 3};
                    ++t;
                    INFO("mc " << b.mc << ", kc " << b.kc << ", nc " << b.nc << ", " << describe(s));
                    CHECK(check_kernel(blocks.kernel(*variant), s, static_cast<unsigned>(t)) == "");
                }
    }
#if defined(_OPENMP)
    omp_set_num_threads(before);
#endif
}

// k just past kc, with the block sizes derived from this CPU's caches: a k the L2 can hold
// in one slice is taken in one (the packed blocks deeper than kc, their buffers sized for
// it), a deeper one in equal slices. Both paths are taken on every CPU: once with the depth
// this CPU's L2 gives (on a small L2 it is kc), once with every k in one slice, once with
// none. Setting mc to its own value sends these small products down the packed path
// without changing a block size.
TEST_CASE("step 10 is right when k is just past kc - in one slice or in several", "[microkernels]") {
    for (const char* slug : {"10_tuned"}) {
        const gemm::Step* step = find_step(slug);
        if (step == nullptr) continue;   // built without OpenMP
        REQUIRE(step->find_param("one-slice") != nullptr);
        Tuning tuning(*step);
        tuning.set("min-kflops", 1);   // every product on the whole team
        const int mc = tuning.get("mc"), kc = tuning.get("kc");
        set_blocks(tuning, mc, 0, 0);
        CHECK(tuning.get("one-slice") >= kc);
        int t = 0;
        for (const int depth : {0, 4 * kc, 1}) {
            tuning.set("one-slice", depth);
            if (depth > 0) CHECK(tuning.get("one-slice") == (depth > kc ? depth : kc));
            for (const gemm::Variant& variant : step->def->variants) {
                if (!variant.is_supported()) continue;
                for (const int k : {kc + 1, kc + 37, 2 * kc + 5, 4 * kc - 3})
                    for (const Shape& s : {Shape{15, 70, k}, Shape{29, 33, k, 3, 1, 2}}) {
                        INFO(slug << ", kernel " << variant.name << ", mc " << mc << ", kc " << kc
                                  << ", one slice up to k = " << tuning.get("one-slice") << ", " << describe(s));
                        CHECK(check_kernel(tuning.kernel(variant), s, static_cast<unsigned>(++t)) == "");
                    }
            }
        }
    }
}

TEST_CASE("step 10's ablation switches each keep every result right", "[microkernels][ablation]") {
    const gemm::Step* step = find_step("10_tuned");
    if (step == nullptr) return;   // built without OpenMP
    // Each idea off alone (tile sizes: a few shapes), then all of them off together: the
    // starting point of tools/ablation.sh's "added one by one".
    struct Setting {
        const char* name;
        int value;
    };
    const Setting settings[] = {{"no-direct", 1}, {"no-vector-pack", 1}, {"no-even-k", 1}, {"old-blocks", 1},
                                {"no-prefetch", 1}, {"no-copy-b", 1}, {"no-narrow", 1}, {"no-strips", 1}, {"no-fma", 1}, {"fold", 1}, {"fold", 2},
                                {"tile-rows", 1}, {"tile-rows", 4}, {"tile-rows", 13}, {"tile-cols", 16}};
    for (const Setting& setting : settings) REQUIRE(step->find_param(setting.name) != nullptr);
    REQUIRE(step->find_param("min-kflops") != nullptr);
    // On 1, 2 and 3 threads, every product on the whole team (--min-kflops 1): the serial nest
    // and the parallel one, each with the switch.
    const auto check_variants = [&](Tuning& tuning, const std::string& what) {
#if defined(_OPENMP)
        const int before = omp_get_max_threads();
        for (const int threads : {1, 2, 3}) {
            omp_set_num_threads(threads);
#else
        for (const int threads : {1}) {
#endif
            tuning.set("min-kflops", 1);
            for (const Tile& tile : kTiles) {
                const gemm::Variant* variant = step->find_variant(tile.variant);
                if (variant == nullptr || !variant->is_supported()) continue;
                INFO("kernel " << tile.variant << ", " << what << ", " << threads << " threads");
                CHECK(check_edge_tiles(tuning.kernel(*variant), tile, 7) == "");
                for (const auto& shape : gemm::test::awkward_shapes()) {
                    INFO(describe(shape));
                    CHECK(check_kernel(tuning.kernel(*variant), shape, 3) == "");
                }
            }
            tuning.set("min-kflops", 0);
        }
#if defined(_OPENMP)
        omp_set_num_threads(before);
#endif
    };
    for (const Setting& setting : settings) {
        Tuning tuning(*step);
        tuning.set(setting.name, setting.value);
        check_variants(tuning, std::string("--") + setting.name + " " + std::to_string(setting.value));
    }
    Tuning all(*step);
    for (const Setting& setting : settings) all.set(setting.name, setting.value);
    all.set("tile-rows", 4);
    check_variants(all, "every switch off, a 4 x 16 tile");
    for (const Setting& s : settings) all.set(s.name, 0);
    if (step->find_variant("avx512")->is_supported()) {
        CHECK(all.get("tile-rows") == 14);   // 0 restores the step as it is
        CHECK(all.get("no-fma") == 0);
    }
}

TEST_CASE("pack_a and pack_b lay out slivers with zero padding", "[microkernels][packing]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // A 5 x 7 window of a 9 x 10 matrix whose outside is NaN: packing must not read it.
    const int rows = 9, cols = 10, ld = cols;
    std::vector<float> src(rows * ld, nan);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) src[i * ld + j] = static_cast<float>(100 * i + j + 1);

    SECTION("pack_a: MR-row slivers, A(i, p) at [sliver][p][i], rows past mc zero") {
        const int mc = 5, kc = 7, mr = 3;   // two slivers, the second has 2 rows + 1 of zeros
        std::vector<float> packed(2 * mr * kc, -1.0f);
        step08::pack_a(mc, kc, src.data(), ld, mr, packed.data());
        for (int s = 0; s < 2; ++s)
            for (int p = 0; p < kc; ++p)
                for (int i = 0; i < mr; ++i) {
                    const int row = s * mr + i;
                    const float expected = row < mc ? src[row * ld + p] : 0.0f;
                    INFO("sliver " << s << ", p " << p << ", i " << i);
                    CHECK(packed[(s * kc + p) * mr + i] == expected);
                }
    }
    SECTION("pack_b: NR-column slivers, B(p, j) at [sliver][p][j], columns past nc zero") {
        const int kc = 5, nc = 7, nr = 4;   // two slivers, the second has 3 columns + 1 of zeros
        std::vector<float> packed(2 * nr * kc, -1.0f);
        step08::pack_b(kc, nc, src.data(), ld, nr, packed.data());
        for (int s = 0; s < 2; ++s)
            for (int p = 0; p < kc; ++p)
                for (int j = 0; j < nr; ++j) {
                    const int col = s * nr + j;
                    const float expected = col < nc ? src[p * ld + col] : 0.0f;
                    INFO("sliver " << s << ", p " << p << ", j " << j);
                    CHECK(packed[(s * kc + p) * nr + j] == expected);
                }
    }
    SECTION("pack_b_narrow: up to 4 columns along k, rows past nr and entries past k zero") {
        for (const int nr : {1, 3, 4})
            for (const int k : {1, 5}) {   // k = 5: one partial 16-float row each
                const long kpad = step10::narrow_depth(k);
                std::vector<float> packed(4 * kpad, -1.0f);
                step10::pack_b_narrow(k, nr, src.data() + 3, ld, packed.data());   // columns 3..
                for (int j = 0; j < 4; ++j)
                    for (int p = 0; p < kpad; ++p) {
                        const float expected = j < nr && p < k ? src[p * ld + 3 + j] : 0.0f;
                        INFO("nr " << nr << ", k " << k << ", j " << j << ", p " << p);
                        CHECK(packed[j * kpad + p] == expected);
                    }
            }
    }
}

#if defined(__x86_64__)
TEST_CASE("the vectorised packing matches the plain packing - edges and all", "[microkernels][packing]") {
    struct Packer {
        const char* isa;
        bool (*supported)();
        decltype(&step10::pack_a) pack_a;
        decltype(&step10::pack_b) pack_b;
        int mr, nr, vector;   // vector: floats per register
    };
    const Packer packers[] = {{"AVX-512", gemm::cpu::has_avx512f, step10::pack_a_avx512, step10::pack_b_avx512, 14, 32, 16},
                              {"AVX2", gemm::cpu::has_avx2_fma, step10::pack_a_avx2, step10::pack_b_avx2, 6, 16, 8}};
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Windows of a larger matrix whose outside is NaN, from 1 x 1 to more than two slivers and
    // two vectors: every rows % mr, kc % vector and nc % nr, after whole ones or alone.
    const int ld = 80, rows = 72;
    std::vector<float> src(rows * ld, nan);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < ld - 2; ++j) src[i * ld + j] = static_cast<float>(1000 * i + j + 1);
    const auto first_difference = [](const float* got, const std::vector<float>& want) {
        for (std::size_t i = 0; i < want.size(); ++i)
            if (!(got[i] == want[i])) return static_cast<long>(i);   // NaN never equals
        return -1L;
    };
    // The vectorised pack_b stores whole aligned vectors, as into the step's 64-byte aligned buffers.
    struct Aligned {
        float* data;
        explicit Aligned(std::size_t n) : data(static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t{64}))) {
            std::fill(data, data + n, -1.0f);
        }
        ~Aligned() { ::operator delete[](data, std::align_val_t{64}); }
    };
    int tested = 0;
    for (const Packer& packer : packers) {
        if (!packer.supported()) {
            WARN("this CPU lacks " << packer.isa << ": its packing is not tested");
            continue;
        }
        ++tested;
        const int v = packer.vector;
        for (int mc = 1; mc <= 2 * packer.mr + packer.mr - 1; ++mc)
            for (int kc : {1, v - 1, v, v + 1, 2 * v - 1, 2 * v, 2 * v + 1, 3 * v - 1}) {
                const std::size_t size = static_cast<std::size_t>((mc + packer.mr - 1) / packer.mr * packer.mr) * kc + 16;
                std::vector<float> want(size, -1.0f);
                Aligned got(size);
                step10::pack_a(mc, kc, src.data() + 3, ld, packer.mr, want.data());
                packer.pack_a(mc, kc, src.data() + 3, ld, packer.mr, got.data);
                INFO(packer.isa << " pack_a mc " << mc << " kc " << kc);
                CHECK(first_difference(got.data, want) == -1);
            }
        for (int nc = 1; nc <= 2 * packer.nr + 13; ++nc)
            for (int kc : {1, 2, 7}) {
                const std::size_t size = static_cast<std::size_t>((nc + packer.nr - 1) / packer.nr * packer.nr) * kc + 16;
                std::vector<float> want(size, -1.0f);
                Aligned got(size);
                step10::pack_b(kc, nc, src.data() + 1, ld, packer.nr, want.data());
                packer.pack_b(kc, nc, src.data() + 1, ld, packer.nr, got.data);
                INFO(packer.isa << " pack_b nc " << nc << " kc " << kc);
                CHECK(first_difference(got.data, want) == -1);
            }
    }
    CHECK(tested > 0);
}
#endif

TEST_CASE("step 10 splits the rows of C into ordered ranges on cache-line starts", "[microkernels][threads]") {
    alignas(64) static float c[64];   // only addresses are looked at
    for (int threads = 1; threads <= 5; ++threads)
        for (int m : {1, 13, 14, 15, 100, 257, 1024})
            for (long ldc : {16L, 100L, 101L, 1024L}) {
                INFO(threads << " threads, m " << m << ", ldc " << ldc);
                CHECK(step10::first_row(0, threads, m, 14, c, ldc) == 0);
                CHECK(step10::first_row(threads, threads, m, 14, c, ldc) == m);
                for (int t = 1; t < threads; ++t) {
                    const int lo = step10::first_row(t - 1, threads, m, 14, c, ldc);
                    const int row = step10::first_row(t, threads, m, 14, c, ldc);
                    CHECK(lo <= row);
                    CHECK(row <= m);
                    // With odd ldc some row near every boundary starts a line: the split uses it
                    // unless the ranges are too short to move the boundary at all.
                    if (ldc % 2 == 1 && (m + 13) / 14 / threads >= 2 && row < m)
                        CHECK(reinterpret_cast<std::uintptr_t>(c + row * ldc) % 64 == 0);
                    if (ldc % 16 == 0 && row < m) CHECK(row % 14 == 0);   // no need to move
                }
            }
}

TEST_CASE("step 10 splits a team into a grid that fits the tiles and keeps shares even", "[microkernels][threads]") {
    using step10::split_team;
    auto grid = [](int team, int rows, int cols) {
        const step10::Grid g = split_team(team, rows, cols);
        return std::pair<int, int>{g.rows, g.cols};
    };
    CHECK(grid(2, 72, 32) == std::pair<int, int>{2, 1});     // 2 cores, n = 1000: rows only
    CHECK(grid(7, 72, 32) == std::pair<int, int>{7, 1});
    CHECK(grid(64, 72, 32) == std::pair<int, int>{8, 8});    // 64 cores: 9 x 4 tiles each
    CHECK(grid(16, 72, 32) == std::pair<int, int>{8, 2});    // 9 x 16 tiles each, as 4 x 4 but less packing
    CHECK(grid(4, 1, 40) == std::pair<int, int>{1, 4});      // one row of tiles: columns
    CHECK(grid(7, 3, 5) == std::pair<int, int>{3, 2});       // no grid of 7 fits: 6 threads
    CHECK(grid(5, 1, 1) == std::pair<int, int>{1, 1});
    for (int team = 1; team <= 70; ++team)
        for (int rows : {1, 2, 5, 72})
            for (int cols : {1, 3, 32}) {
                const step10::Grid g = split_team(team, rows, cols);
                INFO(team << " threads on " << rows << " x " << cols << " tiles");
                CHECK(g.rows * g.cols <= team);
                CHECK(g.rows <= rows);
                CHECK(g.cols <= cols);
                CHECK(g.rows >= 1);
                CHECK(g.cols >= 1);
            }
}

#if defined(_OPENMP)
// Steps 09 and 10 on teams of 1-7 threads (more threads than row tiles, odd teams, column
// groups), with default and tiny blocks. Step 10 splits these small products when told to
// (--min-kflops 1); step 09, a lesson, has no such switch: its shapes are made deep enough
// (k) that every thread of 7 gets its share of the work.
TEST_CASE("steps 09 and 10 are right with 1 - 2 - 3 - 5 and 7 threads and tiny blocks", "[microkernels][threads]") {
    for (std::string_view slug : {"09_openmp", "10_tuned"}) {
        const gemm::Step* step = find_step(slug);
        REQUIRE(step != nullptr);
        const int before = omp_get_max_threads();
        const gemm::Param* least_work = step->find_param("min-kflops");
        Tuning tuning(*step);
        if (least_work != nullptr) tuning.set("min-kflops", 1);   // split even these small products
        const auto deep_enough = [&](Shape s) {
            if (least_work == nullptr) s.k = std::max<int>(s.k, static_cast<int>(7 * 1.5e6 / (2.0 * s.m * s.n)) + 1);
            return s;
        };
        for (int threads : {1, 2, 3, 5, 7}) {
            omp_set_num_threads(threads);
            for (const Tile& tile : kTiles) {
                const gemm::Variant* variant = step->find_variant(tile.variant);
                if (variant == nullptr || !variant->is_supported()) continue;
                const Shape shapes[] = {{1, 1, 1},
                                        {2 * tile.mr, tile.nr, 3},                 // fewer tiles than threads
                                        {3 * tile.mr + 5, 2 * tile.nr + 7, 19, 1, 2, 3},
                                        {7 * tile.mr + 3, 3 * tile.nr + 1, 40},    // ldc odd: boundaries move
                                        {tile.mr + 1, 6 * tile.nr + 5, 17},        // column groups
                                        {101, 67, 33, 3, 1, 5}};
                for (int tiny = 0; tiny < 2; ++tiny) {
                    set_blocks(tuning, tiny ? 2 * tile.mr : 0, tiny ? 8 : 0, tiny ? tile.nr : 0);
                    for (const Shape& shape : shapes) {
                        const Shape s = shape.m * shape.n > 1 ? deep_enough(shape) : shape;
                        INFO(slug << ", " << threads << " threads, kernel " << tile.variant
                                  << (tiny ? ", tiny blocks, " : ", ") << describe(s));
                        CHECK(check_kernel(tuning.kernel(*variant), s) == "");
                    }
                }
                set_blocks(tuning, 0, 0, 0);
            }
        }
        omp_set_num_threads(before);
    }
}

// Step 09 runs step 08's kernels on step 08's cuts of k: each element of C gets the same
// products, added in the same slices, so the same bits as step 08's on any team. A thinner
// last slice (k = 300 in kc = 64: 64 + 64 + 64 + 64 + 44, not five of 60) adds them in other
// groups and changes the last bits of most elements. The blocks of rows and the threads that
// run them do not change any element's sum: tiles start at multiples of MR in both steps.
TEST_CASE("step 09 cuts k as step 08 does: the same C, bit for bit, on any team", "[microkernels][threads]") {
    const gemm::Step* s08 = find_step("08_avx512_14x32");
    const gemm::Step* s09 = find_step("09_openmp");
    REQUIRE(s08 != nullptr);
    REQUIRE(s09 != nullptr);
    const int before = omp_get_max_threads();
    const int m = 150, n = 130;   // work for 7 threads at every k below (kMinFlopsPerThread)
    int compared = 0;
    for (const Tile& tile : kTiles) {
        const gemm::Variant* v08 = s08->find_variant(tile.variant);
        const gemm::Variant* v09 = s09->find_variant(tile.variant);
        if (v08 == nullptr || v09 == nullptr || !v08->is_supported()) continue;
        struct Cut {
            int mc, kc, k;
        };
        // kc 64: five slices of 60; kc 100: three of 100 (equal either way) then k = 350, four
        // of 88 (87.5 rounded up: three of 88 and one of 86); the defaults at k = 700: slices
        // of 175 for kc 192, of 350 for kc 384.
        for (const Cut& cut : {Cut{2 * tile.mr, 64, 300}, Cut{0, 100, 300}, Cut{3 * tile.mr, 100, 350}, Cut{0, 0, 700}}) {
            Tuning blocks(*s08);   // step 09's --mc --kc --nc are step 08's
            set_blocks(blocks, cut.mc, cut.kc, 0);
            const int k = cut.k;
            std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
                C(static_cast<std::size_t>(m) * n);
            std::uint32_t x = 12345;
            const auto next = [&x] {
                x = x * 1664525u + 1013904223u;
                return static_cast<float>(x >> 8) / 16777216.0f - 0.5f;
            };
            for (float& a : A) a = next();
            for (float& b : B) b = next();
            for (float& c : C) c = next();
            std::vector<float> C08 = C;
            v08->kernel(m, n, k, A.data(), k, B.data(), n, C08.data(), n);
            for (const int threads : {1, 2, 3}) {
                omp_set_num_threads(threads);
                std::vector<float> C09 = C;
                v09->kernel(m, n, k, A.data(), k, B.data(), n, C09.data(), n);
                int differ = 0;
                for (std::size_t i = 0; i < C.size(); ++i) differ += std::memcmp(&C08[i], &C09[i], sizeof(float)) != 0;
                INFO(tile.variant << ", mc " << cut.mc << ", kc " << cut.kc << ", k " << k << ", " << threads
                                  << " threads: " << differ << " of " << C.size() << " elements differ");
                CHECK(differ == 0);
                ++compared;
            }
        }
    }
    CHECK(compared > 0);
    omp_set_num_threads(before);
}

// Step 10's parallel packed path packs the shared B panel inside the kernel calls (the
// AVX-512 and the AVX2 kernel, each where the CPU runs it): the threads reading the same
// slivers start in different places and each copies the sliver ahead of it, unless another
// thread has claimed it. Here with 1-7 threads (more threads
// than row groups, column groups), A blocks of one to several tiles (claims of the last two
// blocks in up to 16 parts among them), k slices, B panels, a partial last sliver, and with
// --no-copy-b 1 (chunks packed before the calls) for comparison. A third of the shapes have
// padding (NaN) in B.
TEST_CASE("step 10 copies B slivers inside the kernel calls correctly, on any team", "[microkernels][threads]") {
    const gemm::Step* step = find_step("10_tuned");
    REQUIRE(step != nullptr);
    REQUIRE(step->find_param("min-kflops") != nullptr);
    REQUIRE(step->find_param("no-copy-b") != nullptr);
    const int before = omp_get_max_threads();
    Tuning tuning(*step);
    tuning.set("min-kflops", 1);
    struct Blocks {
        int mc, kc, nc;
    };
    for (const char* isa : {"avx512", "avx2"}) {
        const gemm::Variant* variant = step->find_variant(isa);
        if (variant == nullptr || !variant->is_supported()) continue;
        for (const int copy_off : {0, 1}) {
            tuning.set("no-copy-b", copy_off);
            for (const int threads : {1, 2, 3, 5, 7}) {
                omp_set_num_threads(threads);
                for (const Blocks& b : {Blocks{14, 0, 0}, Blocks{28, 5, 0}, Blocks{112, 37, 0}, Blocks{42, 0, 96}}) {
                    set_blocks(tuning, b.mc, b.kc, b.nc);
                    int t = 0;
                    for (const int m : {15, 45, 100})
                        for (const int n : {33, 65, 130, 200, 600})   // 600: 19 or 38 slivers, claims in 16 parts
                            for (const int k : {1, 5, 37}) {
                                const Shape s = t % 3 ? Shape{m, n, k} : Shape{m, n, k, 1 + t % 4, 1 + t % 5, 1 + t % 3};
                                ++t;
                                INFO(isa << ", " << threads << " threads, no-copy-b " << copy_off << ", mc " << b.mc
                                         << ", kc " << b.kc << ", nc " << b.nc << ", " << describe(s));
                                CHECK(check_kernel(tuning.kernel(*variant), s, static_cast<unsigned>(t)) == "");
                            }
                }
            }
        }
    }
    omp_set_num_threads(before);
}
#endif

// Step 08's B panels (steps 08 and 09 cut n with it): the fewest panels of at most nc
// columns, of equal width in whole slivers, so that no thin last panel pays a packing of
// every A block for a few columns.
TEST_CASE("step 08 cuts n into the fewest equal panels of whole slivers", "[microkernels]") {
    CHECK(step08::panel_width(2048, 1536, 16) == 1024);
    CHECK(step08::panel_width(1000, 896, 32) == 512);
    CHECK(step08::panel_width(100, 3616, 32) == 128);
    for (const int nr : {12, 16, 32})
        for (int nc = nr; nc <= 8 * nr; nc += nr)
            for (int n = 1; n <= 20 * nr; ++n) {
                const int w = step08::panel_width(n, nc, nr);
                const int fewest = (n + nc - 1) / nc;
                INFO("n " << n << " nc " << nc << " nr " << nr << ": width " << w);
                REQUIRE(w % nr == 0);
                REQUIRE(w <= nc);                                // the buffer holds nc columns
                REQUIRE((n + w - 1) / w == fewest);              // no more panels than needed
                // The last panel is as wide as the others but for the rounding to slivers.
                REQUIRE(n - (fewest - 1) * w >= (n + fewest - 1) / fewest - (fewest - 1) * nr);
            }
}
