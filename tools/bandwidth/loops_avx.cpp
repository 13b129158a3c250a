// The bandwidth loops with 32-byte vectors (avx); compiled with that ISA's flags.
#define GEMM_BW_ISA avx
#define GEMM_BW_BYTES 32
#include "loops.inc"
