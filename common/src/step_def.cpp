#define GEMM_REGISTRY_SOURCE  // part of the registry, not a step
#include <gemm/step.hpp>

#include <cstdio>
#include <cstdlib>
#include <span>
#include <utility>

namespace gemm {
namespace {

// Callers run only a supported variant (Step::supported, the harness): else a programming error.
void run_variant(const Variant* v, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc) {
    if (v == nullptr || !v->is_supported()) {
        std::fputs("gemm: no variant of this step that runs on this CPU was chosen\n", stderr);
        std::abort();
    }
    v->kernel(m, n, k, A, lda, B, ldb, C, ldc);
}

template <class Item>
const Item* find_named(std::span<const Item> items, std::string_view name) {
    for (const Item& item : items)
        if (item.name == name) return &item;
    return nullptr;
}

}  // namespace

const Variant* detail::best_variant(const StepDef& def) {
    for (const Variant& v : def.variants)
        if (v.is_supported()) return &v;
    return nullptr;
}

void detail::run_best_variant(const StepDef& def, int m, int n, int k, const float* A, int lda,
                              const float* B, int ldb, float* C, int ldc) {
    run_variant(best_variant(def), m, n, k, A, lda, B, ldb, C, ldc);
}

const Variant* Step::best_variant() const { return detail::best_variant(*def); }
const Variant* Step::find_variant(std::string_view name) const { return find_named(def->variants, name); }
const Param* Step::find_param(std::string_view name) const { return find_named(def->params, name); }

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
    run_variant(v, m, n, k, A, lda, B, ldb, C, ldc);
    return 0;
}

}  // namespace gemm
