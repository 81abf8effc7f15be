"""The checks every reward family must pass (:class:`~pybai.models.families.Family`).

A family tells the learner the law of each source: its support, the KL kernel and known
variances, its model of the statistics, confidence bounds and units.  Each check is a plain
function of the family that raises :class:`AssertionError`; :func:`check_family` runs them all.
"""

from __future__ import annotations

import json
import math
import pickle

import numpy as np

from pybai.testing._outcomes import CheckSkipped, run_checks

__all__ = ["sample_rewards", "check_description", "check_noise_scale", "check_rewards_support",
           "check_model_and_bounds", "check_units", "check_epsilon_shift", "FAMILY_CHECKS", "check_family"]


def sample_rewards(family, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` rewards the family accepts: the two ends of a finite support (valid for {0, 1}-valued
    rewards too), else standard normal draws."""
    low, high = family.support
    if math.isfinite(low) and math.isfinite(high):
        return np.where(rng.random(size) < 0.5, low, high).astype(float)
    return rng.standard_normal(size)


def check_description(family) -> None:
    """``to_dict()`` is JSON-serialisable; the family pickles (workers receive it) to the same description."""
    doc = family.to_dict()
    assert json.loads(json.dumps(doc)) == doc, f"to_dict() is not plain JSON: {doc!r}"
    assert isinstance(family.name, str) and family.name, "the family has no name"
    assert pickle.loads(pickle.dumps(family)).to_dict() == doc, "a pickled copy has another description"


def check_noise_scale(family) -> None:
    """A family that provides ``"known-noise"`` has a positive finite ``sub_gaussian_scale`` (the
    variances, known or estimated, are checked through the learner's view: :func:`check_model_and_bounds`)."""
    if "known-noise" not in family.provides:
        raise CheckSkipped("the learner estimates the noise")
    scale = family.sub_gaussian_scale
    assert math.isfinite(scale) and scale > 0, f"sub_gaussian_scale = {scale!r} with known noise"


def check_rewards_support(family) -> None:
    """Rewards inside the support are accepted; NaN, infinities and values outside the support are
    refused with a message."""
    rng = np.random.default_rng(0)
    good = sample_rewards(family, 8, rng)
    assert family.check_rewards(good) is None, f"rewards {good} inside the support were refused"
    assert family.check_rewards(good[:1]) is None, f"the reward {good[:1]} inside the support was refused"
    low, high = family.support
    bad = [np.array([np.nan]), np.array([np.inf]), np.array([good[0], np.nan])]
    if math.isfinite(high):
        bad.append(np.array([high + 1.0]))
    if math.isfinite(low):
        bad.append(np.array([low - 1.0]))
    for rewards in bad:
        message = family.check_rewards(rewards)
        assert isinstance(message, str) and message, f"rewards {rewards} outside the support were accepted"


def check_model_and_bounds(family) -> None:
    """A new model counts what it is told; once every source has ``min_samples``, the learner's view
    (:meth:`~pybai.models.families.Family.for_model`) has one variance per source, and the estimates
    are finite and within the confidence bounds."""
    rng = np.random.default_rng(1)
    n = family.size
    model = family.new_model(n)
    assert model.n_sources == n, f"new_model({n}) has {model.n_sources} sources"
    sources = np.repeat(np.arange(n), max(family.min_samples, 1) + 3)
    rng.shuffle(sources)
    model.update(sources, sample_rewards(family, sources.size, rng))
    counts = np.asarray(model.counts, dtype=float)
    assert np.array_equal(counts, np.bincount(sources, minlength=n)), f"counts {counts} after {sources}"
    view = family.for_model(model)
    variances = np.asarray(view.variances, dtype=float)
    assert variances.shape == (n,) and np.all(variances >= 0), f"the learner's variances {variances} ({n} sources)"
    means = np.asarray(model.estimate, dtype=float)
    assert np.isfinite(means).all(), f"estimates {means} after {counts} samples"
    level = math.log(1 / 0.05)
    lower = view.confidence_bounds(model, means, level, np.ones(n, dtype=bool))
    upper = view.confidence_bounds(model, means, level, np.zeros(n, dtype=bool))
    assert np.all(lower <= means + 1e-12) and np.all(means <= upper + 1e-12), \
        f"estimates {means} outside their bounds [{lower}, {upper}]"
    interval = view.interval(model, 0.95)
    if interval is not None:
        low, high = (np.asarray(x, dtype=float) for x in interval)
        assert low.shape == high.shape == (n,) and np.all(low <= high), f"interval ({low}, {high})"


def check_units(family) -> None:
    """A mean in the user's units survives the learner's units and back."""
    low, high = family.support
    inside = np.array([0.25, 0.5, 0.75]) * (high - low) + low if math.isfinite(low + high) else np.array([-1.0, 0.0, 2.0])
    back = np.asarray(family.to_user(family.learner_means(inside)), dtype=float)
    assert np.allclose(back, inside, rtol=1e-12, atol=1e-12), f"means {inside} came back as {back}"


def check_epsilon_shift(family) -> None:
    """Each epsilon mode the family offers gives shifted pieces ``(c, e)`` with ``0 < c <= 1``, ``e >= 0``."""
    if not family.epsilon_modes:
        raise CheckSkipped("the family offers no epsilon mode")
    for mode in family.epsilon_modes:
        c, e = family.epsilon_shift(0.1, mode, "check_epsilon_shift")
        assert 0.0 < c <= 1.0 and e >= 0.0 and (c, e) != (1.0, 0.0), f"epsilon 0.1 ({mode}) gives (c, e) = {(c, e)}"


#: the checks of one family
FAMILY_CHECKS = (check_description, check_noise_scale, check_rewards_support, check_model_and_bounds,
                 check_units, check_epsilon_shift)


def check_family(family) -> dict[str, str]:
    """Run every check of :data:`FAMILY_CHECKS` on ``family``.

    Returns
    -------
    dict
        ``{check name: "passed" | "skipped: why"}``.

    Raises
    ------
    AssertionError
        One line per failed check.
    """
    return run_checks((check.__name__, check, (family,)) for check in FAMILY_CHECKS)
