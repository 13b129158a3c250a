// Step 01: the textbook triple loop. Each element of C is one dot product of a row of A
// with a column of B. Each step of the dot product waits for the add of the step before
// (one chain), and walking down a column of B jumps ldb floats, a new cache line for every
// element: the chain sets the pace up to n of about 1300, the caches beyond (README).
#include <gemm/step.hpp>

// Element (i, p) of row-major A, and so on. The offset is a long: i * lda passes the 2^31 an
// int holds as soon as a matrix has more than 2^31 elements, which fits in memory.
#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

namespace {

// C(i, j) += the dot product of row i of A with column j of B.
// >>> loops
void add_dot(int k, const float* A, int lda, const float* B, int ldb, float* gamma) {
    (void)lda;
    for (int p = 0; p < k; ++p)
        *gamma += A(0, p) * B(p, 0);
}

void gemm_scalar(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i)
            add_dot(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j));
}
// <<< loops

constexpr gemm::Variant variants[] = {{"scalar", gemm_scalar, nullptr, {}, 1, 1}};

}  // namespace

GEMM_STEP({.variants = variants})
