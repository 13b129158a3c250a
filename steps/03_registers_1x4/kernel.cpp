// Step 03: the same 1x4 computation, but the four sums live in local variables (registers)
// and are added to C once at the end, A(0, p) is loaded once into a register, and pointers
// walk along A's row and down B instead of recomputing p * ldb + j for every element.
// In step 02 the compiler had to store C after every multiply-add and reload A(0, p) after
// each store: C might alias A or B. Local variables cannot.
#include <gemm/step.hpp>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

namespace {

void add_dot(int k, const float* A, int lda, const float* B, int ldb, float* gamma) {
    (void)lda;
    for (int p = 0; p < k; ++p)
        *gamma += A(0, p) * B(p, 0);
}

// C(0, 0..3) += row 0 of A times columns 0..3 of B, accumulated in registers.
// >>> kernel
void add_dot_1x4(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    (void)lda;
    (void)ldc;
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    const float* a = &A(0, 0);   // walks along the row of A
    const float* b = &B(0, 0);   // walks down B, one row (four columns) per step
    for (int p = 0; p < k; ++p) {
        const float ap = *a++;
        c0 += ap * b[0];
        c1 += ap * b[1];
        c2 += ap * b[2];
        c3 += ap * b[3];
        b += ldb;
    }
    C(0, 0) += c0;
    C(0, 1) += c1;
    C(0, 2) += c2;
    C(0, 3) += c3;
}
// <<< kernel

void gemm_scalar(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const int n4 = n - n % 4;
    for (int j = 0; j < n4; j += 4)
        for (int i = 0; i < m; ++i)
            add_dot_1x4(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    for (int j = n4; j < n; ++j)   // the last n % 4 columns, one at a time
        for (int i = 0; i < m; ++i)
            add_dot(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j));
}

constexpr gemm::Variant variants[] = {{"scalar", gemm_scalar, nullptr, {}, 1, 4}};

}  // namespace

GEMM_STEP({.variants = variants})
