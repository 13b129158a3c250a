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
#include "blocks.hpp"

namespace step10 {

void serial_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int MR = tile.mr, NR = tile.nr;
    if (tile.direct != nullptr && skip_packing(m, k, ldb, NR)) {
        // Unpacked, the row tiles need not be MR rows each: m rows as ceil(m / MR) tiles of
        // nearly equal height (m = 100: 4 x 13 + 4 x 12 rows, not 7 x 14 + 2). A 2-row tile
        // has 4 accumulators for 2 FMA pipes of latency 4 and ran at half speed.
        const int row_tiles = (m + MR - 1) / MR;
        const int narrow = tile.narrow != nullptr ? narrow_columns(n, k) : 0;
        const int n_tiles = n - narrow;   // the columns the tiles compute
        for (int jr = 0; jr < n_tiles; jr += NR)
            for (int t = 0; t < row_tiles; ++t) {
                const int ir = static_cast<int>(static_cast<long>(m) * t / row_tiles);
                const int rows = static_cast<int>(static_cast<long>(m) * (t + 1) / row_tiles) - ir;
                tile.direct(k, A + static_cast<long>(ir) * lda, lda, B + jr, ldb,
                            C + static_cast<long>(ir) * ldc + jr, ldc, rows, n_tiles - jr < NR ? n_tiles - jr : NR);
            }
        if (narrow > 0) {
            thread_local PackBuffer narrow_buffer;
            float* bt = narrow_buffer.get(4 * static_cast<std::size_t>(narrow_depth(k)));
            pack_b_narrow(k, narrow, B + n_tiles, ldb, bt);
            tile.narrow(m, k, A, lda, bt, C + n_tiles, ldc, narrow);
        }
        return;
    }
    Blocks blk = block_sizes(MR, NR, tile.flops);
    // k in one slice where it fits (block_sizes: one_slice), else in equal slices of at most
    // kc: with kc = 704, k = 1536 as 3 x 512 rather than 2 x 704 + 128, whose thin last slice
    // would pay a whole pass of C-tile updates (and a packing of A and B) for a twelfth of
    // the work.
    if (k <= blk.one_slice) blk.kc = k;
    else if (!ablation.no_even_k) blk.kc = even_split(k, blk.kc);
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
            const float* b_block = B + static_cast<long>(pc) * ldb + jc;
            // The whole B panel now, or (copying in the kernel) its first sliver only.
            tile.pack_b(kc, tile.copying == nullptr || nc < NR ? nc : NR, b_block, ldb, NR, Bp);
            for (int ic = 0; ic < m; ic += blk.mc) {
                const int mc = m - ic < blk.mc ? m - ic : blk.mc;
                tile.pack_a(mc, kc, A + static_cast<long>(ic) * lda + pc, lda, MR, Ap);
                for (int jr = 0; jr < nc; jr += NR) {
                    const int nr = nc - jr < NR ? nc - jr : NR;
                    const float* b_sliver = Bp + static_cast<long>(jr) * kc;
                    // The first A block's calls on this sliver copy the next one from B
                    // (README: "Packing B inside the kernel calls"); a partial last sliver,
                    // which needs zeros past column nc, is packed here instead.
                    const int next_cols = ic == 0 && tile.copying != nullptr && jr + NR < nc ? nc - jr - NR : 0;
                    float* next_packed = Bp + static_cast<long>(jr + NR) * kc;
                    if (next_cols > 0 && next_cols < NR) tile.pack_b(kc, next_cols, b_block + jr + NR, ldb, NR, next_packed);
                    // Otherwise the calls bring the sliver after this one into L2 while they
                    // compute (after the last: the first, for the next A block).
                    const float* next_sliver = jr + NR < nc ? b_sliver + static_cast<long>(NR) * kc : Bp;
                    const int calls = (mc + MR - 1) / MR;
                    for (int ir = 0; ir < mc; ir += MR) {
                        const int mr = mc - ir < MR ? mc - ir : MR;
                        const float* a_sliver = Ap + static_cast<long>(ir) * kc;
                        float* c_tile = C + static_cast<long>(ic + ir) * ldc + jc + jr;
                        if (next_cols >= NR)
                            tile.copying(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                                         sliver_share(b_block + jr + NR, ldb, next_packed, kc, NR, ir / MR, calls));
                        else
                            tile.kernel(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                                        next_sliver + next_sliver_share(ir / MR, NR, kc));
                    }
                }
            }
        }
    }
}

}  // namespace step10
