"""The row order of an epoch, drawn without the GIL, is numpy's
``RandomState.permutation`` to the last bit (and leaves the generator where
numpy's would)."""

import numpy as np
import pytest

from sklearn_pa._core.driver import _permutation


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 65_537])
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_order_is_numpys_permutation(n, seed):
    ours, numpys = np.random.RandomState(seed), np.random.RandomState(seed)
    idx = np.arange(n, dtype=np.int64) * 3 + 5
    for _ in range(3):
        order = _permutation(ours, idx)
        assert order.dtype == np.int64 and order.flags.c_contiguous
        np.testing.assert_array_equal(order, numpys.permutation(idx))
    # the generators are in the same state afterwards
    np.testing.assert_array_equal(
        ours.randint(2**31, size=5), numpys.randint(2**31, size=5)
    )
    np.testing.assert_array_equal(idx, np.arange(n) * 3 + 5)  # not shuffled in place


def test_other_bit_generators_and_generators():
    ours = np.random.RandomState(np.random.PCG64(7))
    numpys = np.random.RandomState(np.random.PCG64(7))
    idx = np.arange(500)
    np.testing.assert_array_equal(_permutation(ours, idx), numpys.permutation(idx))
    # a Generator is not what check_random_state returns: numpy's own draw
    gen_a, gen_b = np.random.default_rng(3), np.random.default_rng(3)
    np.testing.assert_array_equal(_permutation(gen_a, idx), gen_b.permutation(idx))


def test_threads_draw_the_same_orders():
    """Several threads, each with its generator, draw what each would alone."""
    from concurrent.futures import ThreadPoolExecutor

    idx = np.arange(200_000)
    with ThreadPoolExecutor(4) as pool:
        orders = list(
            pool.map(lambda s: _permutation(np.random.RandomState(s), idx), range(8))
        )
    for seed, order in enumerate(orders):
        np.testing.assert_array_equal(
            order, np.random.RandomState(seed).permutation(idx)
        )
