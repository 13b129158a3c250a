#define GEMM_BW_ISA sse
#define GEMM_BW_BYTES 16
#include "loops.inc"
