// The bandwidth loops with 16-byte vectors (generic); compiled with that ISA's flags.
#define GEMM_BW_ISA generic
#define GEMM_BW_BYTES 16
#include "loops.inc"
