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
#include "nests.hpp"
#include "partition.hpp"

#if !defined(_OPENMP)
// Built without OpenMP (steps/10_tuned/CMakeLists.txt): one thread, the serial nest. The
// harness refuses --threads above 1 before anything runs.
namespace step10 {
int parallel_gemm(const Config& config, const TileShape& tile, const Operands& p) {
    serial_gemm(config, tile, p);
    return 1;
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

namespace {

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

// A range of rows and NR-column slivers of C that one thread computes alone.
struct Claim {
    int row0, row1;   // rows of C
    int s0, s1;       // NR-column slivers of the panel
};

// Rows of C: row group g (of the grid made inside the region) owns rows [first_row(g),
// first_row(g + 1)), handed out from its counter in blocks of at most `most` rows (a quarter
// of the group's rows when that is less, so that there is something left to take over). The
// last two blocks are handed out in sixteenths of the group's columns: the thread that
// finishes first then waits for a sixteenth of a block at most, not a whole one (README:
// "The end of a call is where a claim's size shows"). A thread works through its own group's
// claims, then the other groups'.
struct RowClaims {
    static constexpr int kTailParts = 16;
    Counter* next;   // one counter per row group x column group
    Grid grid;
    int m, mr;
    const float* C;
    long ldc;

    // The next claim of row group `group` for column group `cols_group`, whose slivers are
    // [s0, s1): false when the group has none left.
    bool take(int group, int cols_group, int most, int s0, int s1, Claim& got) const {
        const int first = first_row(group, grid.rows, m, mr, C, ldc);
        const int end = first_row(group + 1, grid.rows, m, mr, C, ldc);
        if (end <= first) return false;
        const int quarter = round_up((end - first + 3) / 4, mr);
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
    }
};

// Column group `cols_group`'s share [s0, s1) of `slivers` slivers.
void slivers_of(const Grid& grid, int cols_group, int slivers, int& s0, int& s1) {
    s0 = static_cast<int>(static_cast<long>(slivers) * cols_group / grid.cols);
    s1 = static_cast<int>(static_cast<long>(slivers) * (cols_group + 1) / grid.cols);
}

// The unpacked path on a team: C shared out by the same claims, each claim's rows as tiles
// of nearly equal height, as in the serial nest (direct_part).
// Returns the team OpenMP gave.
int parallel_direct(const Config& config, const TileShape& tile, const Operands& p, int team) {
    const int row_tiles = (p.m + tile.mr - 1) / tile.mr, col_slivers = (p.n + tile.nr - 1) / tile.nr;
    const std::unique_ptr<Counter[]> row_claims(new Counter[team]);
    // The last 1-4 columns, if any, as dot products: their B columns laid out along k once,
    // here, for every claim that reaches them.
    const int narrow = tile.narrow != nullptr ? narrow_columns(config, p.n, p.k) : 0;
    const float* bt = narrow_columns_of_b(p, narrow);
    int ran = 1;
#pragma omp parallel num_threads(team)
    {
        const int t = omp_get_thread_num();
        const Grid grid = split_team(omp_get_num_threads(), row_tiles, col_slivers);
        if (t == 0) ran = omp_get_num_threads();
        const RowClaims claims{row_claims.get(), grid, p.m, tile.mr, p.C, p.ldc};
        int s0, s1;
        slivers_of(grid, t % grid.cols, col_slivers, s0, s1);
        for (int g = 0; g < grid.rows && t < grid.rows * grid.cols; ++g)
            for (Claim c; claims.take((t / grid.cols + g) % grid.rows, t % grid.cols, p.m, s0, s1, c);)
                direct_part(tile, p, narrow, bt, c.row0, c.row1, c.s0, c.s1);
    }
    return ran;
}

enum ChunkState { kUnclaimed, kPacking, kPacked };

// One panel (jc, pc) of B as the team packs it into the shared Bp: in chunks of slivers, each
// with a state, unclaimed, being packed, or packed. A chunk is the unit one thread claims,
// packs, or waits for. With a kernel that copies B in its calls a chunk is one sliver;
// otherwise about four per thread, wide enough to read long runs of each row of B, small
// enough to leave some to take over.
struct Panel {
    PackB pack_b;
    int nr_tile;
    const float* b_panel;   // B(pc, jc)
    int ldb;
    float* Bp;
    int nc, kc, slivers, per_chunk, chunks, threads;
    std::atomic<int>* state;   // per chunk

    Panel(const TileShape& tile, const Operands& p, float* Bp_, int jc, int nc_, int pc, int kc_, int threads_,
          std::atomic<int>* state_)
        : pack_b(tile.pack_b), nr_tile(tile.nr), b_panel(p.B + static_cast<long>(pc) * p.ldb + jc), ldb(p.ldb), Bp(Bp_),
          nc(nc_), kc(kc_), slivers((nc_ + tile.nr - 1) / tile.nr), threads(threads_), state(state_) {
        per_chunk = tile.copying != nullptr || slivers / (4 * threads) <= 1 ? 1 : slivers / (4 * threads);
        chunks = (slivers + per_chunk - 1) / per_chunk;
    }
    // Whoever claims a chunk first packs it: the thread that reads it next, one that has to
    // wait for another chunk meanwhile, or (copying) the calls on the sliver before it.
    bool try_claim(int c) const {
        int expected = kUnclaimed;
        return state[c].load(std::memory_order_relaxed) == kUnclaimed &&
               state[c].compare_exchange_strong(expected, kPacking, std::memory_order_acquire);
    }
    void pack_chunk(int c) const {
        const int j0 = c * per_chunk * nr_tile;
        const int j1 = j0 + per_chunk * nr_tile < nc ? j0 + per_chunk * nr_tile : nc;
        pack_b(kc, j1 - j0, b_panel + j0, ldb, nr_tile, Bp + static_cast<long>(j0) * kc);
        state[c].store(kPacked, std::memory_order_release);
    }
    // Thread `owner` owns chunks [first_chunk(owner), first_chunk(owner + 1)): a thread that
    // has to wait packs any unclaimed chunk, its own first.
    int first_chunk(int owner) const { return static_cast<int>(static_cast<long>(chunks) * owner / threads); }
    bool help_pack(int t) const {
        for (int o = 0, mine = first_chunk(t); o < chunks; ++o)
            if (const int c = (mine + o) % chunks; try_claim(c)) return pack_chunk(c), true;
        return false;
    }
};

// Thread t of the team: its rectangle of C is the rows of row group t / cols and, of every
// panel's slivers, those of column group t % cols. A thread outside the grid only packs.
struct Member {
    int t;
    Grid grid;
    bool in_grid;
    int my_rows, my_cols;
};

// The calls down an A block of mc rows (packed in Ap) on one B sliver. They copy the next
// sliver from B (`copy`: a whole one nobody had claimed), or else bring `ahead` into L2 as
// they compute.
void sliver_calls(const TileShape& tile, const float* Ap, const float* b_sliver, float* c_column, long ldc, int mc,
                  int nr, int kc, const float* ahead, const float* copy_src, int ldb, float* next_packed, bool copy) {
    const int MR = tile.mr, NR = tile.nr, calls = (mc + MR - 1) / MR;
    for (int ir = 0; ir < mc; ir += MR) {
        const int mr = mc - ir < MR ? mc - ir : MR;
        const float* a_sliver = Ap + static_cast<long>(ir) * kc;
        float* c_tile = c_column + ir * ldc;
        if (copy)
            tile.copying(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                         sliver_share(copy_src, ldb, next_packed, kc, NR, ir / MR, calls));
        else
            tile.kernel(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr, ahead + next_sliver_share(ir / MR, NR, kc));
    }
}

// Claim c's slivers in turn, starting at this thread's share of them (row group r of R starts
// r / R of the way in): while the panel is being packed, the threads that read the same
// slivers start in different places, each packing the slivers ahead of it. [share0, share1):
// the thread's column group's slivers; the A block is in Ap.
void claim_calls(const TileShape& tile, const Panel& panel, const Operands& p, int jc, const Member& me,
                 const Claim& c, int share0, int share1, const float* Ap) {
    const int NR = tile.nr, nc = panel.nc, kc = panel.kc, mc = c.row1 - c.row0;
    const int s_count = c.s1 - c.s0, s0 = c.s0;
    const int s_first = static_cast<int>(static_cast<long>(s_count) * me.my_rows / me.grid.rows);
    const bool whole_share = s_count == share1 - share0 || c.s1 + s_first >= share1;
    float* c_rows = p.C + static_cast<long>(c.row0) * p.ldc + jc;
    for (int i = 0; i < s_count; ++i) {
        const int s = s0 + (s_first + i) % s_count;
        const int s_next = s0 + (s_first + i + 1) % s_count;   // the next this thread reads
        if (panel.try_claim(s / panel.per_chunk)) panel.pack_chunk(s / panel.per_chunk);
        wait_for(panel.state[s / panel.per_chunk], kPacked, [&] { return panel.help_pack(me.t); });
        const int jr = s * NR;
        const int nr = nc - jr < NR ? nc - jr : NR;
        // After the last sliver of a part of a block, the next part's first (probably this
        // thread's next claim), not this part's first again.
        const int s_ahead = i + 1 < s_count || whole_share ? s_next : c.s1 + s_first;
        // The calls copy the next sliver from B if nobody has claimed it yet (a whole one: a
        // partial last sliver needs zeros past column nc).
        const bool copy_next = tile.copying != nullptr && i + 1 < s_count && (s_next + 1) * NR <= nc &&
                               panel.try_claim(s_next);
        sliver_calls(tile, Ap, panel.Bp + static_cast<long>(jr) * kc, c_rows + jr, p.ldc, mc, nr, kc,
                     panel.Bp + static_cast<long>(s_ahead) * NR * kc, panel.b_panel + s_next * NR, panel.ldb,
                     panel.Bp + static_cast<long>(s_next) * NR * kc, copy_next);
        if (copy_next) panel.state[s_next].store(kPacked, std::memory_order_release);
    }
}

// Thread `me`'s work on one panel: its own chunks first when the calls do not copy B, then
// every claim it can get, its own row group's first; a thread outside the grid packs.
void panel_work(const TileShape& tile, const Panel& panel, const Operands& p, int jc, int pc, const Member& me,
                const RowClaims& claims, int most_rows, float* Ap) {
    if (tile.copying == nullptr || !me.in_grid)   // pack its own chunks before computing
        for (int c = panel.first_chunk(me.t); c < panel.first_chunk(me.t + 1); ++c)
            if (panel.try_claim(c)) panel.pack_chunk(c);
    int s0, s1;
    slivers_of(me.grid, me.my_cols, panel.slivers, s0, s1);
    int packed_row0 = -1;   // the rows of A in Ap: the quarters of a block reuse it
    for (int g = 0; g < me.grid.rows && me.in_grid; ++g) {
        const int group = (me.my_rows + g) % me.grid.rows;
        for (Claim c; claims.take(group, me.my_cols, most_rows, s0, s1, c);) {
            if (c.row0 != packed_row0)
                tile.pack_a(c.row1 - c.row0, panel.kc, p.A + static_cast<long>(c.row0) * p.lda + pc, p.lda, tile.mr, Ap);
            packed_row0 = c.row0;
            claim_calls(tile, panel, p, jc, me, c, s0, s1, Ap);
        }
    }
    if (!me.in_grid) while (panel.help_pack(me.t)) {}
}

// What the team shares for a blocked product: its blocks, the B panel buffer, and the
// bookkeeping of every panel (jc, pc), zeroed before the region, so that nothing is reset
// while another thread may still read it: per thread, the next rows of its share of C; per
// chunk of B, whether it is unclaimed, being packed, or packed.
struct Shared {
    Blocks blk;
    int team, kc_max = 0, mc_max = 0, chunks_max = 0;
    float* Bp = nullptr;
    std::unique_ptr<Counter[]> row_claims = nullptr;
    std::unique_ptr<std::atomic<int>[]> chunk_states = nullptr;
};

// Thread `me`'s part of every panel, in order; between two panels the team meets, since the
// next one reuses Bp: nobody may still be reading this one. (One panel, the common case up
// to kc and nc: the end of the region is enough.)
void panels(const TileShape& tile, const Operands& p, Shared& sh, const Member& me, int threads, float* Ap) {
    const int n = p.n, k = p.k;
    const Blocks& blk = sh.blk;
    int panel = 0;
    for (int jc = 0; jc < n; jc += blk.nc) {
        const int nc = n - jc < blk.nc ? n - jc : blk.nc;
        for (int pc = 0; pc < k; pc += blk.kc, ++panel) {
            const int kc = k - pc < blk.kc ? k - pc : blk.kc;
            const Panel b(tile, p, sh.Bp, jc, nc, pc, kc, threads,
                          &sh.chunk_states[static_cast<std::size_t>(panel) * sh.chunks_max]);
            const RowClaims claims{&sh.row_claims[static_cast<std::size_t>(panel) * sh.team], me.grid, p.m, tile.mr,
                                   p.C, p.ldc};
            panel_work(tile, b, p, jc, pc, me, claims, blk.mc, Ap);
            if (pc + blk.kc < k || jc + blk.nc < n) {
#pragma omp barrier
            }
        }
    }
}

// The blocked path on a team of `team` threads; returns the team OpenMP gave.
int parallel_packed(const Config& config, const TileShape& tile, const Operands& p, int team) {
    const int m = p.m, n = p.n, k = p.k, MR = tile.mr, NR = tile.nr;
    // The serial nest's slices; the A blocks cut from a row group's rows.
    Shared sh{.blk = product_blocks(config, block_sizes(config, MR, NR, tile.flops), group_rows(team, m, n, MR, NR), k,
                                    MR, NR, tile.flops),
              .team = team};
    sh.kc_max = sh.blk.kc < k ? sh.blk.kc : k;
    sh.mc_max = sh.blk.mc < m ? sh.blk.mc : m;
    const int nc_max = sh.blk.nc < n ? sh.blk.nc : n;
    // The B panel is shared: the calling thread owns the buffer, every thread fills part of it.
    thread_local PackBuffer b_buffer;
    sh.Bp = b_buffer.get(static_cast<std::size_t>(round_up(nc_max, NR)) * sh.kc_max);
    const int panel_count = (n + sh.blk.nc - 1) / sh.blk.nc * ((k + sh.blk.kc - 1) / sh.blk.kc);
    sh.chunks_max = (nc_max + NR - 1) / NR;   // a chunk has at least one sliver
    sh.row_claims.reset(new Counter[static_cast<std::size_t>(panel_count) * team]);
    sh.chunk_states.reset(new std::atomic<int>[static_cast<std::size_t>(panel_count) * sh.chunks_max]());
    const int row_tiles = (m + MR - 1) / MR, col_slivers = (n + NR - 1) / NR;

    // An exception must not leave a parallel region (it would end the program), and a thread
    // that returns early would leave the others waiting at a barrier: each thread allocates
    // first, they all see together whether one failed, and bad_alloc is thrown out here.
    bool out_of_memory = false;
    int ran = 1;
#pragma omp parallel num_threads(team)
    {
        const int t = omp_get_thread_num(), threads = omp_get_num_threads();
        if (t == 0) ran = threads;
        // The grid is made here, from the team OpenMP actually gave (OMP_THREAD_LIMIT,
        // OMP_DYNAMIC may give fewer).
        const Grid grid = split_team(threads, row_tiles, col_slivers);
        const Member me{t, grid, t < grid.rows * grid.cols, t / grid.cols, t % grid.cols};
        // Each thread packs its own A blocks, in a buffer that lives as long as the thread.
        thread_local PackBuffer a_buffer;
        float* Ap = nullptr;
        try {
            Ap = a_buffer.get(static_cast<std::size_t>(round_up(sh.mc_max, MR)) * sh.kc_max);
        } catch (const std::bad_alloc&) {
#pragma omp atomic write
            out_of_memory = true;
        }
#pragma omp barrier
        bool failed;
#pragma omp atomic read
        failed = out_of_memory;   // the same for every thread, so they skip the loop together
        if (!failed) panels(tile, p, sh, me, threads, Ap);
    }
    if (out_of_memory) throw std::bad_alloc();
    return ran;
}

}  // namespace

// The team may be smaller than asked for: OMP_THREAD_LIMIT, OMP_DYNAMIC and the row-tile cap
// (team_size) may each give fewer threads.
int parallel_gemm(const Config& config, const TileShape& tile, const Operands& p) {
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) return 1;
    const int team = team_size(config, p.m, p.n, p.k, tile.mr, tile.nr, omp_get_max_threads());
    if (team == 1) {   // one thread: the serial nest, with no team to start or claims to make
        serial_gemm(config, tile, p);
        return 1;
    }
    if (tile.direct != nullptr && skip_packing(config, p.m, p.k, p.ldb, tile.nr)) return parallel_direct(config, tile, p, team);
    return parallel_packed(config, tile, p, team);
}

}  // namespace step10

#endif  // _OPENMP
