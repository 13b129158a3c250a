// Step 07's packing routines, element by element: the packed layout of whole and partial
// slivers (zeros where the matrix ends), nothing read outside the block, and the step's
// kernel on shapes that cross several blocks when the blocks are made small.
#include "kernel_check.hpp"
#include "steps/07_packing/packing.hpp"

#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr float nan_ = std::numeric_limits<float>::quiet_NaN();
constexpr float sentinel = -12345.0f;   // marks packed-buffer cells past the end

// A rows x cols matrix with leading dimension ld; element (r, c) = 1000 r + c + 1 (never 0),
// NaN in the padding columns so that reading them shows up in the packed data.
std::vector<float> numbered(int rows, int cols, int ld) {
    std::vector<float> m(static_cast<std::size_t>(rows) * ld, nan_);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m[static_cast<std::size_t>(r) * ld + c] = static_cast<float>(1000 * r + c + 1);
    return m;
}

int slivers(int x) { return (x + step07::sliver - 1) / step07::sliver; }

}  // namespace

TEST_CASE("pack_a lays out 4-row slivers column by column - zeros below the last row", "[packing]") {
    // mc = 6: one whole sliver and one with 2 rows; a window starting inside a bigger matrix.
    const int mc = 6, kc = 3, lda = 7;
    // Columns 0..4 numbered, NaN in columns 5 and 6 and in a 7th row: the block must not reach them.
    std::vector<float> a = numbered(mc + 1, 5, lda);
    for (int c = 0; c < lda; ++c) a[static_cast<std::size_t>(mc) * lda + c] = nan_;
    const int row0 = 0, col0 = 2;                                // the block is A(0.., 2..)
    std::vector<float> packed(static_cast<std::size_t>(slivers(mc)) * 4 * kc + 4, sentinel);
    step07::pack_a(mc, kc, &a[static_cast<std::size_t>(row0) * lda + col0], lda, packed.data());

    const std::vector<float> expected = {
        // sliver 0: rows 0..3, for p = 0, 1, 2
        3, 1003, 2003, 3003,   4, 1004, 2004, 3004,   5, 1005, 2005, 3005,
        // sliver 1: rows 4, 5 and two rows of zeros
        4003, 5003, 0, 0,      4004, 5004, 0, 0,      4005, 5005, 0, 0,
        // past the end: untouched
        sentinel, sentinel, sentinel, sentinel};
    CHECK(packed == expected);
}

TEST_CASE("pack_b lays out 4-column slivers row by row - zeros right of the last column", "[packing]") {
    // nc = 7 inside a matrix with ldb = 9 (NaN in columns 7 and 8): one whole sliver and one with 3 columns.
    const int kc = 2, nc = 7, ldb = 9;
    const std::vector<float> b = numbered(kc, nc, ldb);
    std::vector<float> packed(static_cast<std::size_t>(slivers(nc)) * 4 * kc + 4, sentinel);
    step07::pack_b(kc, nc, b.data(), ldb, packed.data());

    const std::vector<float> expected = {
        // sliver 0: columns 0..3, for p = 0, 1
        1, 2, 3, 4,            1001, 1002, 1003, 1004,
        // sliver 1: columns 4..6 and a column of zeros
        5, 6, 7, 0,            1005, 1006, 1007, 0,
        sentinel, sentinel, sentinel, sentinel};
    CHECK(packed == expected);
}

TEST_CASE("packing handles blocks narrower than one sliver and empty blocks", "[packing]") {
    const std::vector<float> m = numbered(3, 2, 5);   // 3 x 2, ld 5
    std::vector<float> packed(4 * 3 + 1, sentinel);

    step07::pack_a(1, 2, m.data(), 5, packed.data());   // one row, two columns: a sliver of 1 row
    CHECK(std::vector<float>(packed.begin(), packed.begin() + 9) ==
          std::vector<float>{1, 0, 0, 0, 2, 0, 0, 0, sentinel});

    std::fill(packed.begin(), packed.end(), sentinel);
    step07::pack_b(3, 1, m.data(), 5, packed.data());   // three rows, one column: a sliver of 1 column
    CHECK(packed == std::vector<float>{1, 0, 0, 0, 1001, 0, 0, 0, 2001, 0, 0, 0, sentinel});

    std::fill(packed.begin(), packed.end(), sentinel);
    step07::pack_a(0, 3, m.data(), 5, packed.data());   // nothing to pack: nothing written
    step07::pack_b(0, 2, m.data(), 5, packed.data());
    step07::pack_a(3, 0, m.data(), 5, packed.data());
    for (const float x : packed) CHECK(x == sentinel);
}

TEST_CASE("step 07 is right across several small blocks - partial ones included", "[packing][steps]") {
    const gemm::Step* step = gemm::test::find_step("07_packing");
    REQUIRE(step != nullptr);
    REQUIRE(step->supported());
    const gemm::Param* kc = step->find_param("kc");
    const gemm::Param* mc = step->find_param("mc");
    REQUIRE(kc != nullptr);
    REQUIRE(mc != nullptr);

    // Blocks that do not divide the shapes: the last kc slice is thinner, the last mc block
    // is shorter and ends in a partial sliver, and n leaves a partial sliver of B.
    const gemm::test::Shape shapes[] = {{13, 11, 17}, {21, 9, 10, 1, 2, 3}, {8, 8, 8}, {5, 3, 29, 0, 5, 0}, {33, 30, 31}};
    for (const auto& [k_block, m_block] : {std::pair{4, 8}, {5, 6}, {7, 4}, {3, 9}}) {
        kc->set(k_block);
        mc->set(m_block);
        CHECK(kc->get() == k_block);
        CHECK(mc->get() == m_block);
        for (const auto& shape : shapes)
            for (const gemm::Variant& variant : step->def->variants) {
                if (!variant.is_supported()) continue;
                INFO("kernel " << variant.name << ", kc " << k_block << ", mc " << m_block << ", "
                               << gemm::test::describe(shape));
                CHECK(gemm::test::check_kernel(variant.kernel, shape, 3) == "");
            }
    }
    kc->set(0);
    mc->set(0);
    CHECK(kc->get() > 0);
    CHECK(mc->get() > 0);
}
