// Runs a kernel the way a hostile caller would and reports the first thing it got wrong.
#pragma once

#include <gemm/registry.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gemm::test {

struct Shape {
    int m, n, k;
    int pad_a = 0, pad_b = 0, pad_c = 0;   // lda = k + pad_a, ldb = n + pad_b, ldc = n + pad_c
};

// Random A, B and C; NaN in every padding element of A and B (a kernel that reads it puts a
// NaN into C); signalling-NaN guard rows around C and in its padding, which must stay
// bit-for-bit as they were (even a store of x + 0 changes them); A and B must be unchanged. The result is checked elementwise against the
// harness's double-precision reference. Returns "" when all is right, else what went wrong.
std::string check_kernel(Kernel kernel, const Shape& s, unsigned seed = 1);

// The shapes every registered step is tested on: 1x1x1, zero dimensions, primes, m != n != k,
// sizes just below, at and above multiples of 4, 14 and 32, padded leading dimensions, and a
// few larger shapes that cross cache-block boundaries.
std::vector<Shape> awkward_shapes();

std::string describe(const Shape& s);

// The registered step with this slug (e.g. "07_packing"), or nullptr when it was not built.
const Step* find_step(std::string_view slug);

}  // namespace gemm::test
