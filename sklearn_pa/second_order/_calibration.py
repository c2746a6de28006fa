"""The calibration of the confidence-weighted family's probabilities.

``predict_proba`` of CW, AROW and SCW reads a score ``m = mu . x`` and its
variance ``v = x^T Sigma x`` as a Gaussian margin; the functions here fit the
scale ``c`` of that variance and a noise ``s2`` to the margins of the latest
samples by maximum likelihood (``_BaseSecondOrder._fitted_calibration``) and
turn scores into probabilities.
"""

import numpy as np
from scipy.optimize import minimize
from scipy.special import ndtr

__all__ = [
    "CALIBRATION_SIZE",
    "MARGIN_BLOCKS",
    "PROGRESSIVE_DENSE",
    "PROGRESSIVE_REFIT",
    "fit_calibration",
    "gaussian_margin_proba",
]

#: Number of recent samples whose margins calibrate ``predict_proba``.
CALIBRATION_SIZE = 1000

#: Blocks the calibration record keeps before it joins them into one: a
#: stream of one-row calls copies the window once every ``MARGIN_BLOCKS``
#: calls, not at each.
MARGIN_BLOCKS = 64

#: Rows between two refits of the calibration in the probabilities of a
#: compiled progressive-validation pass, after a refit before each row
#: while fewer than ``PROGRESSIVE_DENSE`` margins are recorded, where each
#: new one moves it most (the per-sample loop refits it after every sample).
PROGRESSIVE_REFIT = 128
PROGRESSIVE_DENSE = 64


def fit_calibration(scores, var, idx, held_out):
    """``(c, s2, k)`` fitted to the margins ``scores`` / ``var`` of the
    samples of class indices ``idx`` (see
    ``_BaseSecondOrder._fitted_calibration``); ``c`` stays 1 unless
    ``held_out``."""
    # to float32 precision: batches that give the same model up to
    # rounding (another layout of the same rows) give the same fit
    largest = float(np.max(np.abs(scores)))
    k = 2.0 ** np.round(np.log2(largest)) if 0.0 < largest < np.inf else 1.0
    scores = _round_relative(scores / k)
    var = _round_relative(var / k / k)
    rows = np.arange(idx.shape[0])

    def nll(params):
        c, s2 = np.exp(params)
        with np.errstate(over="ignore", under="ignore"):
            proba = gaussian_margin_proba(scores, c * var, s2)
        return -np.mean(np.log(proba[rows, idx] + 1e-300))

    # start from the best noise alone, on a grid around the margins' scale
    scale = max(float(np.mean(np.square(scores))), 1e-12)
    grid = np.log(scale) + np.linspace(-8, 8, 33) * np.log(10)
    start = grid[int(np.argmin([nll((0.0, g)) for g in grid]))]
    result = minimize(
        nll,
        x0=np.array([0.0, start]),
        method="L-BFGS-B",
        options={"ftol": 1e-14, "gtol": 1e-10},
        bounds=[
            (-30.0, 30.0) if held_out else (0.0, 0.0),
            (np.log(scale) - 30.0, np.log(scale) + 30.0),
        ],
    )
    params = result.x if result.fun <= nll((0.0, start)) else (0.0, start)
    c, s2 = np.exp(params)
    if s2 < 1e-6 * scale:
        # a noise that changes no probability: the likelihood is flat
        # there and the optimiser stops anywhere; no noise
        s2 = 0.0
    return (float(c), float(s2), float(k))


def _round_relative(a, bits=24):
    """``a`` rounded to ``bits`` significant bits (float32's precision, in
    float64's range)."""
    mantissa, exponent = np.frexp(a)
    return np.ldexp(np.round(mantissa * 2.0**bits) / 2.0**bits, exponent)


def gaussian_margin_proba(scores, var, s2):
    """Class probabilities of Gaussian scores with extra noise ``s2``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        total = var + s2
        if scores.ndim == 2:
            total = total[:, None]
        z = np.where(total > 0, scores / np.sqrt(total), np.sign(scores) * np.inf)
    if scores.ndim == 1:
        p = ndtr(z)
        return np.column_stack([1.0 - p, p])
    z = np.where(np.isfinite(z), z, np.sign(z) * 1e300)
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=1, keepdims=True)
