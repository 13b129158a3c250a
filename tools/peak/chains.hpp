// The shape every timed loop shares (loops.hpp). Macros, not templates: an asm template must be
// a string literal, and these expand to code only in the file using them, with its flags.
#pragma once

// M(x, r) for each chain register r.
#define PEAK_REGS8(M, x) M(x, 0) M(x, 1) M(x, 2) M(x, 3) M(x, 4) M(x, 5) M(x, 6) M(x, 7)
#define PEAK_REGS14(M, x) PEAK_REGS8(M, x) M(x, 8) M(x, 9) M(x, 10) M(x, 11) M(x, 12) M(x, 13)
#define PEAK_REGS16(M, x) PEAK_REGS14(M, x) M(x, 14) M(x, 15)
#define PEAK_REGS24(M, x)                                                                      \
    PEAK_REGS16(M, x) M(x, 16) M(x, 17) M(x, 18) M(x, 19) M(x, 20) M(x, 21) M(x, 22) M(x, 23)

#define PEAK_UNPAREN(...) __VA_ARGS__

#if defined(__x86_64__)
#define PEAK_NEXT_PASS "dec %[n]\n\tjnz 1b\n\t"
#define PEAK_OPERANDS [one] "m"(one), [tiny] "m"(tiny)
#define PEAK_XMM_CLOBBERS                                                                      \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",   \
    "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"
// The AVX loops' setup: one and tiny broadcast (b: ss, sd) to registers r##x and r##y.
#define PEAK_BROADCAST(b, r, x, y)                                                             \
    "vbroadcast" #b " %[one], %%" #r #x "\n\tvbroadcast" #b " %[tiny], %%" #r #y "\n\t"
#define PEAK_YMM_ZERO(_, r) "vxorps %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"
#elif defined(__aarch64__)
#define PEAK_NEXT_PASS "subs %[n], %[n], #1\n\tb.ne 1b\n\t"
#define PEAK_OPERANDS [one] "r"(&one), [tiny] "r"(&tiny), "m"(one), "m"(tiny)
#endif

// double name(long iterations): `setup` loads one and tiny and zeroes the chains, `pass` is one
// pass, `after` runs at the end. x += 1 * tiny (or x *= 1, x += tiny) stays normal: no denormals.
#define PEAK_LOOP(name, T, tiny_value, setup, pass, after, clobbers, flops_per_pass)            \
    double name(long iterations) {                                                             \
        const long passes = iterations;                                                        \
        const T one = 1, tiny = tiny_value;                                                    \
        __asm__ volatile(setup "1:\n\t" pass PEAK_NEXT_PASS after                              \
                         : [n] "+r"(iterations)                                                \
                         : PEAK_OPERANDS                                                       \
                         : PEAK_UNPAREN clobbers);                                             \
        return static_cast<double>(passes) * (flops_per_pass);                                 \
    }
