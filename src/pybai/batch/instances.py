"""Instances of the experiments of Jun, Jamieson, Nowak & Zhu (2016), as mean vectors.

* :func:`linear_instance` and :func:`sparse_instance`: the two Bernoulli toy instances of
  section 5.1 (exactly as defined there).
* :func:`virus_instance` and :func:`twitter_instance`: synthetic stand-ins for the two
  real-data applications (sections 5.2 and 5.3).  The paper's data are not public here, so
  these only reproduce the *shape* the paper describes (n, the reward family, a heavy right
  tail / a power law); their parameters are documented choices, not fitted values.

Every generator returns means sorted in decreasing order (arm 0 is the best), unless an
``rng`` is given to ``shuffle``: then the arms are randomly permuted, which matters for
algorithms whose ties are broken by lowest index.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, fail

__all__ = ["linear_instance", "sparse_instance", "virus_instance", "twitter_instance", "VIRUS_SIGMA2"]

#: noise variance of the virus-replication simulation (section 5.2: N(mu_i, 0.1))
VIRUS_SIGMA2 = 0.1


def _shuffled(means: np.ndarray, shuffle) -> np.ndarray:
    if shuffle is None:
        return means
    if not isinstance(shuffle, np.random.Generator):
        raise fail("shuffle", "", "None or a numpy.random.Generator", shuffle)
    return means[shuffle.permutation(means.size)]


def linear_instance(n_arms: int = 100, shuffle=None) -> np.ndarray:
    """"Linear" of section 5.1: mu_i = (n - i) / (n - 1), i = 1..n (= (99 - i + 1)/99 at n = 100)."""
    n = check_positive_int(n_arms, "n_arms", "linear_instance", minimum=2)
    i = np.arange(1, n + 1)
    return _shuffled((n - i) / (n - 1.0), shuffle)


def sparse_instance(n_arms: int = 100, n_top: int = 10, top: float = 0.5, rest: float = 0.3, shuffle=None) -> np.ndarray:
    """"Sparse" of section 5.1: ``n_top`` arms at 0.5 and the others at 0.3."""
    n = check_positive_int(n_arms, "n_arms", "sparse_instance", minimum=2)
    n_top = check_positive_int(n_top, "n_top", "sparse_instance")
    if n_top >= n:
        raise fail("n_top", "sparse_instance", f"an int in [1, {n - 1}]", n_top)
    if not top > rest:
        raise fail("top", "sparse_instance", f"a float > rest = {rest}", top)
    return _shuffled(np.r_[np.full(n_top, float(top)), np.full(n - n_top, float(rest))], shuffle)


def virus_instance(rng: np.random.Generator, n_arms: int = 12_979, tail_fraction: float = 0.03,
                   bulk_sd: float = 0.2, tail_scale: float = 0.6, shuffle: bool = True) -> np.ndarray:
    """Synthetic gene means for the virus-replication screen of section 5.2 (Gaussian arms).

    The paper's means are per-gene averages of two log-fluorescence measurements (sign
    flipped), with noise variance sigma^2 = 0.1 (:data:`VIRUS_SIGMA2`), and "relatively few
    genes have large rewards" (its Fig. 1a).  This stand-in draws

    * a bulk of genes without effect: N(0, ``bulk_sd``^2), sd 0.2;
    * a fraction ``tail_fraction`` = 3% of genes (about 390 of 12,979) with an effect:
      |N(0, bulk_sd^2)| + Exponential(scale ``tail_scale`` = 0.6),

    a right-skewed law whose top 100-800 arms (the paper's k) sit in the tail.  It is an
    illustration of the shape, not the data.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_arms : int, default 12,979
    tail_fraction, bulk_sd, tail_scale : float
    shuffle : bool, default True
        Randomly permute the arms (else sorted in decreasing order).
    """
    if not isinstance(rng, np.random.Generator):
        raise fail("rng", "virus_instance", "a numpy.random.Generator", rng)
    n = check_positive_int(n_arms, "n_arms", "virus_instance", minimum=2)
    frac = check_positive_float(tail_fraction, "tail_fraction", "virus_instance")
    if frac >= 1:
        raise fail("tail_fraction", "virus_instance", "a float in (0, 1)", tail_fraction)
    sd = check_positive_float(bulk_sd, "bulk_sd", "virus_instance")
    scale = check_positive_float(tail_scale, "tail_scale", "virus_instance")
    n_tail = max(1, int(round(frac * n)))
    bulk = rng.normal(0.0, sd, n - n_tail)
    tail = np.abs(rng.normal(0.0, sd, n_tail)) + rng.exponential(scale, n_tail)
    means = np.sort(np.r_[bulk, tail])[::-1]
    return means[rng.permutation(n)] if shuffle else means


def twitter_instance(n_arms: int = 522_062, exponent: float = 0.5, top: float = 0.05,
                     floor: float = 1.0 / (24 * 372), shuffle=None) -> np.ndarray:
    """Power-law Bernoulli means for the Twitter monitoring of section 5.3.

    mu_i = max(``top`` * i^(-``exponent``), ``floor``) for ranks i = 1..n: a straight line of
    slope -``exponent`` on the log-log rank plot (the power law of the paper's Fig. 2b), then
    a floor.  Defaults:

    * ``floor`` = 1 / (24 * 372): a user of the data set has at least one bullying tweet in
      the month, and mu_i averages 24 hourly tweet probabilities each estimated over
      31 days x 12 five-minute intervals = 372 trials, so the smallest mean is 1 / 8,928;
    * ``top`` = 0.05 and ``exponent`` = 0.5: chosen so that the expected number of tweets,
      8,928 * sum_i mu_i (about 7.2e5), is close to the data set's 707,776 bullying tweets by
      522,062 users; the power law then covers the top ~200,000 users.

    The top-k set is unique for k below the start of the floor (k = 100: mu_100 = 5.0e-3,
    mu_101 = 4.975e-3).  Arms are sorted in decreasing order unless ``shuffle`` is a Generator.
    """
    n = check_positive_int(n_arms, "n_arms", "twitter_instance", minimum=2)
    alpha = check_positive_float(exponent, "exponent", "twitter_instance")
    top = check_positive_float(top, "top", "twitter_instance")
    floor = check_positive_float(floor, "floor", "twitter_instance")
    if not floor < top <= 1:
        raise fail("top", "twitter_instance", f"a float in (floor, 1] = ({floor:g}, 1]", top)
    ranks = np.arange(1, n + 1, dtype=float)
    return _shuffled(np.maximum(top * ranks**-alpha, floor), shuffle)
