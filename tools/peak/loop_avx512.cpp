// AVX-512F: 16 FMA chains, zmm0-15 += zmm30 * zmm31 (two units of latency 4 need 8 in flight).
// Zeroed with vpxord: vxorps on zmm needs AVX512DQ, which this file must not assume.
#include "chains.hpp"
#include "loops.hpp"

#define FMA512(s, r) "vfmadd231" #s " %%zmm30, %%zmm31, %%zmm" #r "\n\t"
#define ZMM_ZERO(_, r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define AVX512_LOOP(name, T, tiny, b, s, lanes)                                                \
    PEAK_LOOP(name, T, tiny, PEAK_BROADCAST(b, zmm, 30, 31) PEAK_REGS16(ZMM_ZERO, _),          \
              PEAK_REGS16(FMA512, s), "vzeroupper\n\t", (PEAK_XMM_CLOBBERS, "xmm30", "xmm31"),  \
              16 * (lanes) * 2)

namespace gemm::peak::loops {

AVX512_LOOP(avx512_fp32, float, 1e-7f, ss, ps, 16)   // 2 FLOPs per FMA
AVX512_LOOP(avx512_fp64, double, 1e-15, sd, pd, 8)

}  // namespace gemm::peak::loops
