// Runs a kernel the way a hostile caller would and reports the first thing it got wrong.
#pragma once

#include <gemm/registry.hpp>

#include <functional>
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
// `kernel`: a gemm::Kernel, or a step run under a Setting (Tuning::kernel).
using Call = std::function<void(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C,
                                int ldc)>;
std::string check_kernel(const Call& kernel, const Shape& s, unsigned seed = 1);

// A step's params as the command line would give them, for the life of the object: a lesson's
// through their set() (0 again at the end), those of a step with StepDef::run in the Setting
// its calls take (kernel). get() is the value in effect, as --help shows it.
struct Tuning {
    const Step& step;
    Setting setting;
    explicit Tuning(const Step& s) : step(s) {}
    Tuning(const Tuning&) = delete;
    Tuning& operator=(const Tuning&) = delete;
    ~Tuning();
    void set(std::string_view name, int value);
    void set_all(int value);   // every param
    int get(std::string_view name) const;
    // `variant` run with the values set so far.
    Call kernel(const Variant& variant) const;
};

// The shapes every registered step is tested on: 1x1x1, zero dimensions, primes, m != n != k,
// sizes just below, at and above multiples of 4, 14 and 32, padded leading dimensions, and a
// few larger shapes that cross cache-block boundaries.
std::vector<Shape> awkward_shapes();

std::string describe(const Shape& s);

// The registered step with this slug (e.g. "07_packing"), or nullptr when it was not built.
const Step* find_step(std::string_view slug);

}  // namespace gemm::test
