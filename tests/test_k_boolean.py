"""The seed's k-Boolean polynomials are ``PolynomialFeatures(degree=k,
interaction_only=True, include_bias=False)`` on {0, 1} features.

Any function {0, 1}^N -> R is uniquely ``f(x) = sum_S a_S prod_{i in S} x_i``;
a k-Boolean polynomial keeps the terms with ``|S| <= k``, a linear function
of the ``sum_{i<=k} C(N, i)`` monomials (the empty one being the intercept).
"""

import itertools
from math import comb

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures

from sklearn_pa import ErrorProportionalRegressor


def k_boolean_map(x, k):
    """The monomials prod_{i in S} x_i for 1 <= |S| <= k, by enumeration."""
    N = len(x)
    return np.array(
        [
            np.prod([x[i] for i in S])
            for size in range(1, k + 1)
            for S in itertools.combinations(range(N), size)
        ]
    )


@pytest.mark.parametrize("N, k", [(1, 1), (4, 1), (4, 2), (5, 3), (6, 6), (3, 5)])
def test_interaction_features_are_the_monomials_of_degree_at_most_k(N, k):
    poly = PolynomialFeatures(degree=k, interaction_only=True, include_bias=False)
    X = np.array(list(itertools.product([0.0, 1.0], repeat=N)))  # all of {0,1}^N
    Z = poly.fit_transform(X)
    assert Z.shape[1] == sum(comb(N, i) for i in range(1, min(k, N) + 1))
    # each column is one subset S, |S| <= k, every subset exactly once
    subsets = {tuple(np.flatnonzero(p)) for p in poly.powers_}
    assert len(subsets) == Z.shape[1]
    assert np.all(poly.powers_ <= 1)
    expected = {
        S for size in range(1, k + 1) for S in itertools.combinations(range(N), size)
    }
    assert subsets == expected
    for x, z in zip(X, Z):
        assert_array_equal(np.sort(z), np.sort(k_boolean_map(x, k)))
        assert_array_equal(
            z, [np.prod(x[list(S)]) for S in map(np.flatnonzero, poly.powers_)]
        )
    # the products stay Boolean, dense and sparse
    assert set(np.unique(Z)) <= {0.0, 1.0}
    Zs = poly.fit_transform(sp.csr_matrix(X))
    assert_array_equal(Zs.toarray(), Z)


def test_dpmu_learns_a_2_boolean_polynomial_through_the_pipeline():
    rng = np.random.RandomState(0)
    X = (rng.uniform(size=(2000, 8)) < 0.4).astype(float)
    # f = 0.5 + x0 - x1 + 2 x2 x3 - 1.5 x4 x5: degree 2
    y = 0.5 + X[:, 0] - X[:, 1] + 2 * X[:, 2] * X[:, 3] - 1.5 * X[:, 4] * X[:, 5]
    pipe = make_pipeline(
        PolynomialFeatures(degree=2, interaction_only=True, include_bias=False),
        ErrorProportionalRegressor(C=0.5, update="multiplicative", max_iter=20),
    )
    assert pipe.fit(X, y).score(X, y) > 0.99
    # a 1-Boolean polynomial (the raw features) cannot represent it
    linear = ErrorProportionalRegressor(C=0.5, update="multiplicative", max_iter=20)
    assert linear.fit(X, y).score(X, y) < 0.9
