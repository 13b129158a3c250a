// AVX2 + FMA: 14 FMA chains, ymm0-13 += ymm14 * ymm15; two pipes of latency 4 need 8 in flight.
#include "chains.hpp"
#include "loops.hpp"

#define FMA256(s, r) "vfmadd231" #s " %%ymm14, %%ymm15, %%ymm" #r "\n\t"
#define AVX2_LOOP(name, T, tiny, b, s, lanes)                                                  \
    PEAK_LOOP(name, T, tiny, PEAK_BROADCAST(b, ymm, 14, 15) PEAK_REGS14(PEAK_YMM_ZERO, _),     \
              PEAK_REGS14(FMA256, s), "vzeroupper\n\t", (PEAK_XMM_CLOBBERS), 14 * (lanes) * 2)

namespace gemm::peak::loops {

AVX2_LOOP(avx2_fp32, float, 1e-7f, ss, ps, 8)   // 2 FLOPs per FMA
AVX2_LOOP(avx2_fp64, double, 1e-15, sd, pd, 4)

}  // namespace gemm::peak::loops
