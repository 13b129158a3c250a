#define GEMM_REGISTRY_SOURCE  // part of the registry, not a step
#include <gemm/step.hpp>

#include <cstdio>
#include <cstdlib>

namespace gemm {

const Variant* detail::best_variant(const StepDef& def) {
    for (const Variant& v : def.variants)
        if (v.is_supported()) return &v;
    return nullptr;
}

void detail::run_best_variant(const StepDef& def, int m, int n, int k, const float* A, int lda,
                              const float* B, int ldb, float* C, int ldc) {
    const Variant* v = best_variant(def);
    if (v == nullptr) {   // callers check Step::supported first: a programming error
        std::fputs("gemm: no variant of this step runs on this CPU\n", stderr);
        std::abort();
    }
    v->kernel(m, n, k, A, lda, B, ldb, C, ldc);
}

const Variant* Step::best_variant() const { return detail::best_variant(*def); }

const Variant* Step::find_variant(std::string_view name) const {
    for (const Variant& v : def->variants)
        if (v.name == name) return &v;
    return nullptr;
}

const Param* Step::find_param(std::string_view name) const {
    for (const Param& p : def->params)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace gemm
