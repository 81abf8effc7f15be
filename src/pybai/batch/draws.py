"""Vectorised reward draws for one batch: one random call per batch, whatever b and n.

A batch pulls arm i a_i times; the algorithms only need the reward sum per arm (counts and
sums are sufficient statistics for Bernoulli and known-variance Gaussian rewards), so the
sum is drawn directly:

* Bernoulli: Binomial(a_i, mu_i) for the arms with a_i > 0;
* Gaussian: Normal(a_i mu_i, a_i sigma_i^2) for the arms with a_i > 0;
* binomial: a reward is the average of ``trials`` Bernoulli(mu_i) indicators (section 5.3 of
  Jun et al. 2016: a user followed for one 5-minute interval in each of 24 hours), so the
  sum of a_i rewards is Binomial(a_i * trials, mu_i) / trials.

Arms with a_i = 0 get a sum of exactly 0.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_choice, check_positive_int, fail

__all__ = ["draw_batch_sums"]


def draw_batch_sums(rng: np.random.Generator, pulls, means, family: str = "bernoulli", sigma=1.0,
                    trials: int = 24) -> np.ndarray:
    """Reward sums of one batch.

    Parameters
    ----------
    rng : numpy.random.Generator
    pulls : array-like of int, shape (n,)
        a_i >= 0, pulls of each arm in the batch.
    means : array-like, shape (n,)
        True means (in [0, 1] for Bernoulli).
    family : {"bernoulli", "gaussian", "binomial"}
    sigma : float or array-like of shape (n,)
        Gaussian noise standard deviation(s) (used by "gaussian" only).
    trials : int, default 24
        Bernoulli indicators averaged in one reward (used by "binomial" only).

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> s = draw_batch_sums(np.random.default_rng(0), [3, 0, 2], [1.0, 0.5, 0.0])
    >>> s.tolist()
    [3.0, 0.0, 0.0]
    """
    if not isinstance(rng, np.random.Generator):
        raise fail("rng", "draw_batch_sums", "a numpy.random.Generator", rng)
    family = check_choice(family, ("bernoulli", "gaussian", "binomial"), "family", "draw_batch_sums")
    pulls = np.asarray(pulls)
    means = np.asarray(means, dtype=float)
    if pulls.shape != means.shape or pulls.ndim != 1:
        raise fail("pulls", "draw_batch_sums", f"a 1-d array of the shape of means {means.shape}", f"shape {pulls.shape}")
    if np.any(pulls < 0):
        raise fail("pulls", "draw_batch_sums", "pull counts >= 0", pulls)
    out = np.zeros(means.shape)
    hit = np.flatnonzero(pulls)
    a = pulls[hit].astype(np.int64)
    if family == "bernoulli":
        out[hit] = rng.binomial(a, means[hit])
    elif family == "binomial":
        m = check_positive_int(trials, "trials", "draw_batch_sums")
        out[hit] = rng.binomial(a * m, means[hit]) / m
    else:
        sig = check_array(sigma, "sigma", "draw_batch_sums", low=0.0, strict_low=True)
        sig = np.broadcast_to(sig, means.shape)[hit]
        out[hit] = a * means[hit] + np.sqrt(a) * sig * rng.standard_normal(hit.size)
    return out
