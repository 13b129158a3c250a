// AVX-512F: 16 independent fused multiply-add chains, zmm0-15 += zmm30 * zmm31.
// Two 512-bit FMA units of latency 4 (Intel server cores) need 8 chains in flight; Zen 4
// runs each 512-bit FMA as two halves on its two 256-bit pipes and needs fewer. Zeroing
// uses vpxord (vxorps on zmm needs AVX512DQ, which this file must not assume).
#include "loops.hpp"

#define FMA512(op, r) op " %%zmm30, %%zmm31, %%zmm" #r "\n\t"
#define FMA512_BODY(op)                                                                \
    FMA512(op, 0) FMA512(op, 1) FMA512(op, 2) FMA512(op, 3) FMA512(op, 4)              \
    FMA512(op, 5) FMA512(op, 6) FMA512(op, 7) FMA512(op, 8) FMA512(op, 9)              \
    FMA512(op, 10) FMA512(op, 11) FMA512(op, 12) FMA512(op, 13) FMA512(op, 14)         \
    FMA512(op, 15)
#define ZERO512(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"
#define ZERO512_ALL                                                                    \
    ZERO512(0) ZERO512(1) ZERO512(2) ZERO512(3) ZERO512(4) ZERO512(5) ZERO512(6)       \
    ZERO512(7) ZERO512(8) ZERO512(9) ZERO512(10) ZERO512(11) ZERO512(12) ZERO512(13)   \
    ZERO512(14) ZERO512(15)
#define CLOBBERS512                                                                    \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",    \
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm30", "xmm31", "cc"

namespace gemm::peak::loops {

namespace {
constexpr int kChains = 16;
}

double avx512_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;
    __asm__ volatile(
        "vbroadcastss %[one], %%zmm30\n\t"
        "vbroadcastss %[tiny], %%zmm31\n\t"
        ZERO512_ALL
        "1:\n\t"
        FMA512_BODY("vfmadd231ps")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vzeroupper\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : CLOBBERS512);
    return static_cast<double>(passes) * kChains * 16 * 2;   // 16 lanes, 2 FLOPs per FMA
}

double avx512_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "vbroadcastsd %[one], %%zmm30\n\t"
        "vbroadcastsd %[tiny], %%zmm31\n\t"
        ZERO512_ALL
        "1:\n\t"
        FMA512_BODY("vfmadd231pd")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vzeroupper\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : CLOBBERS512);
    return static_cast<double>(passes) * kChains * 8 * 2;    // 8 lanes
}

}  // namespace gemm::peak::loops
