// Step 09: step 08's loop nest on every core, with OpenMP. The micro-kernels, the packing and
// the block sizes are step 08's (built from its folder: CMakeLists.txt); this file adds only
// the choice of which loops the threads share.
//
//   for jc in 0..n step nc:
//     for pc in 0..k step kc:
//       all threads:  pack B(pc.., jc..) into the shared Bp, a sliver each at a time
//       -- barrier: the panel is whole --
//       all threads:  take the next block of rows of C (ic), until none is left:
//                       pack A(ic.., pc..) into the thread's own Ap          (its core's L2)
//                       for jr in 0..nc step NR, for ir in 0..mc step MR:  micro-kernel
//       -- barrier: nobody reads Bp any more, the next slice may repack it --
//
// Why the ic loop (README: "Which loop to share"): each block of rows writes its own rows of
// C, so no two threads ever write the same element; each thread's A block stays in its own
// core's L2, as in step 08; and the B panel, the one thing they share, is read-only while
// they compute and lives in the L3 that the cores share.
#include "loop_nest.hpp"
#include "packing.hpp"

#include <gemm/step.hpp>

#include <algorithm>
#include <atomic>
#include <new>

#include <omp.h>

namespace step09 {
namespace {

using step08::Tile;

// Each thread takes blocks of rows from a shared queue (schedule(dynamic)) rather than a
// fixed share, about this many each: if another program holds one of the cores, the other
// threads take over that core's blocks instead of waiting for them (README: "A busy core").
constexpr int kBlocksPerThread = 8;
// No thread gets less than this much work (about 10 us of a core): a product of n = 100
// takes about that on one core, about what waking a second thread costs.
constexpr double kMinFlopsPerThread = 1.5e6;

std::atomic<int> last_team{1};   // the threads the last call ran on: the CSV's threads column
int threads_used() { return last_team.load(); }

int round_up(int x, int to) { return (x + to - 1) / to * to; }

void parallel_gemm(const Tile& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int MR = tile.mr, NR = tile.nr;
    const step08::Blocks blk = step08::block_sizes(tile);
    // >>> team
    const int row_tiles = (m + MR - 1) / MR;
    const double worth = 2.0 * m * n * k / kMinFlopsPerThread;
    const int team = static_cast<int>(std::clamp<double>(std::min(omp_get_max_threads(), row_tiles), 1, std::max(worth, 1.0)));
    // <<< team
    // Blocks of rows: equal, none over step 08's mc, as step 08 cuts m, but more of them: at
    // least kBlocksPerThread per thread and a multiple of the team, all of the same number of
    // tiles give or take one. Step 08's cut alone gives a few blocks at n = 1000 (two on Zen 5,
    // four on Zen 3): two threads would finish together on an idle machine, but a core busy
    // with another program would hold up half the product (README: "A busy core").
    // >>> blocks
    const int blocks = round_up(std::max((row_tiles * MR + blk.mc - 1) / blk.mc, team * kBlocksPerThread), team);
    const int mc = (row_tiles + blocks - 1) / blocks * MR;   // the largest block's rows
    // <<< blocks
    // n and k cut as step 08 cuts them: the fewest panels and slices of at most nc and kc, of
    // equal size (step08::panel_width).
    const int panel = step08::panel_width(n, blk.nc, NR), slice = step08::panel_width(k, blk.kc, 1);
    thread_local step08::PackBuffer b_buffer;   // the shared panel: the calling thread's buffer
    float* Bp = b_buffer.get(static_cast<std::size_t>(panel) * slice);
    bool out_of_memory = false;

    // >>> region
#pragma omp parallel num_threads(team)
    {
        if (omp_get_thread_num() == 0) last_team = omp_get_num_threads();
        thread_local step08::PackBuffer a_buffer;   // each thread's own A block
        float* Ap = nullptr;
        // <<< region
        try {
            Ap = a_buffer.get(static_cast<std::size_t>(round_up(mc, MR)) * slice);
        } catch (const std::bad_alloc&) {   // an exception may not leave the region
#pragma omp atomic write
            out_of_memory = true;
        }
#pragma omp barrier
        bool give_up;
#pragma omp atomic read
        give_up = out_of_memory;
        // >>> loop-split
        for (int jc = 0; jc < n && !give_up; jc += panel) {
            const int nc = std::min(panel, n - jc);
            for (int pc = 0; pc < k; pc += slice) {
                const int kc = std::min(slice, k - pc);
                const float* b_panel = B + static_cast<long>(pc) * ldb + jc;
#pragma omp for schedule(dynamic)
                for (int jr = 0; jr < nc; jr += NR)   // a sliver at a time: each packs some
                    step08::pack_b(kc, std::min(NR, nc - jr), b_panel + jr, ldb, NR, Bp + static_cast<long>(jr) * kc);
                // (the end of an omp for waits for every thread: the panel is whole)
#pragma omp for schedule(dynamic)
                for (int b = 0; b < blocks; ++b) {
                    const int ic = row_tiles * b / blocks * MR;
                    const int mb = std::min(row_tiles * (b + 1) / blocks * MR, m) - ic;
                    if (mb <= 0) continue;
                    step08::pack_a(mb, kc, A + static_cast<long>(ic) * lda + pc, lda, MR, Ap);
                    for (int jr = 0; jr < nc; jr += NR) {
                        const float* b_sliver = Bp + static_cast<long>(jr) * kc;
                        for (int ir = 0; ir < mb; ir += MR)
                            tile.kernel(kc, Ap + static_cast<long>(ir) * kc, b_sliver,
                                        C + static_cast<long>(ic + ir) * ldc + jc + jr, ldc, std::min(MR, mb - ir),
                                        std::min(NR, nc - jr));
                    }
                }
                // (and again: nobody reads Bp when the next slice packs it)
            }
        }
        // <<< loop-split
    }
    if (out_of_memory) throw std::bad_alloc();
}

#if defined(__x86_64__) || defined(_M_X64)
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    parallel_gemm({step08::microkernel_avx512_14x32, step08::kMrAvx512, step08::kNrAvx512}, m, n, k, A, lda, B, ldb,
                  C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    parallel_gemm({step08::microkernel_avx2_6x16, step08::kMrAvx2, step08::kNrAvx2}, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {
    {"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F", step08::kMrAvx512, step08::kNrAvx512},
    {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA", step08::kMrAvx2, step08::kNrAvx2}};
#elif defined(__aarch64__)
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    parallel_gemm({step08::microkernel_neon_8x12, step08::kMrNeon, step08::kNrNeon}, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON", step08::kMrNeon, step08::kNrNeon}};
#else
#error "step 09 runs step 08's micro-kernels: x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

}  // namespace
}  // namespace step09

GEMM_STEP({.variants = step09::variants, .params = step08::block_params, .parallel = true,
           .threads_used = step09::threads_used, .use_variant = step08::use_variant})
