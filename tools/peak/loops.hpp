// The timed loops of the peak meter, one file per instruction set (loop_<isa>.cpp), each
// compiled with that set's flags and called only after gemm::cpu says the CPU has it.
//
// Every loop runs `iterations` (> 0) passes over many independent accumulator chains in
// inline assembly, so the compiler can neither fold the arithmetic nor drop it, and
// returns the floating-point operations it performed (a fused multiply-add counts 2).
// Declarations only: nothing here may be emitted into the ISA files.
#pragma once

namespace gemm::peak::loops {

// The clock: `iterations` passes of 100 dependent register-to-register integer adds, one
// cycle each on every core we know (an add of an immediate can be folded at rename on some
// cores, so the chain adds a register). Returns the number of adds. No ISA flags needed.
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
