// NEON: 24 FMA chains, v0-v23 += v30 * v31 (four 128-bit pipes of latency 4 need 16 in flight).
#include "chains.hpp"
#include "loops.hpp"

#define FMLA(t, r) "fmla v" #r "." #t ", v30." #t ", v31." #t "\n\t"
// The scalar ceiling: the same chains on one lane, as GCC contracts the scalar steps into fmadd.
#define FMADD(t, r) "fmadd " #t #r ", " #t "30, " #t "31, " #t #r "\n\t"
#define V_ZERO(_, r) "movi v" #r ".16b, #0\n\t"
#define V_CLOBBERS                                                                             \
    "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",    \
    "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v30", "v31", "cc"
// t: the lanes the operands are loaded to (4s, 2d); op, s: the instruction and its shape.
#define NEON_LOOP(name, T, tiny, t, op, s, lanes)                                              \
    PEAK_LOOP(name, T, tiny,                                                                   \
              "ld1r {v30." #t "}, [%[one]]\n\tld1r {v31." #t "}, [%[tiny]]\n\t"                \
              PEAK_REGS24(V_ZERO, _),                                                          \
              PEAK_REGS24(op, s), "", (V_CLOBBERS), 24 * (lanes) * 2)   // 2 FLOPs per FMA

namespace gemm::peak::loops {

NEON_LOOP(neon_fp32, float, 1e-7f, 4s, FMLA, 4s, 4)
NEON_LOOP(neon_fp64, double, 1e-15, 2d, FMLA, 2d, 2)
NEON_LOOP(scalar_fp32, float, 1e-7f, 4s, FMADD, s, 1)
NEON_LOOP(scalar_fp64, double, 1e-15, 2d, FMADD, d, 1)

}  // namespace gemm::peak::loops
