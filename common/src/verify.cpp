// Verification: C == C0 + A*B within a rounding bound, computed in double precision. A float dot
// product of length k, summed in any order, is within about k * 2^-24 * sum|a||b| of the exact
// value; (k + 2) * 2^-23 relative to |A||B| + |C0|, twice that, no correct kernel exceeds and a
// wrong element (a term dropped, a stale value, a padding value read) does.
#include <gemm/harness.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace gemm {
namespace {

struct Checker {
    int m, n, k;
    const float *A, *B, *C0, *C;
    int lda, ldb, ldc;
    double bound;
    CheckResult result;

    void compare(int i, int j, double ref, double scale) {
        const double got = C[static_cast<long>(i) * ldc + j];
        const double err = std::fabs(got - ref);
        const double rel = scale > 0 ? err / scale : (err == 0 ? 0.0 : INFINITY);
        if (rel > result.max_rel_err || std::isnan(rel)) result.max_rel_err = std::isnan(rel) ? INFINITY : rel;
        if (!(rel <= bound) && result.ok) {
            result.ok = false;
            char text[160];
            std::snprintf(text, sizeof text, "C(%d, %d) = %.9g, expected %.9g (relative error %.2e > %.2e)",
                          i, j, got, ref, rel, bound);
            result.first_problem = text;
        }
    }

    // Row i of C against C0 + A*B, every column.
    void check_row(int i, std::vector<double>& ref, std::vector<double>& mag) {
        const float* a = A + static_cast<long>(i) * lda;
        const float* c0 = C0 + static_cast<long>(i) * ldc;
        for (int j = 0; j < n; ++j) {
            ref[j] = c0[j];
            mag[j] = std::fabs(c0[j]);
        }
        for (int p = 0; p < k; ++p) {
            const double ap = a[p];
            const double abs_ap = std::fabs(ap);
            const float* b = B + static_cast<long>(p) * ldb;
            for (int j = 0; j < n; ++j) {
                ref[j] += ap * b[j];
                mag[j] += abs_ap * std::fabs(static_cast<double>(b[j]));
            }
        }
        for (int j = 0; j < n; ++j) compare(i, j, ref[j], mag[j]);
    }

    // Column j of C against C0 + A*B, every row.
    void check_column(int j, std::vector<double>& b) {
        for (int p = 0; p < k; ++p) b[p] = B[static_cast<long>(p) * ldb + j];
        for (int i = 0; i < m; ++i) {
            const float* a = A + static_cast<long>(i) * lda;
            const double c0 = C0[static_cast<long>(i) * ldc + j];
            double ref = c0, mag = std::fabs(c0);
            for (int p = 0; p < k; ++p) {
                ref += a[p] * b[p];
                mag += std::fabs(a[p] * b[p]);
            }
            compare(i, j, ref, mag);
        }
    }

    // Every row sum and column sum of C - C0 against A*B's, with the summed bounds.
    void check_sums() {
        std::vector<double> b_rowsum(k, 0.0), b_absrowsum(k, 0.0);   // B * 1, |B| * 1
        for (int p = 0; p < k; ++p)
            for (int j = 0; j < n; ++j) {
                const double v = B[static_cast<long>(p) * ldb + j];
                b_rowsum[p] += v;
                b_absrowsum[p] += std::fabs(v);
            }
        std::vector<double> col_got(n, 0.0), col_c0mag(n, 0.0);
        std::vector<double> a_colsum(k, 0.0), a_abscolsum(k, 0.0);   // 1^T A, 1^T |A|
        for (int i = 0; i < m && result.ok; ++i) {
            const float* a = A + static_cast<long>(i) * lda;
            const float* c = C + static_cast<long>(i) * ldc;
            const float* c0 = C0 + static_cast<long>(i) * ldc;
            double ref = 0, mag = 0, got = 0;
            for (int p = 0; p < k; ++p) {
                ref += a[p] * b_rowsum[p];
                mag += std::fabs(a[p]) * b_absrowsum[p];
                a_colsum[p] += a[p];
                a_abscolsum[p] += std::fabs(a[p]);
            }
            for (int j = 0; j < n; ++j) {
                const double d = static_cast<double>(c[j]) - c0[j];
                got += d;
                col_got[j] += d;
                mag += std::fabs(c0[j]);
                col_c0mag[j] += std::fabs(c0[j]);
            }
            sum_check("row", i, got, ref, mag);
        }
        for (int j = 0; j < n && result.ok; ++j) {
            double ref = 0, mag = col_c0mag[j];
            for (int p = 0; p < k; ++p) {
                const double v = B[static_cast<long>(p) * ldb + j];
                ref += a_colsum[p] * v;
                mag += a_abscolsum[p] * std::fabs(v);
            }
            sum_check("column", j, col_got[j], ref, mag);
        }
    }

    void sum_check(const char* what, int index, double got, double ref, double mag) {
        // Sums of C - C0 also carry the rounding of each C element against C0, hence + 1.
        if (std::fabs(got - ref) <= (bound + 0x1p-23) * mag) return;
        result.ok = false;
        char text[160];
        std::snprintf(text, sizeof text, "the sum of %s %d of C - C0 is %.9g, expected %.9g", what, index, got, ref);
        result.first_problem = text;
    }
};

// The first index, 16 spread evenly over [1, size - last) and the last `last`, each once.
std::vector<int> sample_indices(int size, int last) {
    std::vector<int> out = {0};
    const int spread = size - last - 1;   // how many indices lie between the first and the last ones
    for (int t = 0; t < 16 && spread > 0; ++t)
        out.push_back(1 + static_cast<int>(static_cast<long>(spread) * t / 16));
    for (int i = std::max(0, size - last); i < size; ++i) out.push_back(i);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace

CheckResult check_result(int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                         const float* C0, const float* C, int ldc, bool force_full) {
    Checker ck{m, n, k, A, B, C0, C, lda, ldb, ldc, (k + 2) * 0x1p-23, {}};
    ck.result.tolerance = ck.bound;

    // NaN or Inf anywhere fails, whatever else is sampled.
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            const float v = C[static_cast<long>(i) * ldc + j];
            if (!std::isfinite(v)) {
                char text[96];
                std::snprintf(text, sizeof text, "C(%d, %d) = %g", i, j, static_cast<double>(v));
                ck.result.ok = false;
                ck.result.max_rel_err = INFINITY;
                ck.result.first_problem = text;
                return ck.result;
            }
        }

    std::vector<double> ref(n), mag(n), column(k);
    const bool full = force_full || static_cast<double>(m) * n * k <= kFullCheckLimit;
    if (full) {
        for (int i = 0; i < m; ++i) ck.check_row(i, ref, mag);
        return ck.result;
    }
    ck.result.sampled = true;
    for (int i : sample_indices(m, 16)) ck.check_row(i, ref, mag);
    for (int j : sample_indices(n, 33)) ck.check_column(j, column);
    if (ck.result.ok) ck.check_sums();
    return ck.result;
}

}  // namespace gemm
