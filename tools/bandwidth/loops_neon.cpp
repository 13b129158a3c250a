// The bandwidth loops with 16-byte vectors (neon); compiled with that ISA's flags.
#define GEMM_BW_ISA neon
#define GEMM_BW_BYTES 16
#include "loops.inc"
