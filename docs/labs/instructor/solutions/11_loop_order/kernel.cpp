// Lab 1, task 1: step 01's arithmetic in the i-p-j loop order. For each row i of C and each
// p, the whole row p of B, scaled by A(i, p), is added to row i of C:
//
//     C(i, 0..n-1) += A(i, p) * B(p, 0..n-1)
//
// The inner loop now walks B and C along their rows, one float after the other, so every
// byte of every cache line it loads is used, and its n multiply-adds are independent of each
// other (each goes to a different C(i, j)): no chain of dependent adds, unlike step 01's dot
// product. The price is that C(i, j) is loaded and stored once per p instead of kept in a
// register: 2 loads and 1 store per multiply-add.
#include <gemm/step.hpp>

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

namespace {

void loop_order(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < k; ++p) {
            const float aip = A(i, p);
            for (int j = 0; j < n; ++j)
                C(i, j) += aip * B(p, j);
        }
}

constexpr gemm::Variant variants[] = {{"scalar", loop_order}};

}  // namespace

GEMM_STEP({.variants = variants})
