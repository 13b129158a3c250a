// Step 04: a 4x4 block of C per call, its 16 sums in registers. Per step of p we load four
// elements of A (a column of the 4-row sliver) and four of B (a row of the 4-column sliver)
// and do 16 multiply-adds: 8 loads for 16 multiply-adds, where the 1x4 kernel did 5 loads
// for 4. Each loaded value is reused four times from a register instead of from memory.
// Count the registers, though: 16 sums + 8 operands do not fit in x86-64's 16 xmm
// registers, and GCC keeps 9 of the sums on the stack (README: how to see it).
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

// Step 03's 1x4 kernel, for the rows left over when m is not a multiple of 4.
void add_dot_1x4(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    (void)lda;
    (void)ldc;
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    const float* a = &A(0, 0);
    const float* b = &B(0, 0);
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

// C(0..3, 0..3) += rows 0..3 of A times columns 0..3 of B, all 16 sums in registers.
// >>> kernel
void add_dot_4x4(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    float c00 = 0, c01 = 0, c02 = 0, c03 = 0;
    float c10 = 0, c11 = 0, c12 = 0, c13 = 0;
    float c20 = 0, c21 = 0, c22 = 0, c23 = 0;
    float c30 = 0, c31 = 0, c32 = 0, c33 = 0;
    const float *a0 = &A(0, 0), *a1 = &A(1, 0), *a2 = &A(2, 0), *a3 = &A(3, 0);
    const float* b = &B(0, 0);
    for (int p = 0; p < k; ++p) {
        const float a0p = *a0++, a1p = *a1++, a2p = *a2++, a3p = *a3++;
        const float b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
        b += ldb;
        c00 += a0p * b0;  c01 += a0p * b1;  c02 += a0p * b2;  c03 += a0p * b3;
        c10 += a1p * b0;  c11 += a1p * b1;  c12 += a1p * b2;  c13 += a1p * b3;
        c20 += a2p * b0;  c21 += a2p * b1;  c22 += a2p * b2;  c23 += a2p * b3;
        c30 += a3p * b0;  c31 += a3p * b1;  c32 += a3p * b2;  c33 += a3p * b3;
    }
    C(0, 0) += c00;  C(0, 1) += c01;  C(0, 2) += c02;  C(0, 3) += c03;
    C(1, 0) += c10;  C(1, 1) += c11;  C(1, 2) += c12;  C(1, 3) += c13;
    C(2, 0) += c20;  C(2, 1) += c21;  C(2, 2) += c22;  C(2, 3) += c23;
    C(3, 0) += c30;  C(3, 1) += c31;  C(3, 2) += c32;  C(3, 3) += c33;
}
// <<< kernel

void gemm_scalar(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const int m4 = m - m % 4, n4 = n - n % 4;
    for (int j = 0; j < n4; j += 4) {
        for (int i = 0; i < m4; i += 4)
            add_dot_4x4(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
        for (int i = m4; i < m; ++i)   // the last m % 4 rows, 1x4 at a time
            add_dot_1x4(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    }
    for (int j = n4; j < n; ++j)       // the last n % 4 columns, one element at a time
        for (int i = 0; i < m; ++i)
            add_dot(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j));
}

constexpr gemm::Variant variants[] = {{"scalar", gemm_scalar, nullptr, {}, 4, 4}};

}  // namespace

GEMM_STEP({.variants = variants})
