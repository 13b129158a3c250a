// The peak meter's timed loops, one file per instruction set (loop_<isa>.cpp, its own flags),
// called only where gemm::cpu says the CPU has it. Each runs `iterations` (> 0) passes over
// independent chains in inline assembly, which the compiler can neither fold nor drop, and
// returns the FLOPs it did (an FMA counts 2). Declarations only: nothing emitted into ISA files.
#pragma once

namespace gemm::peak::loops {

// The clock: `iterations` passes of 100 dependent register adds (an immediate's may be folded at
// rename), one cycle each; returns the adds. No ISA flags needed.
double add_chain(long iterations);

// x86-64
double scalar_fp32(long iterations); // mulss + addss: one lane (the scalar steps' ceiling)
double scalar_fp64(long iterations); // mulsd + addsd
double sse_fp32(long iterations);     // mulps + addps
double sse_fp64(long iterations);     // mulpd + addpd
double avx_fp32(long iterations);     // vmulps + vaddps, 256-bit
double avx_fp64(long iterations);
double avx2_fp32(long iterations);    // vfmadd231ps, 256-bit
double avx2_fp64(long iterations);
double avx512_fp32(long iterations);  // vfmadd231ps, 512-bit
double avx512_fp64(long iterations);

// AArch64 (scalar_fp32/fp64 there: fmadd on one lane)
double neon_fp32(long iterations);    // fmla .4s
double neon_fp64(long iterations);    // fmla .2d

}  // namespace gemm::peak::loops
