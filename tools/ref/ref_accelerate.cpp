// Apple's Accelerate (vecLib) sgemm through the harness, as ref_openblas runs OpenBLAS (macOS only).
// On Apple silicon it runs on the matrix unit, beyond NEON: the Mac's own best, not the steps' target.
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>
#include <gemm/registry.hpp>

#include <Accelerate/Accelerate.h>

#include <cstdlib>
#include <string>

namespace {

void sgemm(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    if (m == 0 || n == 0 || k == 0) return;   // BLAS wants lda >= 1 even when a dimension is 0
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}

bool always() { return true; }

// Not every macOS has a call to set Accelerate's threads: it reads VECLIB_MAXIMUM_THREADS, set
// here before the first call (whether it reads it then or at load is undocumented).
int threads_set = 1;
void set_threads(int n) {
    threads_set = n > 0 ? n : 1;
    setenv("VECLIB_MAXIMUM_THREADS", std::to_string(threads_set).c_str(), 1);
}
int get_threads() { return threads_set; }

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();
    static const gemm::Variant variants[] = {{"accelerate", sgemm}};
    static const gemm::StepDef def{.variants = variants};
    const gemm::Step step{0, "ref_accelerate", sgemm, always, &def};
    const gemm::ThreadControl threads{set_threads, get_threads};
    const std::string preface =
        "ref_accelerate: Apple Accelerate (vecLib) cblas_sgemm; on Apple silicon it runs on the matrix unit, "
        "beyond NEON: compare the NEON steps with ref_openblas\n";
    return gemm::finish_stdout("ref_accelerate", gemm::run_main(argc, argv, step, &threads, preface));
}
