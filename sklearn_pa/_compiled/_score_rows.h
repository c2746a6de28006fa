/*
 * Scores of one sparse or dense row against the feature-major weights of a
 * linear model: scores[k] = b[k] + sum_j x_j W[ind_j, k] for k in [c0, c1),
 * and the row's squared norm plus the intercept's, a^2 + sum_j x_j^2.
 *
 * This is the hottest loop of the first-order kernel: on text (20
 * Newsgroups, 20 classes) it is nine tenths of a fit.  Two versions compute
 * exactly the same numbers:
 *
 * - a portable one, written as plain C loops;
 * - on x86-64 with GCC or clang, an AVX2 one chosen at run time when the
 *   processor has AVX2.  It keeps up to 32 columns' sums in registers (one
 *   256-bit register per four columns) instead of in memory, and asks for
 *   the weights' rows further ahead.  Every column's sum is still formed as
 *   b[k], then + x_j * W[ind_j, k] for j in order, with a rounded product and
 *   a rounded sum (no fused multiply-add), so both versions give the same
 *   result to the last bit.
 *
 * pa_simd_available() says whether the AVX2 version can run here; the
 * callers pass `use_simd` so that tests can compare the two.
 */
#ifndef SKLEARN_PA_SCORE_ROWS_H
#define SKLEARN_PA_SCORE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PA_HAVE_AVX2_PATH 1
#include <immintrin.h>
#else
#define PA_HAVE_AVX2_PATH 0
#endif

/* how many non-zeros ahead each version asks for a row of W */
#define PA_SCORE_AHEAD 16
#define PA_PLAIN_AHEAD 10

static int pa_simd_available(void)
{
#if PA_HAVE_AVX2_PATH
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

/* Ask for every cache line of first[0 .. last - first]. */
static inline void pa_prefetch_span(const double *first, const double *last)
{
#if defined(__GNUC__) || defined(__clang__)
    const char *p = (const char *)first;
    const char *end = (const char *)last;
    for (; p <= end; p += 64) {
        __builtin_prefetch(p);
    }
    __builtin_prefetch(end);
#else
    (void)first;
    (void)last;
#endif
}

/* One definition per value type and index width: double or float values
 * (float64 or float32 rows, each value converted to a double as it is read,
 * so the sums are those of the float64 rows of the same values), int (int32
 * CSR) or long long (int64) indices. */
#define PA_DEFINE_SCORE_ROW(SUFFIX, VALUE_T, INDEX_T)                         \
static double pa_score_row_plain_##SUFFIX(                                    \
    const VALUE_T *row_data, const INDEX_T *row_ind, ptrdiff_t nnz,           \
    const double *W0, const double *b, ptrdiff_t K, ptrdiff_t c0,             \
    ptrdiff_t c1, double intercept_sq, double *scores)                        \
{                                                                             \
    ptrdiff_t j, k;                                                           \
    double sq = intercept_sq, xj;                                             \
    const double *wrow;                                                       \
    for (k = c0; k < c1; k++) {                                               \
        scores[k] = b[k];                                                     \
    }                                                                         \
    for (j = 0; j < nnz && j < PA_PLAIN_AHEAD; j++) {                         \
        wrow = W0 + (ptrdiff_t)row_ind[j] * K;                                \
        pa_prefetch_span(wrow + c0, wrow + c1 - 1);                           \
    }                                                                         \
    for (j = 0; j < nnz; j++) {                                               \
        if (j + PA_PLAIN_AHEAD < nnz) {                                       \
            wrow = W0 + (ptrdiff_t)row_ind[j + PA_PLAIN_AHEAD] * K;           \
            pa_prefetch_span(wrow + c0, wrow + c1 - 1);                       \
        }                                                                     \
        xj = row_data[j];                                                     \
        sq += xj * xj;                                                        \
        wrow = W0 + (ptrdiff_t)row_ind[j] * K;                                \
        for (k = c0; k < c1; k++) {                                           \
            scores[k] += xj * wrow[k];                                        \
        }                                                                     \
    }                                                                         \
    return sq;                                                                \
}                                                                             \
PA_DEFINE_SCORE_ROW_AVX2(SUFFIX, VALUE_T, INDEX_T)                            \
static inline double pa_score_row_##SUFFIX(                                   \
    const VALUE_T *row_data, const INDEX_T *row_ind, ptrdiff_t nnz,           \
    const double *W0, const double *b, ptrdiff_t K, ptrdiff_t c0,             \
    ptrdiff_t c1, double intercept_sq, double *scores, int use_simd)          \
{                                                                             \
    if (use_simd && c1 - c0 >= 4) {                                           \
        return pa_score_row_avx2_##SUFFIX(row_data, row_ind, nnz, W0, b, K,   \
                                          c0, c1, intercept_sq, scores);      \
    }                                                                         \
    return pa_score_row_plain_##SUFFIX(row_data, row_ind, nnz, W0, b, K, c0,  \
                                       c1, intercept_sq, scores);             \
}

#if PA_HAVE_AVX2_PATH
/* Columns [c0, c1) in chunks of at most 32: 8 registers of 4 sums, the last
 * one partly masked.  Within a chunk every non-zero adds x_j * W[ind_j, k]
 * to each column's register lane, in the order of j. */
#define PA_ACC(r)                                                             \
    case (r) + 1:                                                             \
        acc##r = _mm256_add_pd(                                               \
            acc##r, _mm256_mul_pd(xv, (r) == last                             \
                                  ? _mm256_maskload_pd(w + 4 * (r), tail)     \
                                  : _mm256_loadu_pd(w + 4 * (r))));
/* the same without a partial group (a chunk of a multiple of 4 columns, such
 * as 20 classes): no test of the last group per non-zero */
#define PA_ACC_FULL(r)                                                        \
    case (r) + 1:                                                             \
        acc##r = _mm256_add_pd(acc##r,                                        \
                               _mm256_mul_pd(xv, _mm256_loadu_pd(w + 4 * (r))));
/* the loop over the non-zeros of one chunk, with PA_ACC or PA_ACC_FULL */
#define PA_SCORE_LOOP(ACC)                                                    \
    for (j = 0; j < nnz; j++) {                                               \
        if (j + PA_SCORE_AHEAD < nnz) {                                       \
            w = W0 + (ptrdiff_t)row_ind[j + PA_SCORE_AHEAD] * K + start;      \
            pa_prefetch_span(w, w + width - 1);                               \
        }                                                                     \
        xv = _mm256_set1_pd(row_data[j]);                                     \
        w = W0 + (ptrdiff_t)row_ind[j] * K + start;                           \
        switch (n_regs) {                                                     \
            ACC(7) ACC(6) ACC(5) ACC(4) ACC(3) ACC(2) ACC(1) ACC(0)           \
            default: break;                                                   \
        }                                                                     \
    }
#define PA_DEFINE_SCORE_ROW_AVX2(SUFFIX, VALUE_T, INDEX_T)                    \
__attribute__((target("avx2")))                                               \
static double pa_score_row_avx2_##SUFFIX(                                     \
    const VALUE_T *row_data, const INDEX_T *row_ind, ptrdiff_t nnz,           \
    const double *W0, const double *b, ptrdiff_t K, ptrdiff_t c0,             \
    ptrdiff_t c1, double intercept_sq, double *scores)                        \
{                                                                             \
    ptrdiff_t j, start, width, n_regs, last, r;                               \
    double sq = intercept_sq, xj;                                             \
    const double *w;                                                          \
    __m256i tail;                                                             \
    __m256d xv, acc0, acc1, acc2, acc3, acc4, acc5, acc6, acc7;               \
    __m256d lanes[8];                                                         \
    for (j = 0; j < nnz; j++) {                                               \
        xj = row_data[j];                                                     \
        sq += xj * xj;                                                        \
    }                                                                         \
    for (start = c0; start < c1; start += 32) {                               \
        width = c1 - start < 32 ? c1 - start : 32;                            \
        n_regs = (width + 3) / 4;                                             \
        /* the register of a last, incomplete group of four (-1: none) */     \
        last = width % 4 ? n_regs - 1 : -1;                                   \
        tail = _mm256_setr_epi64x(-1, width % 4 > 1 ? -1 : 0,                 \
                                  width % 4 > 2 ? -1 : 0, 0);                 \
        for (r = 0; r < 8; r++) {                                             \
            lanes[r] = r >= n_regs ? _mm256_setzero_pd()                      \
                       : r == last ? _mm256_maskload_pd(b + start + 4 * r,    \
                                                        tail)                 \
                       : _mm256_loadu_pd(b + start + 4 * r);                  \
        }                                                                     \
        acc0 = lanes[0]; acc1 = lanes[1]; acc2 = lanes[2]; acc3 = lanes[3];   \
        acc4 = lanes[4]; acc5 = lanes[5]; acc6 = lanes[6]; acc7 = lanes[7];   \
        for (j = 0; j < nnz && j < PA_SCORE_AHEAD; j++) {                     \
            w = W0 + (ptrdiff_t)row_ind[j] * K + start;                       \
            pa_prefetch_span(w, w + width - 1);                               \
        }                                                                     \
        if (last < 0) {                                                       \
            PA_SCORE_LOOP(PA_ACC_FULL)                                        \
        } else {                                                              \
            PA_SCORE_LOOP(PA_ACC)                                             \
        }                                                                     \
        lanes[0] = acc0; lanes[1] = acc1; lanes[2] = acc2; lanes[3] = acc3;   \
        lanes[4] = acc4; lanes[5] = acc5; lanes[6] = acc6; lanes[7] = acc7;   \
        for (r = 0; r < n_regs; r++) {                                        \
            if (r == last) {                                                  \
                _mm256_maskstore_pd(scores + start + 4 * r, tail, lanes[r]);  \
            } else {                                                          \
                _mm256_storeu_pd(scores + start + 4 * r, lanes[r]);           \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    return sq;                                                                \
}
#else
#define PA_DEFINE_SCORE_ROW_AVX2(SUFFIX, VALUE_T, INDEX_T)                    \
static double pa_score_row_avx2_##SUFFIX(                                     \
    const VALUE_T *row_data, const INDEX_T *row_ind, ptrdiff_t nnz,           \
    const double *W0, const double *b, ptrdiff_t K, ptrdiff_t c0,             \
    ptrdiff_t c1, double intercept_sq, double *scores)                        \
{                                                                             \
    return pa_score_row_plain_##SUFFIX(row_data, row_ind, nnz, W0, b, K, c0,  \
                                       c1, intercept_sq, scores);             \
}
#endif

PA_DEFINE_SCORE_ROW(i32, double, int)
PA_DEFINE_SCORE_ROW(i64, double, long long)
PA_DEFINE_SCORE_ROW(f32_i32, float, int)
PA_DEFINE_SCORE_ROW(f32_i64, float, long long)

#endif
