// A BLAS library's sgemm run through the harness: C = 1 * A * B + 1 * C, row-major, which is
// exactly the kernel contract. Built once per library (GEMM_REF_OPENBLAS or GEMM_REF_BLIS).
#include <gemm/cpu.hpp>
#include <gemm/harness.hpp>

#include <algorithm>

#if defined(GEMM_REF_OPENBLAS)
#include <cblas.h>
#define GEMM_REF_NAME "ref_openblas"
#define GEMM_REF_VARIANT "openblas"
static void set_threads(int n) { openblas_set_num_threads(n); }
// OpenBLAS maps a 128 MiB buffer for each thread of its pool (sized to the CPUs at start-up)
// at the first call, and under a limit on address space spins forever when it cannot.
static unsigned long long library_bytes(int threads) {
    return (128ULL << 20) * static_cast<unsigned long long>(std::max(threads, gemm::cpu::cores()));
}
#elif defined(GEMM_REF_BLIS)
#include <blis.h>
#include <cblas.h>
#define GEMM_REF_NAME "ref_blis"
#define GEMM_REF_VARIANT "blis"
static void set_threads(int n) { bli_thread_set_num_threads(n); }
constexpr unsigned long long (*library_bytes)(int) = nullptr;   // small pools: the threads' own maps
#else
#error "define GEMM_REF_OPENBLAS or GEMM_REF_BLIS"
#endif

namespace {

void sgemm(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    // BLAS wants lda >= 1 even when a dimension is 0; the contract allows lda = k = 0.
    if (m == 0 || n == 0 || k == 0) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}

constexpr gemm::Variant variants[] = {{GEMM_REF_VARIANT, sgemm}};
constexpr gemm::StepDef def{.variants = variants, .library_bytes = library_bytes};

bool always() { return true; }

}  // namespace

int main(int argc, char** argv) {
    // Named like a step so the harness prints "ref_openblas", not "stepref_openblas".
    const gemm::Step step{0, GEMM_REF_NAME, sgemm, always, &def};
    return gemm::run_main(argc, argv, step, set_threads);
}
