// The bandwidth loops with 16-byte vectors (sse); compiled with that ISA's flags.
#define GEMM_BW_ISA sse
#define GEMM_BW_BYTES 16
#include "loops.inc"
