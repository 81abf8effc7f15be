"""
A real experiment as a persistent session
=========================================

In a real experiment nobody simulates the rewards: pybai says what to measure next, the lab
(or the web site) measures it, and the answers are told back, possibly days later and from
another process.  A :class:`pybai.Session` keeps the state in an SQLite file so the experiment
survives restarts.  Here an A/B/n test of three page variants; the visitors are simulated.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from pybai import Bernoulli, BestArmProblem, FixedConfidence, Session, make_strategy

folder = tempfile.mkdtemp()
db = Path(folder) / "checkout.db"
problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(delta=0.05))
session = Session.create(db, problem=problem, strategy=make_strategy("top-two"), seed=7, name="checkout")

conversion = [0.10, 0.15, 0.25]          # unknown in real life
visitors = np.random.default_rng(1)
while not session.stopped:
    request = session.ask()              # which variant the next visitor sees
    variant = int(request.requests[0])
    bought = float(visitors.random() < conversion[variant])
    session.tell(request.id, [variant], [bought])
session.close()

# %%
# Any other process, any later day, opens the file and reads the state.
with Session.open(db) as s:
    status = s.status()
print("answer: variant", status["answer"], "after", status["samples"], "visitors")
print("visitors per variant:", status["counts"])

# %%
fig, ax = plt.subplots(figsize=(5, 3))
means = np.asarray(status["means"])
low, high = np.asarray(status["ci_low"]), np.asarray(status["ci_high"])
ax.errorbar(range(3), means, yerr=[means - low, high - means], fmt="o", capsize=4)
ax.set_xticks(range(3), ["A", "B", "C"])
ax.set_ylabel("conversion rate (95% interval)")
fig.tight_layout()
