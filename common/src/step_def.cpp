#define GEMM_REGISTRY_SOURCE  // part of the registry, not a step
#include <gemm/step.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>

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

Setting make_setting(const Step& step, std::string_view variant, int threads, const ParamValues& given,
                     TunedParams* tuned) {
    Setting setting{variant, given, {}};
    if (step.def->tuned_params != nullptr) {
        TunedParams t = step.def->tuned_params(variant, threads);
        setting.tuned = t.values;
        if (tuned != nullptr) *tuned = std::move(t);
    }
    return setting;
}

std::optional<int> shown_value(const Step& step, const Setting& setting, const Param& p) {
    if (step.def->shown != nullptr) return step.def->shown(setting, p);
    if (!p.in_effect() || p.get == nullptr) return std::nullopt;
    return p.get();
}

int run_setting(const Step& step, const Setting& setting, int m, int n, int k, const float* A, int lda,
                const float* B, int ldb, float* C, int ldc) {
    if (step.def->run != nullptr) return step.def->run(setting, m, n, k, A, lda, B, ldb, C, ldc);
    const Variant* v = setting.variant.empty() ? step.best_variant() : step.find_variant(setting.variant);
    if (v == nullptr || !v->is_supported()) {   // callers choose a supported variant: a programming error
        std::fputs("gemm: this variant of the step does not run on this CPU\n", stderr);
        std::abort();
    }
    v->kernel(m, n, k, A, lda, B, ldb, C, ldc);
    return 0;
}

}  // namespace gemm
