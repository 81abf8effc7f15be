"""BettingModel.scaled_into: the model a session's near-tie estimate reads at a later sample count."""

import numpy as np
import pytest

from pybai.models.betting import BettingModel


@pytest.mark.parametrize("levels", [401, 0])
def test_betting_model_scaled_equals_the_rewards_repeated(levels):
    """Scaling by 3 gives the model that saw every reward three times (tables, store, moments)."""
    rng = np.random.default_rng(5)
    sources = rng.integers(0, 3, 40)
    rewards = rng.choice([0.0, 0.25, 1.0], 40)
    once, thrice = BettingModel(3, 0.0, 1.0, levels=levels), BettingModel(3, 0.0, 1.0, levels=levels)
    once.update(sources, rewards)
    thrice.update(np.tile(sources, 3), np.tile(rewards, 3))
    scaled = once.scaled_into(BettingModel(3, 0.0, 1.0, levels=levels), 3.0)
    for name in ("counts", "sums", "sq_sums", "estimate", "noise", "value_counts", "n_values"):
        assert np.allclose(getattr(scaled, name), getattr(thrice, name), rtol=1e-12, atol=1e-12), name
    assert np.allclose(scaled.ln_up, thrice.ln_up, atol=1e-9) and np.allclose(scaled.ln_down, thrice.ln_down, atol=1e-9)
    assert np.array_equal(scaled.exact, thrice.exact)
    with pytest.raises(ValueError, match="factor"):
        once.scaled_into(BettingModel(3, 0.0, 1.0, levels=levels), 0.0)
    with pytest.raises(ValueError, match="same sources"):
        once.scaled_into(BettingModel(2, 0.0, 1.0, levels=levels), 2.0)
