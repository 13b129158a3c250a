// The main() of every step executable: the step's own entry, run by the shared harness.
#include <gemm/harness.hpp>
#include <gemm/numbers.hpp>
#include <gemm/step.hpp>

extern const gemm::StepEntry GEMM_STEP_ENTRY;

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    const gemm::Step step{GEMM_STEP_NUMBER, GEMM_STEP_SLUG, GEMM_STEP_ENTRY.kernel,
                          GEMM_STEP_ENTRY.supported, GEMM_STEP_ENTRY.def};
    if (step.def->parallel) gemm::short_openmp_spins(argv);
    return gemm::run_main(argc, argv, step);
}
