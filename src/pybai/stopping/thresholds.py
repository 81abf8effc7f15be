r"""Every kind of stopping threshold by name: :func:`make_threshold` and where each family's lives.

A GLR stopping rule stops at the first sample count ``t`` at which the generalised
log-likelihood ratio statistic exceeds the threshold.  One module per argument behind a threshold:

* :mod:`pybai.stopping.heuristic` -- :class:`~pybai.stopping.heuristic.HeuristicThreshold`,
  :math:`\ln((1 + \ln t)/\delta)`, the threshold used in the *experiments* of Garivier &
  Kaufmann (2016).  It is **not** proven to be delta-correct.
* :mod:`pybai.stopping.kk21` -- proven by a union bound over the pieces of the alternative with
  the calibration functions of Kaufmann & Koolen (2021) (:mod:`pybai.stopping.calibration`):
  :class:`~pybai.stopping.kk21.ExponentialFamilyThreshold` (any one-parameter exponential family,
  Theorem 7) and :class:`~pybai.stopping.kk21.GaussianThreshold` (Gaussian arms with known
  variances, Theorem 9, in the form used by Jourdan et al. 2022; tighter).
* :mod:`pybai.stopping.kt` -- :class:`~pybai.stopping.kt.BernoulliKTThreshold`, proven for
  Bernoulli sources, :math:`\ln(m/\delta) + n\ln 2 + (n/2)\ln(t/n)` (``ln(2t(K-1)/delta)`` for
  best-arm identification, Garivier & Kaufmann 2016, Proposition 12), from a product of
  per-source Krichevsky--Trofimov mixture martingales.  Several times smaller than
  :class:`~pybai.stopping.kk21.ExponentialFamilyThreshold` at the sample sizes met in practice.
* :mod:`pybai.stopping.pair_mixture` -- the count-dependent per-pair mixture rules of best-arm
  and top-k identification (kind ``"pair-mixture"``, their ``"delta-correct"`` default).
* :mod:`pybai.stopping.tilt` -- the variance-adaptive count-dependent per-pair rule for rewards in
  [0, 1] (kind ``"pair-tilt"``): tilted half-normal mixtures whose variance is that of the tested level.
* :mod:`pybai.stopping.feasible` -- the count-dependent per-piece mixture rule of the
  best-feasible-arm problem (built by :meth:`pybai.problems.feasible.problem.FeasibleArmProblem.threshold`).
* :mod:`pybai.stopping.linear` -- the thresholds of Gaussian linear bandits: the self-normalised
  one, which reads the design matrix, and Soare et al.'s Prop. 1 (built by
  :meth:`pybai.problems.linear.LinearBestArmProblem.threshold`).

All thresholds are small picklable objects (:class:`~pybai.stopping.base.Threshold`) whose
delta-dependent constant is computed once in the constructor; a stopping rule compares its
statistic with ``threshold.at(t, model)``, which for the thresholds that depend on ``t`` only is
``threshold(t)``, a couple of ``math.log`` calls.

References
----------
.. [GK16] A. Garivier and E. Kaufmann. Optimal best arm identification with
   fixed confidence. COLT 2016.
.. [KK21] E. Kaufmann and W. M. Koolen. Mixture martingales revisited with
   applications to sequential tests and confidence intervals. JMLR
   22(246):1--44, 2021 (arXiv:1811.11419).
.. [JDBHK22] M. Jourdan, R. Degenne, D. Baudry, R. de Heide and E. Kaufmann.
   Top two algorithms revisited. NeurIPS 2022.
"""

from __future__ import annotations

from typing import Any

from pybai._validation import check_choice, check_positive_int, check_probability, fail
from pybai.stopping.base import Threshold
from pybai.stopping.betting import bounded_rules
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.kk21 import ExponentialFamilyThreshold, GaussianThreshold
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold
from pybai.stopping.leader import (BernoulliLeaderFavouredThreshold, BernoulliLeaderScalesThreshold,
                                   BernoulliLeaderSettledThreshold, BernoulliLeaderThreshold,
                                   GaussianLeaderFavouredThreshold, GaussianLeaderScalesThreshold,
                                   GaussianLeaderSettledThreshold, GaussianLeaderThreshold)
from pybai.stopping.tilt import BernoulliTiltThreshold
from pybai.stopping.unknown_variance import UnknownVarianceThreshold

__all__ = ["make_threshold", "KINDS", "FAMILIES", "FAMILY_RULES", "register_family_thresholds", "UNSET_KIND"]

#: Accepted values of the ``kind`` argument of :func:`make_threshold`: ``"delta-correct"`` is the
#: best proven threshold of the family; ``"kk21"``, ``"kt-mixture"`` and ``"pair-mixture"`` name
#: proven ones (``"pair-mixture"``: the count-dependent per-piece rules of
#: :mod:`pybai.stopping.pair_mixture`, the ``"delta-correct"`` default of best-arm and top-k problems;
#: ``"pair-tilt"``: the variance-adaptive per-pair rule of :mod:`pybai.stopping.tilt`, rewards in [0, 1];
#: ``"leader"``: best-arm identification with one test per hypothesis, :mod:`pybai.stopping.leader`;
#: ``"leader-scales"``: the same with the scale-pair prior;
#: ``"leader-settled"``: the scale-pair prior with leader processes started once the leader has settled;
#: ``"leader-favoured"``: the settled leaders with the weight 0.9 instead of 1/2 on the leader process, the
#: ``"delta-correct"`` default of best-arm problems;
#: ``"topk-leader"``: top-k identification with one test per k-set, :mod:`pybai.stopping.topk_leader` (built by
#: :meth:`pybai.problems.top_k.TopKProblem.threshold`, which knows k; :func:`make_threshold` refuses it).
KINDS = ("heuristic", "delta-correct", "kk21", "kt-mixture", "pair-mixture", "pair-tilt", "leader", "leader-scales",
         "leader-settled", "leader-favoured", "topk-leader")
#: The leader kinds' classes: (Gaussian arms with known variances, rewards in [0, 1]).
_LEADER_CLASSES = {"leader": (GaussianLeaderThreshold, BernoulliLeaderThreshold),
                   "leader-scales": (GaussianLeaderScalesThreshold, BernoulliLeaderScalesThreshold),
                   "leader-settled": (GaussianLeaderSettledThreshold, BernoulliLeaderSettledThreshold),
                   "leader-favoured": (GaussianLeaderFavouredThreshold, BernoulliLeaderFavouredThreshold)}
#: Accepted values of the ``family`` argument of :func:`make_threshold` (and the keys of :data:`FAMILY_RULES`).
FAMILIES = ("gaussian", "bernoulli", "exponential_family")


def _unknown_variance_rules(kind: str, delta: float, n_alternatives: int, n_terms: int) -> Threshold:
    """Gaussian with unknown variances: the prequential t-mixture rule is its only proven one."""
    if kind == "heuristic":
        return HeuristicThreshold(delta)
    if kind in ("delta-correct", "pair-mixture"):
        if n_terms != 2:
            raise fail("n_terms", "make_threshold", "2 for family 'gaussian-unknown-variance' (pieces of two arms)",
                       n_terms)
        return UnknownVarianceThreshold(delta, n_alternatives)
    raise fail("kind", "make_threshold", "'heuristic' or 'delta-correct' for family 'gaussian-unknown-variance'",
               kind)


#: Families whose thresholds are built by their own function ``(kind, delta, n_alternatives, n_terms)``
#: (a family's addition: :func:`register_family_thresholds`).
FAMILY_RULES: dict = {"gaussian_unknown_variance": _unknown_variance_rules,
                      "bounded_kl_inf": bounded_rules("kl-inf"),  # betting mixtures (stopping/betting.py)
                      "bounded_sub_bernoulli": bounded_rules("sub-bernoulli"),
                      # means of Bernoulli observations (models/binomial.py): rewards in [0, 1], sub-Bernoulli
                      "binomial": bounded_rules("sub-bernoulli")}


def register_family_thresholds(name: str, rules) -> None:
    """Make ``make_threshold(kind, ..., family=name)`` call ``rules(kind, delta, n_alternatives, n_terms)``."""
    FAMILY_RULES[name.strip().lower().replace("-", "_").replace(" ", "_")] = rules


#: The kind of threshold a strategy whose ``threshold`` is unset (None) runs with in simulations: the seed
#: papers' heuristic (``pybai run``).  Sessions, which certify, replace an unset threshold by
#: ``"delta-correct"`` (:data:`pybai.session.session.SESSION_THRESHOLD`).
UNSET_KIND = "heuristic"


def _family_name(family: Any) -> str:
    name = family if isinstance(family, str) else getattr(family, "name", family)
    if isinstance(name, str):
        name = name.strip().lower().replace("-", "_").replace(" ", "_")
    return check_choice(name, FAMILIES + tuple(FAMILY_RULES), "family", "make_threshold")


def make_threshold(
    kind: str,
    delta: float,
    *,
    n_alternatives: int,
    n_terms: int = 2,
    family: Any = "gaussian",
) -> Threshold:
    """Build a stopping threshold.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
        ``"heuristic"``: :class:`~pybai.stopping.heuristic.HeuristicThreshold` (not proven).
        ``"delta-correct"``: the tightest proven threshold for ``family``:
        :class:`~pybai.stopping.kk21.GaussianThreshold` for ``"gaussian"``,
        :class:`~pybai.stopping.kt.BernoulliKTThreshold` for ``"bernoulli"``,
        :class:`~pybai.stopping.kk21.ExponentialFamilyThreshold` for ``"exponential_family"``.
        ``"kk21"``: the Kaufmann & Koolen (2021) threshold of the family
        (:class:`~pybai.stopping.kk21.GaussianThreshold` or
        :class:`~pybai.stopping.kk21.ExponentialFamilyThreshold`).
        ``"kt-mixture"``: :class:`~pybai.stopping.kt.BernoulliKTThreshold` (``family`` must be
        ``"bernoulli"``).
        ``"pair-mixture"``: the count-dependent per-piece rule of :mod:`pybai.stopping.pair_mixture`
        (:class:`~pybai.stopping.pair_mixture.GaussianPairMixtureThreshold` or
        :class:`~pybai.stopping.pair_mixture.BernoulliPairMixtureThreshold`; ``n_terms`` must be 2).
        Problems made of two-arm pieces (best arm, top-k) decide with it per piece; called
        with ``t`` only it answers the family's t-only proven threshold.
        ``"pair-tilt"``: :class:`~pybai.stopping.tilt.BernoulliTiltThreshold`, the variance-adaptive
        per-piece rule for rewards in [0, 1] (``family`` ``"bernoulli"``, a bounded or binomial family;
        ``n_terms`` must be 2).  ``"leader"``: the best-arm rule of :mod:`pybai.stopping.leader`
        (:class:`~pybai.stopping.leader.GaussianLeaderThreshold` or
        :class:`~pybai.stopping.leader.BernoulliLeaderThreshold`, for ``n_alternatives + 1`` arms; ``n_terms``
        must be 2); only best-arm problems decide with it (with epsilon, the problem gives it its shift:
        :meth:`~pybai.stopping.leader.LeaderThreshold.set_shift`).  ``"leader-scales"`` and
        ``"leader-settled"``: the same rule with the scale-pair prior, and with the scale-pair prior and leader
        processes started once the leader has settled (same module); ``"leader-favoured"``: the settled rule with
        the weight 0.9 on the leader process instead of 1/2.  Problems that build
        their own threshold for ``"delta-correct"`` do so in
        :meth:`pybai.problems.base.Problem.threshold`.
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number of pieces of the alternative in the union bound (``K - 1``
        for best-arm identification).  Unused by the heuristic threshold,
        but still validated.
    n_terms : int, default 2
        Number of arms in each GLR term (2 for best-arm identification).
    family : str or Family, default "gaussian"
        ``"gaussian"``, ``"bernoulli"`` or ``"exponential_family"`` (any other
        one-parameter exponential family), or an object with such a ``name``
        attribute (e.g. a :class:`pybai.models.Family`).

    Returns
    -------
    Threshold

    Raises
    ------
    ValueError
        (:class:`~pybai.exceptions.InvalidParameterError`) naming the bad
        parameter: ``kind``, ``delta``, ``n_alternatives``, ``n_terms`` or
        ``family``.
    """
    if isinstance(kind, str):
        kind = kind.strip().lower().replace("_", "-")
    kind = check_choice(kind, KINDS, "kind", "make_threshold")
    delta = check_probability(delta, "delta", "make_threshold")
    n_alternatives = check_positive_int(n_alternatives, "n_alternatives", "make_threshold")
    n_terms = check_positive_int(n_terms, "n_terms", "make_threshold")
    fam = _family_name(family)
    if kind == "topk-leader":
        raise fail("kind", "make_threshold", "a kind built from (delta, n_alternatives, n_terms, family); 'topk-leader' "
                   "needs k: TopKProblem.threshold builds it", kind)
    if fam in FAMILY_RULES:
        return FAMILY_RULES[fam](kind, delta, n_alternatives, n_terms)
    if kind == "heuristic":
        return HeuristicThreshold(delta)
    if kind == "pair-mixture":
        if n_terms != 2:
            raise fail("n_terms", "make_threshold", "2 for kind 'pair-mixture' (pieces of two arms)", n_terms)
        if fam == "gaussian":
            return GaussianPairMixtureThreshold(delta, n_alternatives)
        if fam == "bernoulli":
            return BernoulliPairMixtureThreshold(delta, n_alternatives)
        raise fail("family", "make_threshold", "'gaussian' or 'bernoulli' for kind 'pair-mixture'", family)
    if kind == "pair-tilt":
        if n_terms != 2:
            raise fail("n_terms", "make_threshold", "2 for kind 'pair-tilt' (pieces of two arms)", n_terms)
        if fam != "bernoulli":
            raise fail("family", "make_threshold", "'bernoulli' (or a bounded family) for kind 'pair-tilt'", family)
        return BernoulliTiltThreshold(delta, n_alternatives)
    if kind in _LEADER_CLASSES:
        if n_terms != 2:
            raise fail("n_terms", "make_threshold", f"2 for kind '{kind}' (pieces of two arms)", n_terms)
        if fam in ("gaussian", "bernoulli"):
            return _LEADER_CLASSES[kind][fam == "bernoulli"](delta, n_alternatives + 1)
        raise fail("family", "make_threshold", f"'gaussian' or 'bernoulli' for kind '{kind}'", family)
    if kind == "kt-mixture" and fam != "bernoulli":
        raise fail("family", "make_threshold", "'bernoulli' for kind 'kt-mixture'", family)
    if kind == "kt-mixture" or (kind == "delta-correct" and fam == "bernoulli"):
        return BernoulliKTThreshold(delta, n_alternatives, n_terms)
    if fam == "gaussian":
        return GaussianThreshold(delta, n_alternatives, n_terms)
    return ExponentialFamilyThreshold(delta, n_alternatives, n_terms)
