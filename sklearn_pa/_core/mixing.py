"""Mixing the learned states of several copies of a model.

The arithmetic of iterative parameter mixing (:mod:`sklearn_pa.distributed`):
weighted averages of weight arrays and the combination of Gaussian
posteriors in information form (:func:`mix_gaussians`), used by the state
protocol (:mod:`sklearn_pa._core.state`).  Nothing here needs Dask.
"""

import numpy as np
import scipy.linalg

__all__ = ["mix_gaussians"]


def linear_mix(arrays, weights):
    """``sum_i weights[i] * arrays[i]``, summed in order (the first term
    alone, exactly, with one partition of weight 1)."""
    out = weights[0] * arrays[0]
    for w, a in zip(weights[1:], arrays[1:]):
        out = out + w * a
    return out


def _symmetric_from_upper(S):
    upper = np.triu(S)
    return upper + np.triu(upper, 1).T


def _check_gaussians(mean0, cov0, means, covs, diagonal):
    """The arguments of :func:`mix_gaussians` as float64 arrays, refused
    with a clear message unless every mean is finite and every covariance
    is a finite positive variance vector (``diagonal``) or a finite
    symmetric positive definite matrix of the right shape."""
    mean0 = np.asarray(mean0, dtype=np.float64)
    cov0 = np.asarray(cov0, dtype=np.float64)
    means = [np.asarray(m, dtype=np.float64) for m in means]
    covs = [np.asarray(c, dtype=np.float64) for c in covs]
    if len(means) == 0 or len(means) != len(covs):
        raise ValueError(
            f"mix_gaussians needs one covariance per mean and at least one "
            f"partition; got {len(means)} means and {len(covs)} covariances."
        )
    d = mean0.shape[0] if mean0.ndim else 0
    want_cov = (d,) if diagonal else (d, d)
    for name, arrays, shape in (
        ("mean", [mean0] + means, mean0.shape),
        ("covariance", [cov0] + covs, want_cov),
    ):
        for i, a in enumerate(arrays):
            which = "of the prior" if i == 0 else f"of partition {i - 1}"
            if mean0.ndim not in (1, 2) or a.shape != shape:
                raise ValueError(
                    f"The {name} {which} has shape {a.shape}; expected {shape} "
                    f"(the prior mean has shape {mean0.shape}, diagonal="
                    f"{diagonal})."
                )
            if not np.all(np.isfinite(a)):
                raise ValueError(f"The {name} {which} contains NaN or infinity.")
    for i, c in enumerate([cov0] + covs):
        which = "of the prior" if i == 0 else f"of partition {i - 1}"
        if diagonal:
            if np.any(c <= 0):
                raise ValueError(
                    f"The variances {which} must be positive (a zero variance "
                    "has no precision); got a minimum of "
                    f"{float(np.min(c)):g}."
                )
            continue
        scale = float(np.max(np.abs(c))) if c.size else 0.0
        if np.max(np.abs(c - c.T), initial=0.0) > 1e-8 * scale:
            raise ValueError(
                f"The covariance {which} is not symmetric; pass a symmetric "
                "positive definite matrix (e.g. 0.5 * (S + S.T))."
            )
        try:
            scipy.linalg.cho_factor(c, lower=False)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                f"The covariance {which} is not positive definite (it is "
                "singular or has a negative eigenvalue); a Gaussian posterior "
                "has a positive definite covariance."
            ) from exc
    return mean0, cov0, means, covs


def mix_gaussians(mean0, cov0, means, covs, *, diagonal):
    r"""Combine Gaussian posteriors that started from the same prior.

    Each of :math:`k` partitions started from the prior
    :math:`\mathcal{N}(\mu_0, \Sigma_0)` (``mean0``, ``cov0``) and moved it
    with its own, disjoint, data to :math:`\mathcal{N}(\mu_i, \Sigma_i)`
    (``means[i]``, ``covs[i]``).  In information form (precision
    :math:`P = \Sigma^{-1}`, information vector :math:`h = P \mu`) each
    partition *added* :math:`P_i - P_0` and :math:`h_i - h_0` to the prior; the
    combination adds every partition's gain once and counts the shared prior
    once:

    .. math::

        P = P_0 + \sum_i (P_i - P_0), \qquad
        h = h_0 + \sum_i (h_i - h_0), \qquad
        \mu = P^{-1} h

    (the product of the :math:`k` posteriors would count the prior :math:`k`
    times).  With one partition the result is that partition's Gaussian
    (returned as it is: the two inversions would lose
    :math:`\operatorname{cond}(\Sigma) \, \epsilon` of relative accuracy,
    :math:`\epsilon` the machine epsilon, which is also the accuracy of the
    combination of several partitions; full covariances of Confidence-Weighted
    models can reach condition numbers of :math:`10^{13}`).  A gain
    :math:`\sum_i (P_i - P_0)` that is not positive semi-definite in floating
    point is projected onto the positive semi-definite cone (negative variances
    gains clipped to zero, or negative eigenvalues for a full matrix), so
    the combined covariance is always symmetric positive definite.

    Parameters
    ----------
    mean0 : ndarray of shape (d,) or (d, m)
        Mean of the shared prior (``m`` columns sharing the covariance, as in
        a matrix-normal model).
    cov0 : ndarray of shape (d,) or (d, d)
        Its covariance: the variances (``diagonal=True``) or the full matrix.
    means : list of ndarray like ``mean0``
        The partitions' means.
    covs : list of ndarray like ``cov0``
        The partitions' covariances.
    diagonal : bool
        Whether the covariances are diagonal (given as vectors of variances).

    Returns
    -------
    mean : ndarray like ``mean0``
        The combined mean.
    cov : ndarray like ``cov0``
        The combined covariance (symmetric positive definite).

    Raises
    ------
    ValueError
        If a mean or covariance is not finite, has the wrong shape, or a
        covariance is not positive (zero variances) or, for full matrices,
        not symmetric positive definite.

    Examples
    --------
    Two partitions each halve the variance of a scalar weight that started
    at :math:`\mathcal{N}(0, 1)`: each gained a precision of 1, and
    information :math:`2 \cdot 1` and :math:`2 \cdot 3`; together, precision
    :math:`1 + 1 + 1 = 3` and information :math:`0 + 2 + 6 = 8`:

    >>> import numpy as np
    >>> from sklearn_pa.distributed import mix_gaussians
    >>> mean, var = mix_gaussians(
    ...     np.zeros(1), np.ones(1), [np.array([1.0]), np.array([3.0])],
    ...     [np.array([0.5]), np.array([0.5])], diagonal=True)
    >>> mean, var
    (array([2.66666667]), array([0.33333333]))
    """
    mean0, cov0, means, covs = _check_gaussians(mean0, cov0, means, covs, diagonal)
    k = len(means)
    if k == 1:
        # the formula's exact value; computing it would lose
        # cond(cov) * eps to the two inversions
        return np.array(means[0], dtype=np.float64), np.array(covs[0], dtype=np.float64)
    if diagonal:
        P0 = 1.0 / np.asarray(cov0, dtype=np.float64)
        Ps = [1.0 / np.asarray(c, dtype=np.float64) for c in covs]
        gain = np.maximum(sum(Ps) - k * P0, 0.0)
        P = P0 + gain

        def col(v):  # a precision vector against a mean of one or more columns
            return v if np.ndim(mean0) == 1 else v[:, None]

        h = (1 - k) * col(P0) * mean0
        for Pi, m in zip(Ps, means):
            h = h + col(Pi) * m
        return h / col(P), 1.0 / P
    cov0 = np.asarray(cov0, dtype=np.float64)
    d = cov0.shape[0]
    eye = np.eye(d)

    def precision(cov):
        factor = scipy.linalg.cho_factor(cov, lower=False, check_finite=True)
        P = scipy.linalg.cho_solve(factor, eye)
        return 0.5 * (P + P.T)

    P0 = precision(cov0)
    Ps = [precision(np.asarray(c, dtype=np.float64)) for c in covs]
    gain = sum(Ps) - k * P0
    gain = 0.5 * (gain + gain.T)
    P = P0 + gain
    try:
        factor = scipy.linalg.cho_factor(P, lower=False)
    except np.linalg.LinAlgError:
        eigval, eigvec = np.linalg.eigh(gain)
        gain = (eigvec * np.maximum(eigval, 0.0)) @ eigvec.T
        P = P0 + 0.5 * (gain + gain.T)
        factor = scipy.linalg.cho_factor(P, lower=False)
    h = (1 - k) * (P0 @ mean0)
    for Pi, m in zip(Ps, means):
        h = h + Pi @ m
    mean = scipy.linalg.cho_solve(factor, h)
    cov = scipy.linalg.cho_solve(factor, eye)
    return mean, 0.5 * (cov + cov.T)


def _stacked_mean(W, b, cols, full, fit_intercept, a):
    """The mean vector(s) the covariance refers to: the feature weights and,
    last, the weight of the intercept's constant feature (``b / a`` in the
    full covariance, whose last coordinate is that feature; the diagonal
    keeps the intercept's own variance, and mixing a coordinate alone does
    not depend on its scale)."""
    if full and fit_intercept:
        return np.vstack([W[:, cols], b[cols][None, :] / a])
    if full:
        return W[:, cols]
    return np.vstack([W[:, cols], b[cols][None, :]])


def mix_second_order_gaussian(prior, states, *, fit_intercept, intercept_scaling):
    """Gaussian mixing of second-order states, one covariance block at a time.

    ``prior`` and each of ``states`` are ``(W, b, sigma)``: the means
    (feature-major), the intercepts and the covariance blocks, diagonal
    ``(n_features + 1, n_groups)`` or full ``(n_groups, D, D)`` (upper
    triangle).  Returns the mixed ``(W, b, sigma)``."""
    W0, b0, sigma0 = prior
    a = intercept_scaling if fit_intercept else 0.0
    n_features, n_columns = W0.shape
    W = np.empty_like(W0)
    b = np.empty_like(b0)
    sigma = np.empty_like(sigma0)
    full = sigma0.ndim == 3
    n_groups = sigma0.shape[0] if full else sigma0.shape[1]
    for g in range(n_groups):
        cols = [g] if n_groups == n_columns else list(range(n_columns))
        m0 = _stacked_mean(W0, b0, cols, full, fit_intercept, a)
        means = [
            _stacked_mean(Wi, bi, cols, full, fit_intercept, a) for Wi, bi, _ in states
        ]
        if full:
            c0 = _symmetric_from_upper(sigma0[g])
            covs = [_symmetric_from_upper(s[g]) for _, _, s in states]
        else:
            c0 = sigma0[:, g]
            covs = [s[:, g] for _, _, s in states]
        m, c = mix_gaussians(m0, c0, means, covs, diagonal=not full)
        W[:, cols] = m[:n_features]
        if full and fit_intercept:
            b[cols] = m[n_features] * a
        elif not full:
            b[cols] = m[n_features]
        else:
            b[cols] = b0[cols]
        if full:
            sigma[g] = c
        else:
            sigma[:, g] = c
    return W, b, sigma
