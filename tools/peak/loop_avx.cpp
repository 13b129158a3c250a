// AVX (no FMA): 256-bit multiplies and adds side by side, as in loop_sse.cpp but 8 fp32
// (4 fp64) lanes wide: 7 multiply chains (ymm0-6: x *= 1) and 7 add chains (ymm7-13:
// x += tiny). Three-operand forms, so no register copies sneak into the loop.
#include "loops.hpp"

#define AVX_ZERO(r) "vxorps %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"
#define AVX_PAIR(op_mul, op_add, m, a)                            \
    op_mul " %%ymm14, %%ymm" #m ", %%ymm" #m "\n\t"               \
    op_add " %%ymm15, %%ymm" #a ", %%ymm" #a "\n\t"
#define AVX_BODY(op_mul, op_add)                                                       \
    AVX_PAIR(op_mul, op_add, 0, 7) AVX_PAIR(op_mul, op_add, 1, 8)                      \
    AVX_PAIR(op_mul, op_add, 2, 9) AVX_PAIR(op_mul, op_add, 3, 10)                     \
    AVX_PAIR(op_mul, op_add, 4, 11) AVX_PAIR(op_mul, op_add, 5, 12)                    \
    AVX_PAIR(op_mul, op_add, 6, 13)
#define AVX_ZERO_ALL                                                                   \
    AVX_ZERO(0) AVX_ZERO(1) AVX_ZERO(2) AVX_ZERO(3) AVX_ZERO(4) AVX_ZERO(5) AVX_ZERO(6) \
    AVX_ZERO(7) AVX_ZERO(8) AVX_ZERO(9) AVX_ZERO(10) AVX_ZERO(11) AVX_ZERO(12) AVX_ZERO(13)
#define AVX_CLOBBERS                                                                   \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",    \
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

namespace gemm::peak::loops {

namespace {
constexpr int kChains = 14;
}

double avx_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;
    __asm__ volatile(
        "vbroadcastss %[one], %%ymm14\n\t"
        "vbroadcastss %[tiny], %%ymm15\n\t"
        AVX_ZERO_ALL
        "1:\n\t"
        AVX_BODY("vmulps", "vaddps")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vzeroupper\n\t"                     // no AVX-SSE transition penalty afterwards
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : AVX_CLOBBERS);
    return static_cast<double>(passes) * kChains * 8;   // 8 lanes, 1 FLOP per instruction
}

double avx_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "vbroadcastsd %[one], %%ymm14\n\t"
        "vbroadcastsd %[tiny], %%ymm15\n\t"
        AVX_ZERO_ALL
        "1:\n\t"
        AVX_BODY("vmulpd", "vaddpd")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vzeroupper\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : AVX_CLOBBERS);
    return static_cast<double>(passes) * kChains * 4;   // 4 lanes
}

}  // namespace gemm::peak::loops
