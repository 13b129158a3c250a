// Lists the registry and runs every supported step on one small product, checked by hand.
#include <gemm/registry.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    const int m = 13, n = 17, k = 19;
    std::vector<float> A(m * k), B(k * n);
    for (int i = 0; i < m * k; ++i) A[i] = static_cast<float>(i % 7) - 3.0f;
    for (int i = 0; i < k * n; ++i) B[i] = static_cast<float>(i % 5) - 2.0f;
    int failures = 0, ran = 0;
    for (const gemm::Step& step : gemm::steps()) {
        if (!step.supported()) continue;
        std::vector<float> C(m * n, 1.0f);
        step.kernel(m, n, k, A.data(), k, B.data(), n, C.data(), n);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                float want = 1.0f;   // small integers: exact in float, whatever the order
                for (int p = 0; p < k; ++p) want += A[i * k + p] * B[p * n + j];
                if (C[i * n + j] != want) ++failures;
            }
        std::printf("%2d %-24.*s ok\n", step.number, static_cast<int>(step.slug.size()), step.slug.data());
        ++ran;
    }
    std::printf("%d steps ran, %d wrong elements\n", ran, failures);
    return failures == 0 && ran > 0 ? 0 : 1;
}
