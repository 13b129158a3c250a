// NEON (AArch64 Advanced SIMD): 24 independent fused multiply-add chains,
// v0-v23 += v30 * v31. Cores with two 128-bit FMA pipes of latency 4 (Cortex-A76,
// Neoverse N1) need 8 in flight; four-pipe cores (Neoverse V1/V2) need 16.
#include "loops.hpp"

#define FMLA(t, r) "fmla v" #r "." t ", v30." t ", v31." t "\n\t"
#define FMLA_BODY(t)                                                                   \
    FMLA(t, 0) FMLA(t, 1) FMLA(t, 2) FMLA(t, 3) FMLA(t, 4) FMLA(t, 5) FMLA(t, 6)       \
    FMLA(t, 7) FMLA(t, 8) FMLA(t, 9) FMLA(t, 10) FMLA(t, 11) FMLA(t, 12) FMLA(t, 13)   \
    FMLA(t, 14) FMLA(t, 15) FMLA(t, 16) FMLA(t, 17) FMLA(t, 18) FMLA(t, 19)            \
    FMLA(t, 20) FMLA(t, 21) FMLA(t, 22) FMLA(t, 23)
#define ZERO_V(r) "movi v" #r ".16b, #0\n\t"
#define ZERO_V_ALL                                                                     \
    ZERO_V(0) ZERO_V(1) ZERO_V(2) ZERO_V(3) ZERO_V(4) ZERO_V(5) ZERO_V(6) ZERO_V(7)    \
    ZERO_V(8) ZERO_V(9) ZERO_V(10) ZERO_V(11) ZERO_V(12) ZERO_V(13) ZERO_V(14)         \
    ZERO_V(15) ZERO_V(16) ZERO_V(17) ZERO_V(18) ZERO_V(19) ZERO_V(20) ZERO_V(21)       \
    ZERO_V(22) ZERO_V(23)
#define CLOBBERS_V                                                                     \
    "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12",   \
    "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",       \
    "v30", "v31", "cc"

namespace gemm::peak::loops {

namespace {
constexpr int kChains = 24;
}

double neon_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;
    __asm__ volatile(
        "ld1r {v30.4s}, [%[one]]\n\t"
        "ld1r {v31.4s}, [%[tiny]]\n\t"
        ZERO_V_ALL
        "1:\n\t"
        FMLA_BODY("4s")
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "r"(&one), [tiny] "r"(&tiny), "m"(one), "m"(tiny)
        : CLOBBERS_V);
    return static_cast<double>(passes) * kChains * 4 * 2;   // 4 lanes, 2 FLOPs per FMA
}

double neon_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "ld1r {v30.2d}, [%[one]]\n\t"
        "ld1r {v31.2d}, [%[tiny]]\n\t"
        ZERO_V_ALL
        "1:\n\t"
        FMLA_BODY("2d")
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "r"(&one), [tiny] "r"(&tiny), "m"(one), "m"(tiny)
        : CLOBBERS_V);
    return static_cast<double>(passes) * kChains * 2 * 2;   // 2 lanes
}

// The scalar ceiling: the same chains on one lane (s0-s23 += s30 * s31), as the scalar
// steps compile on AArch64 (GCC contracts a * b + c into fmadd there).
#define FMADD(t, r) "fmadd " t #r ", " t "30, " t "31, " t #r "\n\t"
#define FMADD_BODY(t)                                                                  \
    FMADD(t, 0) FMADD(t, 1) FMADD(t, 2) FMADD(t, 3) FMADD(t, 4) FMADD(t, 5) FMADD(t, 6) \
    FMADD(t, 7) FMADD(t, 8) FMADD(t, 9) FMADD(t, 10) FMADD(t, 11) FMADD(t, 12)         \
    FMADD(t, 13) FMADD(t, 14) FMADD(t, 15) FMADD(t, 16) FMADD(t, 17) FMADD(t, 18)      \
    FMADD(t, 19) FMADD(t, 20) FMADD(t, 21) FMADD(t, 22) FMADD(t, 23)

double scalar_fp32(long iterations) {
    const long passes = iterations;
    const float one = 1.0f, tiny = 1e-7f;
    __asm__ volatile(
        "ld1r {v30.4s}, [%[one]]\n\t"
        "ld1r {v31.4s}, [%[tiny]]\n\t"
        ZERO_V_ALL
        "1:\n\t"
        FMADD_BODY("s")
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "r"(&one), [tiny] "r"(&tiny), "m"(one), "m"(tiny)
        : CLOBBERS_V);
    return static_cast<double>(passes) * kChains * 2;   // 1 lane, 2 FLOPs per FMA
}

double scalar_fp64(long iterations) {
    const long passes = iterations;
    const double one = 1.0, tiny = 1e-15;
    __asm__ volatile(
        "ld1r {v30.2d}, [%[one]]\n\t"
        "ld1r {v31.2d}, [%[tiny]]\n\t"
        ZERO_V_ALL
        "1:\n\t"
        FMADD_BODY("d")
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        : [n] "+r"(iterations)
        : [one] "r"(&one), [tiny] "r"(&tiny), "m"(one), "m"(tiny)
        : CLOBBERS_V);
    return static_cast<double>(passes) * kChains * 2;
}

}  // namespace gemm::peak::loops
