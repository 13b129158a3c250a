#define GEMM_BW_ISA generic
#define GEMM_BW_BYTES 16
#include "loops.inc"
