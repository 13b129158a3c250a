// Every step with a leading dimension whose row offsets need more than 32 bits: lda = ldb =
// ldc = 1.1e9, so row i starts 4.4 GB after row i-1. The matrices live in sparse mappings
// (MAP_NORESERVE): only the pages of the few rows used are ever touched.
#include "kernel_check.hpp"

#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include <sys/mman.h>

namespace {

// rows x cols floats with leading dimension ld, in a mapping that reserves no memory.
struct Sparse {
    float* data = nullptr;
    std::size_t bytes = 0;
    Sparse(int rows, int cols, long ld) {
        bytes = (static_cast<std::size_t>(rows - 1) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(cols)) *
                sizeof(float);
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        data = p == MAP_FAILED ? nullptr : static_cast<float*>(p);
    }
    ~Sparse() {
        if (data != nullptr) ::munmap(data, bytes);
    }
    Sparse(const Sparse&) = delete;
    Sparse& operator=(const Sparse&) = delete;
};

}  // namespace

TEST_CASE("every step is right with leading dimensions of 1.1e9 (offsets beyond 32 bits)", "[steps][huge]") {
    constexpr int ld = 1'100'000'000;
    constexpr int m = 6, n = 7, k = 5;   // a 4x4 block and leftovers in both directions
    for (const gemm::Step& step : gemm::steps()) {
        if (!step.supported()) continue;
        INFO("step " << step.slug);
        Sparse A(m, k, ld), B(k, n, ld), C(m, n, ld);
        if (A.data == nullptr || B.data == nullptr || C.data == nullptr) {
            WARN("cannot map 60 GB of sparse address space here (ulimit -v, or a 32-bit build?): skipped");
            return;
        }
        auto at = [](float* base, int row, int col) { return base + static_cast<std::ptrdiff_t>(row) * ld + col; };
        // Small integers: every partial sum is exact in float, so the result is, in any order.
        for (int i = 0; i < m; ++i)
            for (int p = 0; p < k; ++p) *at(A.data, i, p) = static_cast<float>((i * 3 + p) % 7 - 3);
        for (int p = 0; p < k; ++p)
            for (int j = 0; j < n; ++j) *at(B.data, p, j) = static_cast<float>((p * 5 + j) % 5 - 2);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) *at(C.data, i, j) = 1.0f;
        step.kernel(m, n, k, A.data, ld, B.data, ld, C.data, ld);
        int wrong = 0;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                float want = 1.0f;
                for (int p = 0; p < k; ++p) want += *at(A.data, i, p) * *at(B.data, p, j);
                if (*at(C.data, i, j) != want) ++wrong;
            }
        CHECK(wrong == 0);
    }
}
