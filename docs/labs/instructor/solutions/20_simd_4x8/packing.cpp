// Lab 2: step 07's packed blocks around a 4 x 8 micro-kernel (two 128-bit registers per row
// of C). The layout is step 07's with two sliver widths instead of one:
//
//   packed B: one kc x 8 sliver after the other   [ B(0,0..7) B(1,0..7) .. | B(0,8..15) .. | ..
//             each row of a sliver is the 32 bytes the kernel loads at step p (two loads)
//   packed A: one 4 x kc sliver after the other   [ A(0..3,0) A(0..3,1) .. | A(4..7,0) .. | ..
//             each group of four is what the kernel broadcasts at step p
//
// Per step of p the kernel now does 8 vector multiply-adds for 2 loads of B and 4
// broadcasts of A (step 07: 4 for 1 and 4), and has 8 independent accumulators instead of 4.
// Partial slivers are padded with zeros, as in step 07.
#include "packing.hpp"

#include <gemm/step.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

void step20::pack_a(int mc, int kc, const float* A, int lda, float* packed) {
    for (int i0 = 0; i0 < mc; i0 += MR) {
        const int rows = std::min(MR, mc - i0);
        for (int p = 0; p < kc; ++p) {
            for (int i = 0; i < rows; ++i) *packed++ = A(i0 + i, p);
            for (int i = rows; i < MR; ++i) *packed++ = 0.0f;
        }
    }
}

void step20::pack_b(int kc, int nc, const float* B, int ldb, float* packed) {
    for (int j0 = 0; j0 < nc; j0 += NR) {
        const int cols = std::min(NR, nc - j0);
        for (int p = 0; p < kc; ++p) {
            for (int j = 0; j < cols; ++j) *packed++ = B(p, j0 + j);
            for (int j = cols; j < NR; ++j) *packed++ = 0.0f;
        }
    }
}

namespace {

// Block sizes. Inside an mc x kc block, one packed kc x 8 sliver of B meets every 4-row
// sliver of A in turn (mc/4 times), so it should stay in L1: it is kc*32 bytes now, and it
// gets half of L1 (the A slivers stream through the other half): kc = (L1d / 2) / 32.
// The packed mc x kc block of A is read once for every sliver of B, so it should stay in
// L2: half of L2 for it, mc = (L2 / 2) / (kc * 4 bytes). 32 KiB L1d, 1 MiB L2: 512 x 256.
// A deeper kc also means C is read and written fewer times (k/kc updates).
constexpr long sliver_bytes = step20::NR * sizeof(float);   // one row of a B sliver

int auto_kc() {
    const long l1d = gemm::cpu::caches().l1d;
    return static_cast<int>(std::clamp(l1d / 2 / sliver_bytes, 16L, 4096L));
}

int auto_mc() {
    const long l2 = gemm::cpu::caches().l2;
    const long rows = l2 / 2 / (static_cast<long>(auto_kc()) * sizeof(float));
    return static_cast<int>(std::clamp(rows / step20::MR * step20::MR, 4L, 4096L));   // whole 4-row slivers
}

int kc_set = 0, mc_set = 0;   // from --kc, --mc; 0 = automatic

int get_kc() { return step20::kc(); }
int get_mc() { return step20::mc(); }
void set_kc(int v) { kc_set = v; }
void set_mc(int v) { mc_set = v; }

// A growing, 64-byte aligned scratch buffer, one per thread (so concurrent calls are safe).
class PackBuffer {
public:
    ~PackBuffer() { std::free(data_); }
    float* get(std::size_t floats) {
        if (floats > capacity_) {
            std::free(data_);
            const std::size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;   // aligned_alloc wants a multiple
            data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
            capacity_ = data_ != nullptr ? floats : 0;
            if (data_ == nullptr) throw std::bad_alloc();
        }
        return data_;
    }

private:
    float* data_ = nullptr;
    std::size_t capacity_ = 0;
};

thread_local PackBuffer a_buffer, b_buffer;

std::size_t round_up(int x, int to) { return static_cast<std::size_t>((x + to - 1) / to * to); }

using MicroKernel = void (*)(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);

// Step 06's loops, with a pack before each block is used and the micro-kernel on packed slivers.
void packed_blocks(MicroKernel micro_kernel, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int kc = std::min(step20::kc(), k), mc = std::min(step20::mc(), m);
    float* packed_b = b_buffer.get(static_cast<std::size_t>(kc) * round_up(n, step20::NR));
    float* packed_a = a_buffer.get(static_cast<std::size_t>(kc) * round_up(mc, step20::MR));
    for (int p0 = 0; p0 < k; p0 += kc) {
        const int kb = std::min(kc, k - p0);           // the last slice may be thinner
        step20::pack_b(kb, n, &B(p0, 0), ldb, packed_b);   // kb x n, all of its slivers
        for (int i0 = 0; i0 < m; i0 += mc) {
            const int mb = std::min(mc, m - i0);
            step20::pack_a(mb, kb, &A(i0, p0), lda, packed_a);
            for (int j = 0; j < n; j += step20::NR) {
                const float* b_sliver = packed_b + static_cast<std::size_t>(j) * kb;
                for (int i = 0; i < mb; i += step20::MR)
                    micro_kernel(kb, packed_a + static_cast<std::size_t>(i) * kb, b_sliver, &C(i0 + i, j), ldc,
                                 std::min(step20::MR, mb - i), std::min(step20::NR, n - j));
            }
        }
    }
}

#if defined(__x86_64__)
void packing_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    packed_blocks(step20::micro_kernel_sse, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"sse", packing_sse, gemm::cpu::has_sse2, "SSE2"}};
#elif defined(__aarch64__)
void packing_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    packed_blocks(step20::micro_kernel_neon, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", packing_neon, gemm::cpu::has_neon, "NEON"}};
#else
#error "step 07 is written for x86-64 (SSE) and AArch64 (NEON)"
#endif

constexpr gemm::Param params[] = {
    {"kc", "depth of a block (default: half of L1d / 32-byte sliver row)", get_kc, set_kc},
    {"mc", "rows of A in a block (default: half of L2 / (kc * 4 bytes))", get_mc, set_mc}};

}  // namespace

int step20::kc() {
    static const int automatic = auto_kc();
    return kc_set > 0 ? kc_set : automatic;
}

int step20::mc() {
    static const int automatic = auto_mc();
    return mc_set > 0 ? mc_set : automatic;
}

GEMM_STEP({.variants = variants, .params = params})
