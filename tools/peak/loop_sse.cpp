// SSE, no FMA: 7 multiply chains (xmm0-6: x *= 1) and 7 add chains (xmm7-13: x += tiny)
// interleaved; 2 multiply and 2 add pipes of latency 3 need 6 of each in flight.
#include "chains.hpp"
#include "loops.hpp"

// s: the instructions' suffix (ps, pd, ss, sd).
#define SSE_PAIR(s, m, a) "mul" #s " %%xmm14, %%xmm" #m "\n\tadd" #s " %%xmm15, %%xmm" #a "\n\t"
#define SSE_BODY(s)                                                                            \
    SSE_PAIR(s, 0, 7) SSE_PAIR(s, 1, 8) SSE_PAIR(s, 2, 9) SSE_PAIR(s, 3, 10) SSE_PAIR(s, 4, 11)  \
    SSE_PAIR(s, 5, 12) SSE_PAIR(s, 6, 13)
#define SSE_ZERO(_, r) "xorps %%xmm" #r ", %%xmm" #r "\n\t"
#define SSE_LOOP(name, T, tiny, load, s, lanes)                                                \
    PEAK_LOOP(name, T, tiny, load PEAK_REGS14(SSE_ZERO, _), SSE_BODY(s), "", (PEAK_XMM_CLOBBERS), \
              14 * (lanes))   // 1 FLOP per instruction

namespace gemm::peak::loops {

SSE_LOOP(sse_fp32, float, 1e-7f,
         "movss %[one], %%xmm14\n\tshufps $0, %%xmm14, %%xmm14\n\t"   // broadcast to the 4 lanes
         "movss %[tiny], %%xmm15\n\tshufps $0, %%xmm15, %%xmm15\n\t", ps, 4)
SSE_LOOP(sse_fp64, double, 1e-15,
         "movsd %[one], %%xmm14\n\tunpcklpd %%xmm14, %%xmm14\n\t"     // broadcast to the 2 lanes
         "movsd %[tiny], %%xmm15\n\tunpcklpd %%xmm15, %%xmm15\n\t", pd, 2)
// The scalar ceiling: the same chains with the one-lane instructions the scalar steps use.
SSE_LOOP(scalar_fp32, float, 1e-7f, "movss %[one], %%xmm14\n\tmovss %[tiny], %%xmm15\n\t", ss, 1)
SSE_LOOP(scalar_fp64, double, 1e-15, "movsd %[one], %%xmm14\n\tmovsd %[tiny], %%xmm15\n\t", sd, 1)

}  // namespace gemm::peak::loops
