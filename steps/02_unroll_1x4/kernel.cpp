// Step 02: compute four elements of C, C(i, j..j+3), in one call, and fuse their four
// dot-product loops into one. The four sums are four independent chains of adds where
// step 01 had one, and the four B elements of a step are neighbours in memory (one row of
// B), so the walk down B touches a quarter as many cache lines per flop as step 01's walk
// down one column. C is still written at every step, and since C might overlap A the
// compiler reloads A(i, p) after each of those stores (README: objdump shows both).
#include <gemm/step.hpp>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

namespace {

// C(i, j) += the dot product of row i of A with column j of B (step 01's routine, kept for
// the columns left over when n is not a multiple of 4).
void add_dot(int k, const float* A, int lda, const float* B, int ldb, float* gamma) {
    (void)lda;
    for (int p = 0; p < k; ++p)
        *gamma += A(0, p) * B(p, 0);
}

// C(0, 0..3) += row 0 of A times columns 0..3 of B: four dot products in one loop.
// >>> kernel
void add_dot_1x4(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    (void)lda;
    (void)ldc;
    for (int p = 0; p < k; ++p) {
        C(0, 0) += A(0, p) * B(p, 0);
        C(0, 1) += A(0, p) * B(p, 1);
        C(0, 2) += A(0, p) * B(p, 2);
        C(0, 3) += A(0, p) * B(p, 3);
    }
}
// <<< kernel

// >>> loops
void gemm_scalar(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const int n4 = n - n % 4;
    for (int j = 0; j < n4; j += 4)
        for (int i = 0; i < m; ++i)
            add_dot_1x4(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    for (int j = n4; j < n; ++j)   // the last n % 4 columns, one at a time
        for (int i = 0; i < m; ++i)
            add_dot(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j));
}
// <<< loops

constexpr gemm::Variant variants[] = {{"scalar", gemm_scalar, nullptr, {}, 1, 4}};

}  // namespace

GEMM_STEP({.variants = variants})
