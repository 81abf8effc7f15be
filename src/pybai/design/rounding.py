r"""Efficient rounding of a design into integer sample counts (Pukelsheim 2006, ch. 12).

Soare et al. (2014), appendix C: with p support points of the design ``lambda`` and n samples,

1. start from :math:`n_i = \lceil (n - p/2) \lambda_i \rceil`;
2. while :math:`\sum n_i < n`, increase a count attaining :math:`\min_i n_i / \lambda_i`;
   while :math:`\sum n_i > n`, decrease a count attaining :math:`\max_i (n_i - 1)/\lambda_i`.

(The paper prints the increase rule as ``n_j / lambda_j = min_i (n - 1)/lambda_i``; we use
Pukelsheim's :math:`\min_i n_i / \lambda_i`, the rule the text describes.)  The discrepancy loop
runs at most p times.  Ties are broken consistently with one order of the arms: an increase
goes to the lowest index, a decrease to the highest, so that with equal weights n and n + 1
agree (the lowest indices get the extra units).  In exact arithmetic, for n >= p the counts are
monotone in n: going from n to n + 1 increases exactly one count by one (the rounding is a
divisor method), which turns a design into an incremental sampling rule.  (In floating point, weights whose
products (n - p/2) lambda_i land exactly on integers, e.g. lambda = (3/7, 1/7, 1/7, 2/7), can
break the monotonicity at isolated n; the strategies therefore round increments,
:func:`rounded_increment`, which is monotone by construction.)

Examples
--------
>>> efficient_rounding([0.5, 0.3, 0.2], 10).tolist()
[5, 3, 2]
>>> next_rounded_arm([0.5, 0.3, 0.2], 10)   # the arm sample 11 goes to
0
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_positive_int, fail

__all__ = ["efficient_rounding", "next_rounded_arm", "rounded_increment"]


def efficient_rounding(weights, n: int) -> np.ndarray:
    """Integer counts (summing to ``n``) implementing the design ``weights``.

    Parameters
    ----------
    weights : array-like (K,)
        Non-negative, not all zero (normalised here).
    n : int
        Number of samples, >= 0.

    Returns
    -------
    ndarray of int (K,)
        Zero outside the support of ``weights``; positive on it when n >= p.
    """
    owner = "efficient_rounding"
    w = check_array(weights, "weights", owner, ndim=1, low=0.0)
    if w.sum() <= 0:
        raise fail("weights", owner, "non-negative with a positive sum", weights)
    n = check_positive_int(n, "n", owner, minimum=0)
    support = np.flatnonzero(w > 0)
    lam = w[support] / w[support].sum()
    p = support.size
    counts = np.maximum(np.ceil((n - 0.5 * p) * lam), 0.0)
    total = int(counts.sum())
    for _ in range(p + 1):  # each pass fixes one unit of discrepancy; at most p are needed
        if total == n:
            break
        if total < n:
            j = int(np.argmin(counts / lam))
            counts[j] += 1
            total += 1
        else:
            score = np.where(counts > 0, (counts - 1) / lam, -np.inf)
            k = score.size - 1 - int(np.argmax(score[::-1]))  # ties: the highest index (see below)
            counts[k] -= 1
            total -= 1
    out = np.zeros(w.size, dtype=np.int64)
    out[support] = counts.astype(np.int64)
    return out


def next_rounded_arm(weights, n: int) -> int:
    """The arm whose count grows when the rounding goes from ``n`` to ``n + 1`` samples (n >= p).

    With the monotone rounding this is the incremental rule of the static allocations
    (appendix C): sample ``n + 1`` goes to this arm.
    """
    diff = efficient_rounding(weights, n + 1) - efficient_rounding(weights, n)
    return int(np.argmax(diff))


def rounded_increment(weights, counts, size: int) -> np.ndarray:
    """Counts to add to ``counts`` (the rule's samples so far) for ``size`` more samples.

    The efficient rounding of ``weights`` for ``counts.sum() + size`` samples, minus ``counts``,
    clipped at 0 and repaired to exactly ``size`` units with the rounding's own rules (remove
    where (n_i - 1)/lambda_i is largest, add where n_i/lambda_i is smallest).  Never negative,
    so the allocation only grows; equal to the rounding's difference whenever that is monotone.
    """
    w = np.asarray(weights, dtype=float)
    lam = w / w.sum()
    counts = np.asarray(counts, dtype=np.int64)
    target = efficient_rounding(lam, int(counts.sum()) + size)
    add = np.maximum(target - counts, 0)
    support = lam > 0
    for _ in range(add.size + size + 1):  # each pass moves the total one unit towards size
        total = int(add.sum())
        if total == size:
            break
        with np.errstate(divide="ignore"):
            if total > size:
                score = np.where(add > 0, (counts + add - 1) / np.where(support, lam, np.inf), -np.inf)
                add[int(np.argmax(score))] -= 1
            else:
                score = np.where(support, (counts + add) / np.where(support, lam, 1.0), np.inf)
                add[int(np.argmin(score))] += 1
    return add
