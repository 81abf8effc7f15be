"""Compiled whole runs of the rules that stop by their own rule, not by a GLR threshold.

The practitioners' baselines (``fixed-horizon``, ``mixture-sprt``, ``thompson-pbest``) stop at a
horizon, on an elimination test or on a posterior probability.  Each plays a whole simulated run
in its own numba loop (:meth:`OwnStoppingRun._own_loop`), calling the very kernels its ask/tell
methods call, and :meth:`OwnStoppingRun.simulate_run` leaves the strategy as the ask/tell loop
would (tests/strategies/test_baselines.py checks it bit for bit).  The setup (truth, initial
phase, ``max_samples``) is :func:`pybai.strategies._compiled.setup_run`'s, so a run is offered on
the same problems as the other compiled runs (plain Bernoulli or Gaussian arms, no epsilon; a rule
whose loop never reads the problem's pieces, :attr:`OwnStoppingRun._plain_pieces_only` False, also
with the problem's epsilon).
"""

from __future__ import annotations

from pybai.strategies._compiled import CompiledRun, RunSetup, setup_run

__all__ = ["OwnStoppingRun"]


class OwnStoppingRun(CompiledRun):
    """Mixin of a sequential rule with its own stopping: :meth:`simulate_run` from :meth:`_own_loop`."""

    #: whether the loop plays the plain pieces only (no compiled run on a problem with an epsilon); False for a
    #: loop that never reads the problem's pieces (its stop and its recommendation are the same under any epsilon)
    _plain_pieces_only = True

    def _own_loop(self, setup: RunSetup, rng) -> tuple[int, float, bool, bool]:
        """Hook: play the run until the rule stops or ``max_samples``:
        ``(samples, last statistic, stopping rule applied, stopped)``."""
        raise NotImplementedError

    def _delta_free_sampling(self) -> bool:
        """A horizon, eliminations or a level that depend on delta: each delta has its own run."""
        return False

    def simulate_run(self, means, rng, sigma=None) -> bool:
        """Play the whole run in compiled code against simulated arms; False (nothing done) if not offered
        (:meth:`pybai.strategies._compiled.CompiledRun.simulate_run`)."""
        setup = setup_run(self, means, sigma) if self._compiled_ok() else None
        if setup is None or (self._plain_pieces_only and (setup.goal.c, setup.goal.e) != (1.0, 0.0)):
            return False
        t, z, checked, stopped = self._own_loop(setup, rng)
        n_plan = len(self._plan)  # type: ignore[attr-defined]
        strategy = self  # the mixin sits on a Strategy: one request per sample
        strategy.t_ = strategy.batches_ = int(t)  # type: ignore[attr-defined]
        strategy._next_id += int(t)  # type: ignore[attr-defined]
        strategy._plan_pos = min(int(t), n_plan)  # type: ignore[attr-defined]
        strategy._ready = bool(t >= n_plan)  # type: ignore[attr-defined]
        if checked:
            strategy.statistic_ = float(z)  # type: ignore[attr-defined]
        strategy.status_ = "stopped" if stopped else "censored"  # type: ignore[attr-defined]
        return True
