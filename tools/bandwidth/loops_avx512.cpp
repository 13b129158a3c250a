// The bandwidth loops with 64-byte vectors (avx512); compiled with that ISA's flags.
#define GEMM_BW_ISA avx512
#define GEMM_BW_BYTES 64
#include "loops.inc"
