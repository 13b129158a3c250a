// The peak meter's clock (loops.hpp: add_chain): dependent integer adds, one a cycle, give the
// clock the core runs at now, turbo included; the OS gives a nominal or momentary figure.
#include "chains.hpp"
#include "loops.hpp"

#define ADD10(ins) ins ins ins ins ins ins ins ins ins ins
#define ADD100(ins) ADD10(ADD10(ins))
#if defined(__x86_64__)
#define ADD_STEP "add %[step], %[sum]\n\t"
#elif defined(__aarch64__)
#define ADD_STEP "add %[sum], %[sum], %[step]\n\t"
#endif

namespace gemm::peak::loops {

double add_chain(long iterations) {
    const long passes = iterations;
    long sum = 0;
    const long step = iterations | 1;   // a value the compiler cannot know
#if defined(ADD_STEP)
    __asm__ volatile("1:\n\t" ADD100(ADD_STEP) PEAK_NEXT_PASS
                     : [sum] "+r"(sum), [n] "+r"(iterations)
                     : [step] "r"(step)
                     : "cc");
#else
    for (long i = 0; i < 100 * passes; ++i) __asm__ volatile("" : "+r"(sum) : "r"(step));
#endif
    return static_cast<double>(passes) * 100;
}

}  // namespace gemm::peak::loops
