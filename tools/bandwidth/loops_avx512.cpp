#define GEMM_BW_ISA avx512
#define GEMM_BW_BYTES 64
#include "loops.inc"
