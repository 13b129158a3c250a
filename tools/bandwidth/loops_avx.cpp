#define GEMM_BW_ISA avx
#define GEMM_BW_BYTES 32
#include "loops.inc"
