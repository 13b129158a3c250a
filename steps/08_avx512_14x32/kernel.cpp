// Step 08: the GotoBLAS / BLIS loop nest around a register-tile micro-kernel.
//
//   for jc in 0..n step NC:                 B panel  kc x nc  -> packed, stays in L3
//     for pc in 0..k step KC:
//       pack B(pc.., jc..) into Bp          (NR-column slivers)
//       for ic in 0..m step MC:             A block  mc x kc  -> packed, stays in L2
//         pack A(ic.., pc..) into Ap        (MR-row slivers)
//         for jr in 0..nc step NR:          B sliver kc x NR  -> reused from L1 / L2
//           for ir in 0..mc step MR:        A sliver kc x MR  -> streamed from L2
//             micro-kernel: C(ic+ir.., jc+jr..) += Ap sliver * Bp sliver
//
// Which micro-kernel (and so MR x NR) depends on the CPU: AVX-512 14x32, AVX2 6x16 or
// NEON 8x12; the loops and the packing are the same for all three. Small matrices, whose
// A fits in L2, skip the packing: the x86 kernels then read A and B in place.
#include "kernel.hpp"
#include "packing.hpp"

#include <gemm/step.hpp>

#include <cstddef>
#include <new>

namespace step08 {
namespace {

using PackA = void (*)(int mc, int kc, const float* A, int lda, int mr, float* packed);
using PackB = void (*)(int kc, int nc, const float* B, int ldb, int nr, float* packed);

struct TileShape {
    MicroKernel kernel;
    int mr, nr;
    DirectKernel direct = nullptr;   // unpacked variant, if the ISA has one
    PackA pack_a = step08::pack_a;   // vectorised packing, if the ISA has one
    PackB pack_b = step08::pack_b;
};

// --mc, --kc, --nc; 0 = derived from the caches (block_sizes below).
int user_mc = 0, user_kc = 0, user_nc = 0;

struct Blocks {
    int mc, kc, nc;
};

int round_up(int x, int to) { return (x + to - 1) / to * to; }
int round_down_at_least(long x, int to) { return x < to ? to : static_cast<int>(x / to * to); }
int even_split(int total, int block) {
    const int parts = (total + block - 1) / block;
    return (total + parts - 1) / parts;
}

// Block sizes for an MR x NR micro-kernel on this CPU's caches (README: "Block sizes").
Blocks block_sizes(int mr, int nr) {
    const gemm::cpu::Caches& caches = gemm::cpu::caches();
    const long l1 = caches.l1d > 0 ? caches.l1d : 32 * 1024;
    const long l2 = caches.l2 > 0 ? caches.l2 : 256 * 1024;
    const long l3 = caches.l3 > 0 ? caches.l3 : 4 * l2;
    Blocks b{};
    // KC: long enough that each micro-kernel call's fixed cost, reading and writing its
    // MR x NR tile of C (28 cache lines that mostly come from L3 for a large C), is spread
    // over many steps of p. The two slivers a call reads, (MR + NR) x kc floats, then take
    // about four times L1: they stream in from L2, which the prefetchers keep ahead of the
    // 28-cycle steps (README: "Block sizes").
    b.kc = user_kc > 0 ? user_kc : round_down_at_least(4 * l1 / (4L * (mr + nr)), 16);
    // MC: the packed A block (mc x kc), reused for every B sliver of the panel, takes a
    // quarter of L2, leaving room for the B sliver streaming through and the C tiles.
    b.mc = user_mc > 0 ? round_up(user_mc, mr) : round_down_at_least(l2 / 4 / (4L * b.kc), mr);
    // NC: the packed B panel (kc x nc), reused by every A block, takes half of L3.
    b.nc = user_nc > 0 ? round_up(user_nc, nr) : round_down_at_least(l3 / 2 / (4L * b.kc), nr);
    return b;
}

// Small matrices skip packing (README: "Small matrices"): every B sliver then reads all of
// A in place, which pays while A fits in half of L2. Setting any block size asks for the
// blocked path, whatever the size.
bool skip_packing(int m, int k) {
    if (user_mc > 0 || user_kc > 0 || user_nc > 0) return false;
    const long l2 = gemm::cpu::caches().l2 > 0 ? gemm::cpu::caches().l2 : 256 * 1024;
    return 4L * m * k <= l2 / 2;
}

// A 64-byte aligned scratch buffer per thread that grows as needed and is kept between calls.
struct PackBuffer {
    float* data = nullptr;
    std::size_t size = 0;
    float* get(std::size_t floats) {
        if (floats > size) {
            ::operator delete[](data, std::align_val_t{64});
            data = static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64}));
            size = floats;
        }
        return data;
    }
    ~PackBuffer() { ::operator delete[](data, std::align_val_t{64}); }
};

void blocked_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda,
                  const float* B, int ldb, float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int MR = tile.mr, NR = tile.nr;
    if (tile.direct != nullptr && skip_packing(m, k)) {
        for (int jr = 0; jr < n; jr += NR)
            for (int ir = 0; ir < m; ir += MR)
                tile.direct(k, A + static_cast<long>(ir) * lda, lda, B + jr, ldb,
                            C + static_cast<long>(ir) * ldc + jr, ldc,
                            m - ir < MR ? m - ir : MR, n - jr < NR ? n - jr : NR);
        return;
    }
    Blocks blk = block_sizes(MR, NR);
    // k in equal slices of at most kc: k = 1536 as 5 x 308 rather than 4 x 352 + 128, whose
    // thin last slice would pay a whole pass of C-tile updates for a third of the work.
    blk.kc = even_split(k, blk.kc);
    thread_local PackBuffer a_buffer, b_buffer;
    const int kc_max = blk.kc < k ? blk.kc : k;
    const int mc_max = blk.mc < m ? blk.mc : m;
    const int nc_max = blk.nc < n ? blk.nc : n;
    float* Ap = a_buffer.get(static_cast<std::size_t>(round_up(mc_max, MR)) * kc_max);
    float* Bp = b_buffer.get(static_cast<std::size_t>(round_up(nc_max, NR)) * kc_max);

    for (int jc = 0; jc < n; jc += blk.nc) {
        const int nc = n - jc < blk.nc ? n - jc : blk.nc;
        for (int pc = 0; pc < k; pc += blk.kc) {
            const int kc = k - pc < blk.kc ? k - pc : blk.kc;
            tile.pack_b(kc, nc, B + static_cast<long>(pc) * ldb + jc, ldb, NR, Bp);
            for (int ic = 0; ic < m; ic += blk.mc) {
                const int mc = m - ic < blk.mc ? m - ic : blk.mc;
                tile.pack_a(mc, kc, A + static_cast<long>(ic) * lda + pc, lda, MR, Ap);
                for (int jr = 0; jr < nc; jr += NR) {
                    const int nr = nc - jr < NR ? nc - jr : NR;
                    const float* b_sliver = Bp + static_cast<long>(jr) * kc;
                    for (int ir = 0; ir < mc; ir += MR) {
                        const int mr = mc - ir < MR ? mc - ir : MR;
                        tile.kernel(kc, Ap + static_cast<long>(ir) * kc, b_sliver,
                                    C + static_cast<long>(ic + ir) * ldc + jc + jr, ldc, mr, nr);
                    }
                }
            }
        }
    }
}

#if defined(__x86_64__) || defined(_M_X64)
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm({microkernel_avx512_14x32, kMrAvx512, kNrAvx512, microkernel_avx512_14x32_direct,
                  pack_a_avx512, pack_b_avx512},
                 m, n, k, A, lda, B, ldb, C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm({microkernel_avx2_6x16, kMrAvx2, kNrAvx2, microkernel_avx2_6x16_direct,
                  pack_a_avx2, pack_b_avx2},
                 m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {
    {"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F"},
    {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA"},
    {"neon", nullptr, nullptr, "NEON (an AArch64 build)"}};
constexpr int kBestMr = kMrAvx512, kBestNr = kNrAvx512;
#elif defined(__aarch64__)
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm({microkernel_neon_8x12, kMrNeon, kNrNeon}, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON"},
                                      {"avx512", nullptr, nullptr, "AVX-512F (an x86-64 build)"},
                                      {"avx2", nullptr, nullptr, "AVX2+FMA (an x86-64 build)"}};
constexpr int kBestMr = kMrNeon, kBestNr = kNrNeon;
#else
#error "step 08 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

// The values shown by --help and the progress line are those of the first variant listed;
// a forced --kernel avx2 derives its own from its 6 x 16 tile (a deeper kc, for one).
int get_mc() { return block_sizes(kBestMr, kBestNr).mc; }
int get_kc() { return block_sizes(kBestMr, kBestNr).kc; }
int get_nc() { return block_sizes(kBestMr, kBestNr).nc; }
void set_mc(int v) { user_mc = v; }
void set_kc(int v) { user_kc = v; }
void set_nc(int v) { user_nc = v; }

constexpr gemm::Param params[] = {
    {"mc", "rows of the packed A block, kept in L2 (default: from the L2 size)", get_mc, set_mc},
    {"kc", "depth of the packed A and B blocks (default: from the L1 size)", get_kc, set_kc},
    {"nc", "columns of the packed B panel, kept in L3 (default: from the L3 size)", get_nc, set_nc}};

}  // namespace
}  // namespace step08

GEMM_STEP({.variants = step08::variants, .params = step08::params})
