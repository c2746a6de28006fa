# The scoring loop of ``_score_rows.h`` (plain C and AVX2, the same sums to
# the last bit), declared once for the kernels that score rows against
# feature-major weights: the first-order epoch and the lean path's
# ``_scores.score_rows``.  Float32 rows are read as doubles, value by value.

from ._dataset cimport index_t, value_t


cdef extern from "_score_rows.h":
    int pa_simd_available() noexcept nogil
    double pa_score_row_i32(
        const double *row_data, const int *row_ind, Py_ssize_t nnz,
        const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
        Py_ssize_t c1, double intercept_sq, double *scores, int use_simd,
    ) noexcept nogil
    double pa_score_row_i64(
        const double *row_data, const long long *row_ind, Py_ssize_t nnz,
        const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
        Py_ssize_t c1, double intercept_sq, double *scores, int use_simd,
    ) noexcept nogil
    double pa_score_row_f32_i32(
        const float *row_data, const int *row_ind, Py_ssize_t nnz,
        const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
        Py_ssize_t c1, double intercept_sq, double *scores, int use_simd,
    ) noexcept nogil
    double pa_score_row_f32_i64(
        const float *row_data, const long long *row_ind, Py_ssize_t nnz,
        const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
        Py_ssize_t c1, double intercept_sq, double *scores, int use_simd,
    ) noexcept nogil


cdef inline double score_row(
    const value_t *row_data, const index_t *row_ind, Py_ssize_t nnz,
    const double *W0, const double *b, Py_ssize_t K, Py_ssize_t c0,
    Py_ssize_t c1, double intercept_sq, double *scores, int use_simd,
) noexcept nogil:
    """``scores[c0:c1] = b + x . W``; returns ``||x||^2 + a^2``, with the
    AVX2 loop when ``use_simd``."""
    if value_t is double:
        if index_t is int:
            return pa_score_row_i32(row_data, row_ind, nnz, W0, b, K, c0, c1,
                                    intercept_sq, scores, use_simd)
        else:
            return pa_score_row_i64(row_data, row_ind, nnz, W0, b, K, c0, c1,
                                    intercept_sq, scores, use_simd)
    else:
        if index_t is int:
            return pa_score_row_f32_i32(row_data, row_ind, nnz, W0, b, K, c0,
                                        c1, intercept_sq, scores, use_simd)
        else:
            return pa_score_row_f32_i64(row_data, row_ind, nnz, W0, b, K, c0,
                                        c1, intercept_sq, scores, use_simd)
