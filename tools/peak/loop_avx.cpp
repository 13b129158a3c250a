// AVX, no FMA: loop_sse.cpp's chains 256 bits wide (ymm0-6 x *= 1, ymm7-13 x += tiny), in
// three-operand forms so no register copies sneak in.
#include "chains.hpp"
#include "loops.hpp"

// s: the instructions' suffix (ps, pd).
#define AVX_PAIR(s, m, a)                                                                      \
    "vmul" #s " %%ymm14, %%ymm" #m ", %%ymm" #m "\n\tvadd" #s " %%ymm15, %%ymm" #a ", %%ymm" #a "\n\t"
#define AVX_BODY(s)                                                                            \
    AVX_PAIR(s, 0, 7) AVX_PAIR(s, 1, 8) AVX_PAIR(s, 2, 9) AVX_PAIR(s, 3, 10) AVX_PAIR(s, 4, 11)  \
    AVX_PAIR(s, 5, 12) AVX_PAIR(s, 6, 13)
// vzeroupper: no AVX-SSE transition penalty afterwards.
#define AVX_LOOP(name, T, tiny, b, s, lanes)                                                   \
    PEAK_LOOP(name, T, tiny, PEAK_BROADCAST(b, ymm, 14, 15) PEAK_REGS14(PEAK_YMM_ZERO, _),     \
              AVX_BODY(s), "vzeroupper\n\t", (PEAK_XMM_CLOBBERS), 14 * (lanes))

namespace gemm::peak::loops {

AVX_LOOP(avx_fp32, float, 1e-7f, ss, ps, 8)   // 1 FLOP per instruction
AVX_LOOP(avx_fp64, double, 1e-15, sd, pd, 4)

}  // namespace gemm::peak::loops
