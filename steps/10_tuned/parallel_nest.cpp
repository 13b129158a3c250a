// Step 10, all threads: the serial nest (serial_nest.cpp) shared out between OpenMP threads.
//
//   for jc in 0..n step NC:
//     for pc in 0..k step KC:                  B(pc.., jc..) is packed into the shared Bp
//       thread t:  while it can claim rows (its own group's first, then the others'):
//                    pack A(claimed rows, pc..) into its own Ap                (L2 of its core)
//                    for jr in the claim's slivers, from t's share of them on:
//                      sliver jr unclaimed: claim and pack it; being packed: wait (packing
//                        any unclaimed sliver meanwhile)
//                      for ir in 0..mc step MR:  micro-kernel, copying the next sliver
//                        from B into Bp as it goes if nobody has claimed it
//       -- barrier, if another panel follows: nobody reads Bp any more, it may be repacked --
//
// One parallel region per call; OpenMP keeps its threads between calls. Each claim is a
// range of rows and slivers of C that one thread computes alone, so no two threads write
// the same element, and first_row keeps the row groups' boundaries on cache-line starts
// where it can, so they don't share lines of C either. Small matrices skip the packing, as
// in the serial nest, with C shared out the same way. The micro-kernels and the packing are
// the serial nest's. (Without a copying kernel, NEON, or with --no-copy-b 1, B is
// packed in chunks of slivers before the calls: each thread its own chunks first.)
#include "blocks.hpp"
#include "partition.hpp"

#if !defined(_OPENMP)
// Built without OpenMP (steps/10_tuned/CMakeLists.txt): one thread, the serial nest. The
// harness refuses --threads above 1 before anything runs.
namespace step10 {
int threads_used() { return 1; }
void parallel_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc) {
    serial_gemm(tile, m, n, k, A, lda, B, ldb, C, ldc);
}
}  // namespace step10
#else

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>

#include <sched.h>

#include <omp.h>

namespace step10 {

// The team the last call ran on (the CSV's threads column): OMP_THREAD_LIMIT, OMP_DYNAMIC
// and the row-tile cap below may each give fewer threads than asked for.
std::atomic<int> last_team{1};
int threads_used() { return last_team.load(); }

// Work is claimed through atomic counters, each on its own cache line, so that a thread
// that is not running (another program holds its core) cannot hold up the others for long:
// whatever it has not claimed yet, the others take over (README: "A busy core").
struct alignas(64) Counter {
    std::atomic<int> next{0};
};

// Wait for `state` to be `done` while doing something useful: `help()` takes over one
// unclaimed piece of work and says whether it found one; with none left, spin a little,
// then give the core up.
template <typename Help>
void wait_for(const std::atomic<int>& state, int done, Help help) {
    for (int spins = 0; state.load(std::memory_order_acquire) != done;) {
        if (help()) continue;
        if (++spins < 1000) {
#if defined(__x86_64__)
            __builtin_ia32_pause();   // a spin-wait hint: frees the core's resources for its sibling
#elif defined(__aarch64__)
            asm volatile("yield");
#endif
            continue;
        }
        sched_yield();   // the thread we wait for may be waiting for this core
    }
}

void parallel_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int MR = tile.mr, NR = tile.nr;
    // No more threads than there are MR-row tiles to share out, and none whose share of the
    // work is too small to pay for waking it: a product of n = 100 takes about 12 us on one
    // core, the same order as starting a team and meeting at its barriers, and far less than
    // a scheduler's time slice when another program holds one of the cores (README:
    // "A busy core").
    const int row_tiles = (m + MR - 1) / MR, col_slivers = (n + NR - 1) / NR;
    const double worth = 2.0 * m * n * k / (user_min_kflops > 0 ? 1e3 * user_min_kflops : kMinFlopsPerThread);
    int team = omp_get_max_threads();
    if (team > worth) team = worth > 1 ? static_cast<int>(worth) : 1;
    {
        const Grid grid = split_team(team, row_tiles, col_slivers);
        team = grid.rows * grid.cols;
    }
    if (team == 1) {   // one thread: the serial nest, with no team to start or claims to make
        last_team = 1;
        serial_gemm(tile, m, n, k, A, lda, B, ldb, C, ldc);
        return;
    }

    // Rows of C: row group g (of the grid made inside the region) owns rows [first_row(g),
    // first_row(g + 1)), handed out from its counter in blocks of at most `most` rows (a
    // quarter of the group's rows when that is less, so that there is something left to take
    // over). The last two blocks are handed out in sixteenths of the group's columns (two
    // slivers each at n = 1024): the thread that finishes first then waits for a sixteenth of
    // a block at most, not a whole one (a block of 112 rows at n = 1024 is a tenth of a
    // thread's work). At n = 1024 the thread that finished first waited about 1 % of the call
    // with quarters, 0.2-0.4 % with sixteenths (README: "The end of a call is where a claim's
    // size shows"). A thread works through its own group's claims, then the other groups'.
    constexpr int kTailParts = 16;
    struct Claim {
        int row0, row1;   // rows of C
        int s0, s1;       // NR-column slivers of the panel
    };
    auto claim = [&](Counter* next, const Grid& grid, int group, int cols_group, int most, int s0, int s1,
                     Claim& got) {
        const int first = first_row(group, grid.rows, m, MR, C, ldc);
        const int end = first_row(group + 1, grid.rows, m, MR, C, ldc);
        if (end <= first) return false;
        const int quarter = round_up((end - first + 3) / 4, MR);
        const int step = quarter < most ? quarter : most;
        const int blocks = (end - first + step - 1) / step;
        const int tail = blocks < 2 ? blocks : 2;
        const int parts = std::clamp(s1 - s0, 1, kTailParts);
        const int item = next[group * grid.cols + cols_group].next.fetch_add(1, std::memory_order_relaxed);
        int block = item;
        if (item >= blocks - tail) {
            block = blocks - tail + (item - (blocks - tail)) / parts;
            const int part = (item - (blocks - tail)) % parts;
            if (block >= blocks) return false;
            got.s0 = s0 + static_cast<int>(static_cast<long>(s1 - s0) * part / parts);
            got.s1 = s0 + static_cast<int>(static_cast<long>(s1 - s0) * (part + 1) / parts);
        } else {
            got.s0 = s0, got.s1 = s1;
        }
        got.row0 = first + block * step;
        got.row1 = got.row0 + step < end ? got.row0 + step : end;
        return true;
    };
    auto slivers_of = [&](const Grid& grid, int cols_group, int slivers, int& s0, int& s1) {
        s0 = static_cast<int>(static_cast<long>(slivers) * cols_group / grid.cols);
        s1 = static_cast<int>(static_cast<long>(slivers) * (cols_group + 1) / grid.cols);
    };

    if (tile.direct != nullptr && skip_packing(m, k, ldb, NR)) {
        const std::unique_ptr<Counter[]> row_claims(new Counter[team]);
        // The last 1-4 columns, if any, as dot products: their B columns laid out along k
        // once, here, for every claim that reaches them.
        const int narrow = tile.narrow != nullptr ? narrow_columns(n, k) : 0;
        const int n_tiles = n - narrow;   // the columns the tiles compute
        thread_local PackBuffer narrow_buffer;
        float* bt = narrow > 0 ? narrow_buffer.get(4 * static_cast<std::size_t>(narrow_depth(k))) : nullptr;
        if (narrow > 0) pack_b_narrow(k, narrow, B + n_tiles, ldb, bt);
#pragma omp parallel num_threads(team)
        {
            const int t = omp_get_thread_num();
            const Grid grid = split_team(omp_get_num_threads(), row_tiles, col_slivers);
            if (t == 0) last_team = omp_get_num_threads();
            int s0, s1;
            slivers_of(grid, t % grid.cols, col_slivers, s0, s1);
            for (int g = 0; g < grid.rows && t < grid.rows * grid.cols; ++g)
                for (Claim c; claim(row_claims.get(), grid, (t / grid.cols + g) % grid.rows, t % grid.cols, m, s0, s1, c);) {
                    // The claim's rows as tiles of nearly equal height, as in the serial nest (a
                    // 2-row tile runs at half speed).
                    const int rows = c.row1 - c.row0, tiles = (rows + MR - 1) / MR;
                    for (int jr = c.s0 * NR; jr < n_tiles && jr < c.s1 * NR; jr += NR)
                        for (int i = 0; i < tiles; ++i) {
                            const int ir = c.row0 + static_cast<int>(static_cast<long>(rows) * i / tiles);
                            tile.direct(k, A + static_cast<long>(ir) * lda, lda, B + jr, ldb,
                                        C + static_cast<long>(ir) * ldc + jr, ldc,
                                        c.row0 + static_cast<int>(static_cast<long>(rows) * (i + 1) / tiles) - ir,
                                        n_tiles - jr < NR ? n_tiles - jr : NR);
                        }
                    if (narrow > 0 && static_cast<long>(c.s1) * NR >= n)   // the claim reaches the last columns
                        tile.narrow(rows, k, A + static_cast<long>(c.row0) * lda, lda, bt,
                                    C + static_cast<long>(c.row0) * ldc + n_tiles, ldc, narrow);
                }
        }
        return;
    }
    Blocks blk = block_sizes(MR, NR, tile.flops);
    // k in one slice where it fits (block_sizes: one_slice), else in equal slices of at most
    // kc: with kc = 704, k = 1536 as 3 x 512 rather than 2 x 704 + 128, whose thin last slice
    // would pay a whole pass of C-tile updates (and a packing of A and B) for a twelfth of
    // the work.
    blk.kc = k <= blk.one_slice ? k : even_split(k, blk.kc);
    const int kc_max = blk.kc < k ? blk.kc : k;
    const int mc_max = blk.mc < m ? blk.mc : m;
    const int nc_max = blk.nc < n ? blk.nc : n;
    // The B panel is shared: the calling thread owns the buffer, every thread fills part of it.
    thread_local PackBuffer b_buffer;
    float* Bp = b_buffer.get(static_cast<std::size_t>(round_up(nc_max, NR)) * kc_max);

    // The bookkeeping of every panel (jc, pc), zeroed here, so that nothing is reset while
    // another thread may still read it: per thread, the next rows of its share of C; per
    // chunk of B, whether it is unclaimed, being packed, or packed.
    const int panels = (n + blk.nc - 1) / blk.nc * ((k + blk.kc - 1) / blk.kc);
    const int chunks_max = (nc_max + NR - 1) / NR;   // a chunk has at least one sliver
    const std::unique_ptr<Counter[]> row_claims(new Counter[static_cast<std::size_t>(panels) * team]);
    const std::unique_ptr<std::atomic<int>[]> chunk_states(
        new std::atomic<int>[static_cast<std::size_t>(panels) * chunks_max]());
    const CopyingKernel copying = tile.copying;

    // An exception must not leave a parallel region (it would end the program), and a thread
    // that returns early would leave the others waiting at a barrier: each thread allocates
    // first, they all see together whether one failed, and bad_alloc is thrown out here.
    bool out_of_memory = false;
#pragma omp parallel num_threads(team)
    {
        const int t = omp_get_thread_num(), threads = omp_get_num_threads();
        if (t == 0) last_team = threads;
        // Thread t's rectangle of C: the rows of row group t / cols and, of every panel's
        // NR-column slivers, those of column group t % cols. The grid is made here, from the
        // team OpenMP actually gave (OMP_THREAD_LIMIT, OMP_DYNAMIC may give fewer); a thread
        // outside the grid only packs.
        const Grid grid = split_team(threads, row_tiles, col_slivers);
        const bool in_grid = t < grid.rows * grid.cols;
        const int my_rows = t / grid.cols, my_cols = t % grid.cols;
        // Each thread packs its own A blocks, in a buffer that lives as long as the thread.
        thread_local PackBuffer a_buffer;
        float* Ap = nullptr;
        try {
            Ap = a_buffer.get(static_cast<std::size_t>(round_up(mc_max, MR)) * kc_max);
        } catch (const std::bad_alloc&) {
#pragma omp atomic write
            out_of_memory = true;
        }
#pragma omp barrier
        bool failed;
#pragma omp atomic read
        failed = out_of_memory;   // the same for every thread, so they skip the loop together

        int panel = 0;
        for (int jc = 0; jc < n && !failed; jc += blk.nc) {
            const int nc = n - jc < blk.nc ? n - jc : blk.nc;
            // B is packed in chunks of slivers, each with a state: unclaimed, being packed, or
            // packed. A chunk is the unit one thread claims, packs, or waits for. With a kernel
            // that copies B in its calls a chunk is one sliver; otherwise about four per thread,
            // wide enough to read long runs of each row of B, small enough to leave some to take
            // over.
            const int slivers = (nc + NR - 1) / NR;
            const int per_chunk = copying != nullptr || slivers / (4 * threads) <= 1 ? 1 : slivers / (4 * threads);
            const int chunks = (slivers + per_chunk - 1) / per_chunk;
            for (int pc = 0; pc < k; pc += blk.kc, ++panel) {
                const int kc = k - pc < blk.kc ? k - pc : blk.kc;
                const float* b_panel = B + static_cast<long>(pc) * ldb + jc;
                Counter* rows_next = &row_claims[static_cast<std::size_t>(panel) * team];
                std::atomic<int>* state = &chunk_states[static_cast<std::size_t>(panel) * chunks_max];
                enum { kUnclaimed, kPacking, kPacked };

                // Whoever claims a chunk first packs it: the thread that reads it next, one
                // that has to wait for another chunk meanwhile, or (copying) the calls on the
                // sliver before it.
                auto try_claim = [&](int c) {
                    int expected = kUnclaimed;
                    return state[c].load(std::memory_order_relaxed) == kUnclaimed &&
                           state[c].compare_exchange_strong(expected, kPacking, std::memory_order_acquire);
                };
                auto pack_chunk = [&](int c) {
                    const int j0 = c * per_chunk * NR;
                    const int j1 = j0 + per_chunk * NR < nc ? j0 + per_chunk * NR : nc;
                    tile.pack_b(kc, j1 - j0, b_panel + j0, ldb, NR, Bp + static_cast<long>(j0) * kc);
                    state[c].store(kPacked, std::memory_order_release);
                };
                // Thread `owner` owns chunks [first_chunk(owner), first_chunk(owner + 1)): a
                // thread that has to wait packs any unclaimed chunk, its own first.
                auto first_chunk = [&](int owner) { return static_cast<int>(static_cast<long>(chunks) * owner / threads); };
                auto help_pack = [&] {
                    for (int o = 0, mine = first_chunk(t); o < chunks; ++o)
                        if (const int c = (mine + o) % chunks; try_claim(c)) return pack_chunk(c), true;
                    return false;
                };
                if (copying == nullptr || !in_grid)   // pack its own chunks before computing
                    for (int c = first_chunk(t); c < first_chunk(t + 1); ++c)
                        if (try_claim(c)) pack_chunk(c);

                int s0, s1;
                slivers_of(grid, my_cols, slivers, s0, s1);
                int packed_row0 = -1;   // the rows of A in Ap: the quarters of a block reuse it
                for (int g = 0; g < grid.rows && in_grid; ++g) {
                    const int group = (my_rows + g) % grid.rows;
                    for (Claim c; claim(rows_next, grid, group, my_cols, blk.mc, s0, s1, c);) {
                        const int mc = c.row1 - c.row0;
                        if (c.row0 != packed_row0)
                            tile.pack_a(mc, kc, A + static_cast<long>(c.row0) * lda + pc, lda, MR, Ap);
                        packed_row0 = c.row0;
                        // The claim's slivers in turn, starting at this thread's share of them
                        // (row group r of R starts r / R of the way in): while the panel is
                        // being packed, the threads that read the same slivers start in
                        // different places, each packing the slivers ahead of it.
                        const int s_count = c.s1 - c.s0;
                        const int s_first = static_cast<int>(static_cast<long>(s_count) * my_rows / grid.rows);
                        const int calls = (mc + MR - 1) / MR;
                        for (int i = 0; i < s_count; ++i) {
                            const int s = c.s0 + (s_first + i) % s_count;
                            const int s_next = c.s0 + (s_first + i + 1) % s_count;   // the next this thread reads
                            if (try_claim(s / per_chunk)) pack_chunk(s / per_chunk);
                            wait_for(state[s / per_chunk], kPacked, help_pack);
                            const int jr = s * NR;
                            const int nr = nc - jr < NR ? nc - jr : NR;
                            const float* b_sliver = Bp + static_cast<long>(jr) * kc;
                            float* next_packed = Bp + static_cast<long>(s_next) * NR * kc;
                            // After the last sliver of a part of a block, the next part's first
                            // (probably this thread's next claim), not this part's first again.
                            const int s_ahead = i + 1 < s_count || s_count == s1 - s0 || c.s1 + s_first >= s1
                                                    ? s_next : c.s1 + s_first;
                            const float* ahead = Bp + static_cast<long>(s_ahead) * NR * kc;
                            // The calls copy the next sliver from B if nobody has claimed it yet
                            // (a whole one: a partial last sliver needs zeros past column nc);
                            // otherwise they bring it into L2 as they compute.
                            const bool copy_next = copying != nullptr && i + 1 < s_count &&
                                                   (s_next + 1) * NR <= nc && try_claim(s_next);
                            for (int ir = 0; ir < mc; ir += MR) {
                                const int mr = mc - ir < MR ? mc - ir : MR;
                                const float* a_sliver = Ap + static_cast<long>(ir) * kc;
                                float* c_tile = C + static_cast<long>(c.row0 + ir) * ldc + jc + jr;
                                if (copy_next)
                                    copying(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                                            sliver_share(b_panel + s_next * NR, ldb, next_packed, kc, NR, ir / MR, calls));
                                else
                                    tile.kernel(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                                                ahead + next_sliver_share(ir / MR, NR, kc));
                            }
                            if (copy_next) state[s_next].store(kPacked, std::memory_order_release);
                        }
                    }
                }
                if (!in_grid) while (help_pack()) {}
                // The next panel reuses Bp: nobody may still be reading this one. (One panel,
                // the common case up to kc and nc: the end of the region is enough.)
                if (pc + blk.kc < k || jc + blk.nc < n) {
#pragma omp barrier
                }
            }
        }
    }
    if (out_of_memory) throw std::bad_alloc();
}

}  // namespace step10

#endif  // _OPENMP
