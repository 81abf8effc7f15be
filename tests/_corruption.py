"""Helpers of the corruption property tests: every path of a nested document, setting one, playing a few rounds."""

from __future__ import annotations

import copy

import numpy as np

#: the value that deletes the key (or list element) at a path
DELETE = object()


def paths(node, prefix=()):
    """Every path (a tuple of keys and list indices) of a nested dict/list document, depth first."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield prefix + (key,)
        yield from paths(value, prefix + (key,))


def set_path(document, path, value) -> None:
    """Replace the value at ``path`` by a copy of ``value``, or delete it when ``value is DELETE``."""
    node = document
    for part in path[:-1]:
        node = node[part]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = copy.deepcopy(value)


def play(strategy, experiment, rounds: int, seed: int = 0):
    """Start ``strategy`` on ``experiment``'s problem and play up to ``rounds`` ask/tell rounds
    against one realised truth of its environment (noise and truth from ``seed``); returns it."""
    strategy.start(experiment.problem, rng=1)
    rng = np.random.default_rng(seed)
    env = experiment.environment.realize(rng)
    for _ in range(rounds):
        if strategy.stopped:
            break
        strategy.tell(*env.respond(np.asarray(strategy.ask()), rng))
    return strategy
