// Step 10, one thread: the GotoBLAS / BLIS loop nest of step 08 with the tricks of this
// step (README: "What each trick buys").
//
//   for jc in 0..n step NC:                 B panel  kc x nc  -> packed, stays in L3
//     for pc in 0..k step KC:               (k in one slice where it fits, else even slices)
//       pack B(pc.., jc..) into Bp          (its first sliver; the kernel calls copy the rest)
//       for ic in 0..m step MC:             A block  mc x kc  -> packed, stays in L2
//         pack A(ic.., pc..) into Ap        (MR-row slivers)
//         for jr in 0..nc step NR:          B sliver kc x NR  -> reused from L1 / L2
//           for ir in 0..mc step MR:        A sliver kc x MR  -> streamed from L2
//             micro-kernel: C(ic+ir.., jc+jr..) += Ap sliver * Bp sliver
//
// Small matrices, whose A fits in L2, skip the packing: the x86 kernels then read A and B
// in place.
#include "nests.hpp"

#include <new>

namespace step10 {

float* PackBuffer::get(std::size_t floats) {
    if (floats > size) {
        ::operator delete[](data, std::align_val_t{64});
        data = static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64}));
        size = floats;
    }
    return data;
}
PackBuffer::~PackBuffer() { ::operator delete[](data, std::align_val_t{64}); }

const float* narrow_columns_of_b(const Operands& p, int narrow) {
    if (narrow <= 0) return nullptr;
    thread_local PackBuffer narrow_buffer;
    float* bt = narrow_buffer.get(4 * static_cast<std::size_t>(narrow_depth(p.k)));
    pack_b_narrow(p.k, narrow, p.B + (p.n - narrow), p.ldb, bt);
    return bt;
}

// Unpacked, the row tiles need not be MR rows each: a part's rows as ceil(rows / MR) tiles of
// nearly equal height (m = 100: 4 x 13 + 4 x 12 rows, not 7 x 14 + 2). A 2-row tile has 4
// accumulators for 2 FMA pipes of latency 4 and runs at half speed.
void direct_part(const TileShape& tile, const Operands& p, int narrow, const float* bt, int row0, int row1, int s0,
                 int s1) {
    const int NR = tile.nr, k = p.k, n_tiles = p.n - narrow;   // the columns the tiles compute
    const long lda = p.lda, ldb = p.ldb, ldc = p.ldc;
    const int rows = row1 - row0, tiles = (rows + tile.mr - 1) / tile.mr;
    const DirectKernel direct = tile.direct;
    for (int jr = s0 * NR; jr < n_tiles && jr < s1 * NR; jr += NR)
        for (int i = 0; i < tiles; ++i) {
            const int ir = row0 + static_cast<int>(static_cast<long>(rows) * i / tiles);
            direct(k, p.A + ir * lda, lda, p.B + jr, ldb, p.C + ir * ldc + jr, ldc,
                   row0 + static_cast<int>(static_cast<long>(rows) * (i + 1) / tiles) - ir,
                   n_tiles - jr < NR ? n_tiles - jr : NR);
        }
    if (narrow > 0 && static_cast<long>(s1) * NR >= p.n)   // the part reaches the last columns
        tile.narrow(rows, k, p.A + row0 * lda, lda, bt, p.C + row0 * ldc + n_tiles, ldc, narrow);
}

namespace {

// One A block's calls on the packed panel: for each B sliver, the micro-kernel down the block.
// The first A block's calls on a sliver copy the next one from B (README: "Packing B inside
// the kernel calls"); a partial last sliver, which needs zeros past column nc, is packed here
// instead. Otherwise the calls bring the sliver after this one into L2 while they compute
// (after the last: the first, for the next A block).
void block_calls(const TileShape& tile, const float* Ap, float* Bp, const float* b_block, int ldb, float* c_block,
                 long ldc, int mc, int nc, int kc, bool first_block) {
    const int MR = tile.mr, NR = tile.nr;
    const int calls = (mc + MR - 1) / MR;
    for (int jr = 0; jr < nc; jr += NR) {
        const int nr = nc - jr < NR ? nc - jr : NR;
        const float* b_sliver = Bp + static_cast<long>(jr) * kc;
        const int next_cols = first_block && tile.copying != nullptr && jr + NR < nc ? nc - jr - NR : 0;
        float* next_packed = Bp + static_cast<long>(jr + NR) * kc;
        if (next_cols > 0 && next_cols < NR) tile.pack_b(kc, next_cols, b_block + jr + NR, ldb, NR, next_packed);
        const float* next_sliver = jr + NR < nc ? b_sliver + static_cast<long>(NR) * kc : Bp;
        for (int ir = 0; ir < mc; ir += MR) {
            const int mr = mc - ir < MR ? mc - ir : MR;
            const float* a_sliver = Ap + static_cast<long>(ir) * kc;
            float* c_tile = c_block + ir * ldc + jr;
            if (next_cols >= NR)
                tile.copying(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                             sliver_share(b_block + jr + NR, ldb, next_packed, kc, NR, ir / MR, calls));
            else
                tile.kernel(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr, next_sliver + next_sliver_share(ir / MR, NR, kc));
        }
    }
}

void packed_gemm(const Config& config, const TileShape& tile, const Operands& p) {
    const int m = p.m, n = p.n, k = p.k, MR = tile.mr, NR = tile.nr;
    const Blocks blk = product_blocks(config, block_sizes(config, MR, NR, tile.flops), m, k, MR, NR, tile.flops);
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
            const float* b_block = p.B + static_cast<long>(pc) * p.ldb + jc;
            // The whole B panel now, or (copying in the kernel) its first sliver only.
            tile.pack_b(kc, tile.copying == nullptr || nc < NR ? nc : NR, b_block, p.ldb, NR, Bp);
            for (int ic = 0; ic < m; ic += blk.mc) {
                const int mc = m - ic < blk.mc ? m - ic : blk.mc;
                tile.pack_a(mc, kc, p.A + static_cast<long>(ic) * p.lda + pc, p.lda, MR, Ap);
                block_calls(tile, Ap, Bp, b_block, p.ldb, p.C + static_cast<long>(ic) * p.ldc + jc, p.ldc, mc, nc, kc,
                            ic == 0);
            }
        }
    }
}

}  // namespace

void serial_gemm(const Config& config, const TileShape& tile, const Operands& p) {
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) return;
    if (tile.direct != nullptr && skip_packing(config, p.m, p.k, p.ldb, tile.nr)) {
        const int narrow = tile.narrow != nullptr ? narrow_columns(config, p.n, p.k) : 0;
        direct_part(tile, p, narrow, narrow_columns_of_b(p, narrow), 0, p.m, 0, (p.n + tile.nr - 1) / tile.nr);
        return;
    }
    packed_gemm(config, tile, p);
}

}  // namespace step10
