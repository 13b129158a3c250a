#include "kernel_check.hpp"

#include <gemm/harness.hpp>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define GEMM_POISON(p, bytes) ASAN_POISON_MEMORY_REGION(p, bytes)
#define GEMM_UNPOISON(p, bytes) ASAN_UNPOISON_MEMORY_REGION(p, bytes)
#else
#define GEMM_POISON(p, bytes) ((void)(p), (void)(bytes))
#define GEMM_UNPOISON(p, bytes) ((void)(p), (void)(bytes))
#endif

namespace gemm::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// Around C: a signalling NaN. x + 0 turns it into a quiet NaN, so even a store that writes a
// value back unchanged (a mask one lane too wide, adding a zero from the packed padding)
// changes its bits and is caught, though no value changed.
const float kSignalingNaN = std::numeric_limits<float>::signaling_NaN();
constexpr int kGuardRows = 2;

// A rows x cols window with leading dimension ld, random inside, `fill` (NaN) in the padding.
// The vector holds exactly rows * ld floats, so a read past the last row's padding is
// outside the allocation (AddressSanitizer catches it in the sanitizer build).
std::vector<float> padded(int rows, int cols, int ld, unsigned long long seed, float fill = kNaN) {
    std::vector<float> v(static_cast<std::size_t>(rows) * ld, fill);
    std::vector<float> row(static_cast<std::size_t>(cols));
    for (int r = 0; r < rows; ++r) {
        fill_random(row.data(), row.size(), seed * 7919 + static_cast<unsigned long long>(r));
        std::copy(row.begin(), row.end(), v.begin() + static_cast<long>(r) * ld);
    }
    return v;
}

// In the sanitizer build, poison the padding at the end of every row so that even a read
// whose value is thrown away (an over-wide vector load) is reported.
void poison_padding(std::vector<float>& v, int rows, int cols, int ld, bool poison) {
    if (ld == cols) return;
    for (int r = 0; r < rows; ++r) {
        float* pad = v.data() + static_cast<std::size_t>(r) * ld + cols;
        const std::size_t bytes = static_cast<std::size_t>(ld - cols) * sizeof(float);
        if (poison) GEMM_POISON(pad, bytes);
        else GEMM_UNPOISON(pad, bytes);
    }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

const Step* find_step(std::string_view slug) {
    for (const Step& s : steps())
        if (s.slug == slug) return &s;
    return nullptr;
}

std::string describe(const Shape& s) {
    return "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
           " lda=k+" + std::to_string(s.pad_a) + " ldb=n+" + std::to_string(s.pad_b) + " ldc=n+" +
           std::to_string(s.pad_c);
}

std::string check_kernel(const Call& kernel, const Shape& s, unsigned seed) {
    const int lda = s.k + s.pad_a, ldb = s.n + s.pad_b, ldc = s.n + s.pad_c;
    std::vector<float> A = padded(s.m, s.k, lda, seed * 3ULL + 1);
    std::vector<float> B = padded(s.k, s.n, ldb, seed * 3ULL + 2);
    // C with kGuardRows rows above and below its window, signalling NaNs outside it.
    const int c_rows = s.m + 2 * kGuardRows;
    std::vector<float> C_all(static_cast<std::size_t>(c_rows) * ldc, kSignalingNaN);
    {
        std::vector<float> window = padded(s.m, s.n, ldc, seed * 3ULL + 3, kSignalingNaN);
        std::copy(window.begin(), window.end(), C_all.begin() + static_cast<long>(kGuardRows) * ldc);
    }
    const std::vector<float> A_before = A, B_before = B, C_before = C_all;
    float* C = C_all.data() + static_cast<std::size_t>(kGuardRows) * ldc;

    poison_padding(A, s.m, s.k, lda, true);
    poison_padding(B, s.k, s.n, ldb, true);
    kernel(s.m, s.n, s.k, A.data(), lda, B.data(), ldb, C, ldc);
    poison_padding(A, s.m, s.k, lda, false);
    poison_padding(B, s.k, s.n, ldb, false);

    if (!same_bits(A, A_before)) return "A was modified";
    if (!same_bits(B, B_before)) return "B was modified";
    for (int r = 0; r < c_rows; ++r)
        for (int j = 0; j < ldc; ++j) {
            const bool in_window = r >= kGuardRows && r < kGuardRows + s.m && j < s.n;
            const std::size_t at = static_cast<std::size_t>(r) * ldc + j;
            if (!in_window && std::memcmp(&C_all[at], &C_before[at], sizeof(float)) != 0)
                return "wrote outside C's window at row " + std::to_string(r - kGuardRows) + ", column " +
                       std::to_string(j);
        }
    const float* C0 = C_before.data() + static_cast<std::size_t>(kGuardRows) * ldc;
    const CheckResult check = check_result(s.m, s.n, s.k, A.data(), lda, B.data(), ldb, C0, C, ldc, true);
    return check.ok ? "" : check.first_problem;
}

std::vector<Shape> awkward_shapes() {
    std::vector<Shape> shapes = {
        {1, 1, 1},    {0, 0, 0},    {0, 5, 7},     {5, 0, 7},    {5, 7, 0},      {1, 1, 0},
        {2, 3, 1},    {7, 11, 13},  {13, 7, 11},   {11, 13, 7},  {31, 37, 41},   {61, 67, 71},
        {3, 50, 17},  {50, 3, 17},  {17, 3, 50},   {1, 97, 5},   {97, 1, 5},     {1, 1, 300},
        {67, 129, 520, 3, 5, 7},    {150, 211, 97, 1, 2, 3},     {257, 93, 300},
    };
    // Just below, at and above multiples of 4, 14 and 32, in m and n; k cycles through
    // short and odd depths. Every other shape has padded leading dimensions.
    const int ms[] = {3, 4, 5, 13, 14, 15, 27, 28, 29, 31, 32, 33};
    const int ns[] = {3, 4, 5, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65};
    const int ks[] = {1, 2, 5, 16, 17, 33, 64};
    int t = 0;
    for (int m : ms)
        for (int n : ns) {
            const int k = ks[t % 7];
            shapes.push_back(t % 2 ? Shape{m, n, k, 1 + t % 5, 2 + t % 3, 3 + t % 4} : Shape{m, n, k});
            ++t;
        }
    return shapes;
}

Tuning::~Tuning() {
    for (const Param& p : step.def->params)
        if (p.set != nullptr) p.set(0);
}

void Tuning::set(std::string_view name, int value) {
    const Param* p = step.find_param(name);
    if (p == nullptr) throw std::invalid_argument("step " + std::string(step.slug) + " has no --" + std::string(name));
    if (step.def->run == nullptr) p->set(value);
    setting.given[step.param_index(*p)] = value;
}

void Tuning::set_all(int value) {
    for (const Param& p : step.def->params) set(p.name, value);
}

int Tuning::get(std::string_view name) const {
    const Param* p = step.find_param(name);
    if (p == nullptr) throw std::invalid_argument("step " + std::string(step.slug) + " has no --" + std::string(name));
    return shown_value(step, setting, *p).value_or(-1);
}

Call Tuning::kernel(const Variant& variant) const {
    Setting s = setting;
    s.variant = variant.name;
    const Step* st = &step;
    return [st, s](int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
        run_setting(*st, s, m, n, k, A, lda, B, ldb, C, ldc);
    };
}

}  // namespace gemm::test
