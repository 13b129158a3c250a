// Every registered step, every variant this CPU supports, on every awkward shape. Written
// over the registry, so a new step (or a lab step from tools/new_step.sh) is covered with no
// new test.
#include "kernel_check.hpp"

#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

using gemm::test::awkward_shapes;
using gemm::test::check_kernel;
using gemm::test::describe;

namespace {

// GEMM_TEST_STEPS=10,11 limits the step tests to those step numbers (tools/grade.sh uses it).
bool selected(const gemm::Step& step) {
    const char* env = std::getenv("GEMM_TEST_STEPS");
    if (env == nullptr || *env == '\0') return true;
    for (const char* p = env; *p != '\0';) {
        char* end = nullptr;
        const long number = std::strtol(p, &end, 10);
        if (end == p) return false;   // not a list of numbers: select nothing, visibly
        if (number == step.number) return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}

// `tuning`: the step's params as a run would take them (none set: the defaults).
void check_all_shapes(const gemm::test::Tuning& tuning, const gemm::Variant& variant, const std::string& context) {
    for (const auto& shape : awkward_shapes()) {
        INFO("step " << tuning.step.slug << ", kernel " << variant.name << context << ", " << describe(shape));
        CHECK(check_kernel(tuning.kernel(variant), shape) == "");
    }
}
void check_all_shapes(const gemm::Step& step, const gemm::Variant& variant, const std::string& context) {
    const gemm::test::Tuning defaults(step);
    check_all_shapes(defaults, variant, context);
}

// Runs f with every tunable parameter of the step set to value, then restores the defaults.
template <class F>
void with_params(const gemm::Step& step, int value, F f) {
    gemm::test::Tuning tuning(step);
    tuning.set_all(value);
    f(tuning);
}

}  // namespace

TEST_CASE("the registry lists the lessons in order - each with a runnable kernel", "[registry]") {
    const auto& steps = gemm::steps();
    REQUIRE(!steps.empty());
    std::set<int> numbers;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const gemm::Step& s = steps[i];
        INFO("step " << s.slug);
        CHECK(numbers.insert(s.number).second);
        if (i > 0) CHECK(steps[i - 1].number < s.number);
        // The slug starts with the two-digit number: "05_simd_4x4" is step 5.
        REQUIRE(s.slug.size() > 3);
        CHECK(std::stoi(std::string(s.slug.substr(0, s.slug.find('_')))) == s.number);
        CHECK(s.kernel != nullptr);
        CHECK(s.supported != nullptr);
        REQUIRE(s.def != nullptr);
        CHECK(!s.def->variants.empty());
        // supported() agrees with the variants: true exactly when one of them runs here.
        CHECK(s.supported() == (s.best_variant() != nullptr));
    }
    CHECK(steps.front().number == 1);
    CHECK(steps.front().slug == "01_baseline");
}

TEST_CASE("every step is right on awkward shapes - through the registry's kernel", "[steps]") {
    for (const gemm::Step& step : gemm::steps()) {
        if (!selected(step)) continue;
        if (!step.supported()) {
            WARN("step " << step.slug << " is not supported on this CPU: not tested here");
            continue;
        }
        for (const auto& shape : awkward_shapes()) {
            INFO("step " << step.slug << ", " << describe(shape));
            CHECK(check_kernel(step.kernel, shape, 7) == "");
        }
    }
}

TEST_CASE("every variant this CPU supports is right on awkward shapes", "[steps][variants]") {
    for (const gemm::Step& step : gemm::steps())
        for (const gemm::Variant& variant : step.def->variants) {
            if (!selected(step)) break;
            if (!variant.is_supported()) {
                WARN("step " << step.slug << ": kernel " << variant.name << " needs " << variant.requirement
                             << ", which this CPU lacks: not tested here");
                continue;
            }
            check_all_shapes(step, variant, "");
        }
}

TEST_CASE("steps with block sizes are right with tiny and odd blocks", "[steps][params]") {
    // Small blocks make the block loops (and their edges) run many times on small shapes.
    for (const gemm::Step& step : gemm::steps()) {
        if (step.def->params.empty() || !selected(step)) continue;
        for (const gemm::Variant& variant : step.def->variants) {
            if (!variant.is_supported()) continue;
            for (const int value : {1, 5, 37}) {
                with_params(step, value, [&](const gemm::test::Tuning& tuning) {
                    for (const gemm::Param& p : step.def->params) {
                        INFO("step " << step.slug << ": --" << p.name << " " << value);
                        const std::optional<int> shown = gemm::shown_value(step, tuning.setting, p);
                        if (shown) CHECK(*shown > 0);   // none: it changes nothing on this CPU
                    }
                    check_all_shapes(tuning, variant, ", every block size set to " + std::to_string(value));
                });
            }
        }
    }
}

#if defined(_OPENMP)
TEST_CASE("parallel steps are right with 1 - 2 - 3 - 5 and 7 threads", "[steps][threads]") {
    const int before = omp_get_max_threads();
    for (const gemm::Step& step : gemm::steps()) {
        if (!step.def->parallel || !step.supported() || !selected(step)) continue;
        // A step that gives small products fewer threads must split even the test's shapes.
        gemm::test::Tuning least_work(step);
        if (step.find_param("min-kflops") != nullptr) least_work.set("min-kflops", 1);
        for (const int threads : {1, 2, 3, 5, 7}) {
            omp_set_num_threads(threads);
            for (const gemm::Variant& variant : step.def->variants)
                if (variant.is_supported())
                    check_all_shapes(least_work, variant, ", " + std::to_string(threads) + " threads");
            with_params(step, 5, [&](const gemm::test::Tuning& tuning) {
                check_all_shapes(tuning, *step.best_variant(),
                                 ", " + std::to_string(threads) + " threads, blocks of 5");
            });
        }
    }
    omp_set_num_threads(before);
}
#endif
