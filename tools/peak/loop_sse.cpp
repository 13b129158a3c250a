// SSE: no fused multiply-add, so the peak needs multiplies and adds issued side by side.
// 7 multiply chains (xmm0-6: x *= 1) and 7 add chains (xmm7-13: x += tiny), interleaved:
// a core with 2 multiply and 2 add pipes of latency 3 needs at least 2 x 3 = 6 of each
// in flight. The values stay normal (no denormal slow path) for any run length.
#include "loops.hpp"

#define SSE_ZERO(r) "xorps %%xmm" #r ", %%xmm" #r "\n\t"
#define SSE_PAIR(op_mul, op_add, m, a) \
    op_mul " %%xmm14, %%xmm" #m "\n\t" op_add " %%xmm15, %%xmm" #a "\n\t"
#define SSE_BODY(op_mul, op_add)                                                       \
    SSE_PAIR(op_mul, op_add, 0, 7) SSE_PAIR(op_mul, op_add, 1, 8)                      \
    SSE_PAIR(op_mul, op_add, 2, 9) SSE_PAIR(op_mul, op_add, 3, 10)                     \
    SSE_PAIR(op_mul, op_add, 4, 11) SSE_PAIR(op_mul, op_add, 5, 12)                    \
    SSE_PAIR(op_mul, op_add, 6, 13)
#define SSE_ZERO_ALL                                                                   \
    SSE_ZERO(0) SSE_ZERO(1) SSE_ZERO(2) SSE_ZERO(3) SSE_ZERO(4) SSE_ZERO(5) SSE_ZERO(6) \
    SSE_ZERO(7) SSE_ZERO(8) SSE_ZERO(9) SSE_ZERO(10) SSE_ZERO(11) SSE_ZERO(12) SSE_ZERO(13)
#define SSE_CLOBBERS                                                                   \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",    \
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

namespace gemm::peak::loops {

namespace {
constexpr int kChains = 14;
}

double sse_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;
    __asm__ volatile(
        "movss %[one], %%xmm14\n\t"
        "shufps $0, %%xmm14, %%xmm14\n\t"    // broadcast to the 4 lanes
        "movss %[tiny], %%xmm15\n\t"
        "shufps $0, %%xmm15, %%xmm15\n\t"
        SSE_ZERO_ALL
        "1:\n\t"
        SSE_BODY("mulps", "addps")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : SSE_CLOBBERS);
    return static_cast<double>(passes) * kChains * 4;   // 4 lanes, 1 FLOP per instruction
}

double sse_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "movsd %[one], %%xmm14\n\t"
        "unpcklpd %%xmm14, %%xmm14\n\t"      // broadcast to the 2 lanes
        "movsd %[tiny], %%xmm15\n\t"
        "unpcklpd %%xmm15, %%xmm15\n\t"
        SSE_ZERO_ALL
        "1:\n\t"
        SSE_BODY("mulpd", "addpd")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : SSE_CLOBBERS);
    return static_cast<double>(passes) * kChains * 2;   // 2 lanes, 1 FLOP per instruction
}

// The scalar ceiling: the same chains with the one-lane instructions the scalar steps use.
double scalar_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;
    __asm__ volatile(
        "movss %[one], %%xmm14\n\t"
        "movss %[tiny], %%xmm15\n\t"
        SSE_ZERO_ALL
        "1:\n\t"
        SSE_BODY("mulss", "addss")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : SSE_CLOBBERS);
    return static_cast<double>(passes) * kChains;   // 1 lane, 1 FLOP per instruction
}

double scalar_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "movsd %[one], %%xmm14\n\t"
        "movsd %[tiny], %%xmm15\n\t"
        SSE_ZERO_ALL
        "1:\n\t"
        SSE_BODY("mulsd", "addsd")
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "m"(one), [tiny] "m"(tiny)
        : SSE_CLOBBERS);
    return static_cast<double>(passes) * kChains;
}

}  // namespace gemm::peak::loops
