import numpy as np
import pytest

from pybai import Bernoulli, Gaussian, InvalidParameterError
from pybai.models import _kl


def test_kernels_agree_with_the_textbook_formulas():
    rng = np.random.default_rng(0)
    for x, y in rng.uniform(0, 1, size=(50, 2)):
        textbook = x * np.log(x / y) + (1 - x) * np.log((1 - x) / (1 - y))
        assert _kl.kl(_kl.BERNOULLI, x, y, 1.0) == pytest.approx(textbook, rel=1e-12)
        assert _kl.kl(_kl.GAUSSIAN, x, y, 2.0) == pytest.approx((x - y) ** 2 / 4.0, rel=1e-12)
    assert _kl.kl(_kl.BERNOULLI, 0.0, 0.5, 1.0) == pytest.approx(np.log(2))
    assert _kl.kl(_kl.BERNOULLI, 1.0, 0.5, 1.0) == pytest.approx(np.log(2))


def test_reward_support():
    assert Bernoulli(n_sources=2).check_rewards(np.array([0.0, 1.0])) is None
    assert Bernoulli(n_sources=2).check_rewards(np.array([5.0])) is not None
    assert Bernoulli(n_sources=2).check_rewards(np.array([-1.0])) is not None
    assert Gaussian(1.0, n_sources=2).check_rewards(np.array([-3.0, 1e6])) is None
    assert Gaussian(1.0, n_sources=2).check_rewards(np.array([np.inf])) is not None


@pytest.mark.parametrize("code", [_kl.GAUSSIAN, _kl.BERNOULLI])
def test_confidence_bounds_solve_their_equation(code):
    x, n, level = 0.3, 40.0, 2.5
    ucb = _kl.upper_bound(code, x, n, 1.0, level)
    lcb = _kl.lower_bound(code, x, n, 1.0, level)
    assert lcb < x < ucb
    assert n * _kl.kl(code, x, ucb, 1.0) == pytest.approx(level, rel=1e-6)
    assert n * _kl.kl(code, x, lcb, 1.0) == pytest.approx(level, rel=1e-6)


def test_pair_cost_is_the_pooled_infimum():
    c = _kl.pair_cost(_kl.GAUSSIAN, 3.0, 1.0, 1.0, 5.0, 0.2, 4.0)
    grid = np.linspace(0.2, 1.0, 200001)
    assert c == pytest.approx(np.min(3 * (1 - grid) ** 2 / 2 + 5 * (0.2 - grid) ** 2 / 8), rel=1e-6)
    assert _kl.pair_cost(_kl.GAUSSIAN, 3.0, 0.1, 1.0, 5.0, 0.2, 1.0) == 0.0


def test_family_validation():
    assert Gaussian(2.0, n_sources=3).variances.tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(InvalidParameterError, match="sigma"):
        Gaussian(-1.0, n_sources=3)
    with pytest.raises(InvalidParameterError, match="sigma"):
        Gaussian([1.0, 2.0], n_sources=3)
    assert Bernoulli(n_sources=2).to_dict() == {"name": "bernoulli"}


def test_sub_gaussian_scale_is_the_familys_noise_level():
    from pybai.strategies._fixed_budget import noise_scale, noise_std

    wide = Gaussian([0.5, 2.0, 1.0], n_sources=3)
    assert wide.sub_gaussian_scale == 2.0  # the largest sigma
    assert Gaussian(0.5, n_sources=4).sub_gaussian_scale == 0.5
    assert Bernoulli(n_sources=5).sub_gaussian_scale == 0.5  # rewards in [0, 1]: Hoeffding's lemma
    # the fixed-budget rules read it: std s, widths 2 s (Hoeffding's range 1 for Bernoulli)
    assert noise_std(wide) == 2.0 and noise_scale(wide) == 4.0
    assert noise_std(Bernoulli(n_sources=2)) == 0.5 and noise_scale(Bernoulli(n_sources=2)) == 1.0
