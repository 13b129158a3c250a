// AVX2 + FMA: 14 independent fused multiply-add chains, ymm0-13 += ymm14 * ymm15.
// Two FMA pipes of latency 4 (Zen 4, Skylake) need at least 2 x 4 = 8 chains in flight;
// 14 leaves margin and keeps two registers for the operands.
#include "loops.hpp"

#define FMA256(op, r) op " %%ymm14, %%ymm15, %%ymm" #r "\n\t"
#define FMA256_BODY(op)                                                                \
    FMA256(op, 0) FMA256(op, 1) FMA256(op, 2) FMA256(op, 3) FMA256(op, 4)              \
    FMA256(op, 5) FMA256(op, 6) FMA256(op, 7) FMA256(op, 8) FMA256(op, 9)              \
    FMA256(op, 10) FMA256(op, 11) FMA256(op, 12) FMA256(op, 13)
#define ZERO256(r) "vxorps %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"
#define ZERO256_ALL                                                                    \
    ZERO256(0) ZERO256(1) ZERO256(2) ZERO256(3) ZERO256(4) ZERO256(5) ZERO256(6)       \
    ZERO256(7) ZERO256(8) ZERO256(9) ZERO256(10) ZERO256(11) ZERO256(12) ZERO256(13)
#define CLOBBERS256                                                                    \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",    \
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

namespace gemm::peak::loops {

namespace {
constexpr int kChains = 14;
}

double avx2_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;    // x += 1 * tiny: stays normal, never overflows
    __asm__ volatile(
        "vbroadcastss %[one], %%ymm14\n\t"
        "vbroadcastss %[tiny], %%ymm15\n\t"
        ZERO256_ALL
        "1:\n\t"
        FMA256_BODY("vfmadd231ps")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vzeroupper\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : CLOBBERS256);
    return static_cast<double>(passes) * kChains * 8 * 2;   // 8 lanes, 2 FLOPs per FMA
}

double avx2_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "vbroadcastsd %[one], %%ymm14\n\t"
        "vbroadcastsd %[tiny], %%ymm15\n\t"
        ZERO256_ALL
        "1:\n\t"
        FMA256_BODY("vfmadd231pd")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vzeroupper\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : CLOBBERS256);
    return static_cast<double>(passes) * kChains * 4 * 2;   // 4 lanes
}

}  // namespace gemm::peak::loops
