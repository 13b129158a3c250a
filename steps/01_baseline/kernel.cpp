// Step 01: the textbook triple loop. Each element of C is one dot product of a row of A
// with a column of B. Walking down a column of B jumps ldb floats at every step, so for
// large matrices nearly every load of B misses the cache.
#include <gemm/step.hpp>

#define A(i, p) A[(i) * lda + (p)]
#define B(p, j) B[(p) * ldb + (j)]
#define C(i, j) C[(i) * ldc + (j)]

namespace {

// C(i, j) += the dot product of row i of A with column j of B.
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

constexpr gemm::Variant variants[] = {{"scalar", gemm_scalar}};

}  // namespace

GEMM_STEP({.variants = variants})
