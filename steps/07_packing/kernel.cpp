// Step 07: step 06's blocks, packed. Before the kernel touches a block, its data is copied
// into contiguous, aligned buffers in exactly the order the kernel reads it:
//
//   B (kc x n slice)              packed B: one kc x 4 sliver after the other
//   +----+----+----+-- ..          [ B(0,0..3) B(1,0..3) .. B(kc-1,0..3) | B(0,4..7) B(1,4..7) .. | ..
//   | s0 | s1 | s2 |               each row of a sliver is the 16 bytes the kernel loads at step p
//   +----+----+----+-- ..
//
//   A (mc x kc block)             packed A: one 4 x kc sliver after the other, column by column
//   +-----------------+            [ A(0..3,0) A(0..3,1) .. A(0..3,kc-1) | A(4..7,0) A(4..7,1) .. | ..
//   |   s0 (4 rows)   |            each group of four is what the kernel broadcasts at step p
//   |   s1            |
//   +-----------------+
//
// Why it pays: the kernel now walks two buffers straight through, 16 bytes per step each,
// instead of jumping ldb floats from row to row of B and reading four rows of A at once. Every
// byte of every cache line it loads is used, the hardware prefetcher sees two plain streams,
// a sliver of B covers kc*16 bytes instead of kc cache lines (so a deeper kc fits in L1), and
// no row of A or B lands on the same cache set or a new page each step, which for sizes like
// 1024 (a 4 KiB row) was what made step 06's curve dip. The copies cost O(mc*kc + kc*n) per
// block against O(mc*kc*n) multiply-adds: each packed value is used n/4 or mc/4 times.
//
// Partial slivers (m or n not a multiple of 4) are padded with zeros, so the micro-kernel
// always computes a full 4x4 tile and only its write-back looks at m_valid x n_valid.
#include "kernel.hpp"
#include "packing.hpp"

#include <gemm/step.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

namespace {

// Block sizes. Inside an mc x kc block, one packed kc x 4 sliver of B meets every 4-row
// sliver of A in turn (mc/4 times), so it should stay in L1: it is kc*16 bytes now, and it
// gets half of L1 (the A slivers stream through the other half): kc = (L1d / 2) / 16.
// The packed mc x kc block of A is read once for every sliver of B, so it should stay in
// L2: half of L2 for it, mc = (L2 / 2) / (kc * 4 bytes). 32 KiB L1d, 1 MiB L2: 1024 x 128.
// A deeper kc also means C is read and written fewer times (k/kc updates).
constexpr long sliver_bytes = step07::sliver * sizeof(float);

int auto_kc() {
    const long l1d = gemm::cpu::caches().l1d;
    return static_cast<int>(std::clamp(l1d / 2 / sliver_bytes, 16L, 4096L));
}

int auto_mc() {
    const long l2 = gemm::cpu::caches().l2;
    const long rows = l2 / 2 / (static_cast<long>(auto_kc()) * sizeof(float));
    return static_cast<int>(std::clamp(rows / 4 * 4, 4L, 4096L));   // whole 4-row slivers
}

int kc_set = 0, mc_set = 0;   // from --kc, --mc; 0 = automatic

int get_kc() { return step07::kc(); }
int get_mc() { return step07::mc(); }
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

std::size_t round_up_to_sliver(int x) { return static_cast<std::size_t>((x + step07::sliver - 1) / step07::sliver * step07::sliver); }

using MicroKernel = void (*)(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid);

// Step 06's loops, with a pack before each block is used and the micro-kernel on packed slivers.
void packed_blocks(MicroKernel micro_kernel, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int kc = std::min(step07::kc(), k), mc = std::min(step07::mc(), m);
    float* packed_b = b_buffer.get(static_cast<std::size_t>(kc) * round_up_to_sliver(n));
    float* packed_a = a_buffer.get(static_cast<std::size_t>(kc) * round_up_to_sliver(mc));
    // >>> sliver-loops
    for (int p0 = 0; p0 < k; p0 += kc) {
        const int kb = std::min(kc, k - p0);           // the last slice may be thinner
        step07::pack_b(kb, n, &B(p0, 0), ldb, packed_b);   // kb x n, all of its slivers
        for (int i0 = 0; i0 < m; i0 += mc) {
            const int mb = std::min(mc, m - i0);
            step07::pack_a(mb, kb, &A(i0, p0), lda, packed_a);
            for (int j = 0; j < n; j += step07::sliver) {
                const float* b_sliver = packed_b + static_cast<std::size_t>(j) * kb;
                for (int i = 0; i < mb; i += step07::sliver)
                    micro_kernel(kb, packed_a + static_cast<std::size_t>(i) * kb, b_sliver, &C(i0 + i, j), ldc,
                                 std::min(step07::sliver, mb - i), std::min(step07::sliver, n - j));
            }
        }
    }
    // <<< sliver-loops
}

#if defined(__x86_64__)
void gemm_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    packed_blocks(step07::micro_kernel_sse, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"sse", gemm_sse, gemm::cpu::has_sse2, "SSE2", 4, 4}};
#elif defined(__aarch64__)
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    packed_blocks(step07::micro_kernel_neon, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON", 4, 4}};
#else
#error "step 07 is written for x86-64 (SSE) and AArch64 (NEON)"
#endif

constexpr gemm::Param params[] = {
    {"kc", "depth of a block (default: half of L1d / 16-byte sliver row)", get_kc, set_kc},
    {"mc", "rows of A in a block (default: half of L2 / (kc * 4 bytes))", get_mc, set_mc}};

}  // namespace

int step07::kc() {
    static const int automatic = auto_kc();
    return kc_set > 0 ? kc_set : automatic;
}

int step07::mc() {
    static const int automatic = auto_mc();
    return mc_set > 0 ? mc_set : automatic;
}

GEMM_STEP({.variants = variants, .params = params})
