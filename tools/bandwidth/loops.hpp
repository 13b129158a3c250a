// The bandwidth meter's loops, one source (loops.inc) per vector width (loops_<isa>.cpp), over
// 64-byte aligned arrays of a multiple of kChunk floats, `passes` times.
#pragma once

namespace gemm::bandwidth::loops {

constexpr long kChunk = 128;   // floats: 8 accumulators x 16 lanes, the widest unrolled step

#define GEMM_BANDWIDTH_LOOPS(isa)                                                   \
    namespace isa {                                                                 \
    float read(const float* x, long n, long passes);                                \
    void triad(float* a, const float* b, const float* c, float s, long n, long passes); \
    }
#if defined(__x86_64__) || defined(_M_X64)
GEMM_BANDWIDTH_LOOPS(sse)
GEMM_BANDWIDTH_LOOPS(avx)
GEMM_BANDWIDTH_LOOPS(avx512)
#elif defined(__aarch64__)
GEMM_BANDWIDTH_LOOPS(neon)
#else
GEMM_BANDWIDTH_LOOPS(generic)
#endif
#undef GEMM_BANDWIDTH_LOOPS

}  // namespace gemm::bandwidth::loops
