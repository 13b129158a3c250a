#define GEMM_BW_ISA neon
#define GEMM_BW_BYTES 16
#include "loops.inc"
