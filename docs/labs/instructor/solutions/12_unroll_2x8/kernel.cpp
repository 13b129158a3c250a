// Lab 1, task 2: a 2 x 8 block of C per call, its 16 sums in registers. Per step of p: two
// elements of A (a column of the 2-row sliver), eight of B (a row of the 8-column sliver),
// 16 multiply-adds: 10 loads for 16, where step 04's 4 x 4 block did 8 loads for 16. The
// same number of independent sums (16) as step 04, and 2 + 8 + 16 = 26 values live, against
// 4 + 4 + 16 = 24 for 4 x 4. The leftover rows (m odd) go through a 1 x 8 kernel; the
// leftover columns (n % 8) through step 04's code, unchanged.
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


// C(0, 0..7) += row 0 of A times columns 0..7 of B: the odd row left over when m is odd.
void add_dot_1x8(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    (void)lda;
    (void)ldc;
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0, c6 = 0, c7 = 0;
    const float* a = &A(0, 0);
    const float* b = &B(0, 0);
    for (int p = 0; p < k; ++p) {
        const float ap = *a++;
        c0 += ap * b[0];  c1 += ap * b[1];  c2 += ap * b[2];  c3 += ap * b[3];
        c4 += ap * b[4];  c5 += ap * b[5];  c6 += ap * b[6];  c7 += ap * b[7];
        b += ldb;
    }
    C(0, 0) += c0;  C(0, 1) += c1;  C(0, 2) += c2;  C(0, 3) += c3;
    C(0, 4) += c4;  C(0, 5) += c5;  C(0, 6) += c6;  C(0, 7) += c7;
}

// C(0..1, 0..7) += rows 0..1 of A times columns 0..7 of B, all 16 sums in registers.
void add_dot_2x8(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    float c00 = 0, c01 = 0, c02 = 0, c03 = 0, c04 = 0, c05 = 0, c06 = 0, c07 = 0;
    float c10 = 0, c11 = 0, c12 = 0, c13 = 0, c14 = 0, c15 = 0, c16 = 0, c17 = 0;
    const float *a0 = &A(0, 0), *a1 = &A(1, 0);
    const float* b = &B(0, 0);
    for (int p = 0; p < k; ++p) {
        const float a0p = *a0++, a1p = *a1++;
        const float b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], b5 = b[5], b6 = b[6], b7 = b[7];
        b += ldb;
        c00 += a0p * b0;  c01 += a0p * b1;  c02 += a0p * b2;  c03 += a0p * b3;
        c04 += a0p * b4;  c05 += a0p * b5;  c06 += a0p * b6;  c07 += a0p * b7;
        c10 += a1p * b0;  c11 += a1p * b1;  c12 += a1p * b2;  c13 += a1p * b3;
        c14 += a1p * b4;  c15 += a1p * b5;  c16 += a1p * b6;  c17 += a1p * b7;
    }
    C(0, 0) += c00;  C(0, 1) += c01;  C(0, 2) += c02;  C(0, 3) += c03;
    C(0, 4) += c04;  C(0, 5) += c05;  C(0, 6) += c06;  C(0, 7) += c07;
    C(1, 0) += c10;  C(1, 1) += c11;  C(1, 2) += c12;  C(1, 3) += c13;
    C(1, 4) += c14;  C(1, 5) += c15;  C(1, 6) += c16;  C(1, 7) += c17;
}

// Step 04 whole, for the columns left over.
void unroll_4x4(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
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

void unroll_2x8(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const int m2 = m - m % 2, n8 = n - n % 8;
    for (int j = 0; j < n8; j += 8) {
        for (int i = 0; i < m2; i += 2)
            add_dot_2x8(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
        if (m2 < m)                    // the last row when m is odd
            add_dot_1x8(k, &A(m2, 0), lda, &B(0, j), ldb, &C(m2, j), ldc);
    }
    if (n8 < n)                        // the last n % 8 columns: step 04's kernels
        unroll_4x4(m, n - n8, k, A, lda, &B(0, n8), ldb, &C(0, n8), ldc);
}

constexpr gemm::Variant variants[] = {{"scalar", unroll_2x8}};

}  // namespace

GEMM_STEP({.variants = variants})
