"""An A/B/n test with Bernoulli arms as a persistent session (README, "Real experiments").

Run from any directory: it creates checkout.db there (remove it to run again).
"""
import numpy as np
from pybai import Bernoulli, BestArmProblem, FixedConfidence, make_strategy
from pybai.session import Session

problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(delta=0.05))   # variants A, B, C
session = Session.create("checkout.db", problem=problem, strategy=make_strategy("top-two"),
                         seed=7, name="checkout")

conversion = [0.10, 0.15, 0.25]        # unknown in real life; here it simulates the visitors
visitors = np.random.default_rng(1)
while not session.stopped:
    request = session.ask()            # which variant the next visitor sees
    variant = int(request.requests[0])
    bought = float(visitors.random() < conversion[variant])
    session.tell(request.id, [variant], [bought])
session.close()

with Session.open("checkout.db") as s:  # any other process, any later day
    status = s.status()
print(status["answer"], "after", status["samples"], "visitors; certified:", status["certified"])
print("visitors per variant:", status["counts"])
print("conversion:", [round(m, 3) for m in status["means"]])
print("95% intervals:", [[round(lo, 3), round(hi, 3)] for lo, hi in zip(status["ci_low"], status["ci_high"])])
