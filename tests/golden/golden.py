"""Golden outputs: what every shipped experiment and every common-check case produce, bit for bit.

Recorded before a refactoring and checked after it (``test_golden.py``): a change of layout must
not change one outcome.  Each computation runs in a child process whose floating point does not
depend on the CPU it runs on (:data:`PORTABLE_ENV`: numpy's AVX-512 loops and OpenBLAS's
per-CPU kernels are fixed to the AVX2 ones), so a golden file recorded on one x86-64 machine
holds on another.

Run as a script to (re)record: ``python tests/golden/golden.py record [NAME ...]``.  Recording
anew is a deliberate act: it is right only when a change is *meant* to change results, and the
commit must say which and why.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pathlib
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"
#: environment of the child processes: CPU-independent floating point (see the module docstring)
PORTABLE_ENV = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
}


def _plain(value):
    """A JSON-safe, exact form of an outcome field (floats by repr, non-finite as strings)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biu" or (value.dtype.kind == "f" and np.isfinite(value).all()):
            return value.tolist()  # the same Python ints, bools and floats, without a call per element
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else repr(value)
    return value


def digest(records) -> str:
    """SHA-256 of records in canonical JSON."""
    text = json.dumps(records, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------- experiments
def experiment_names() -> list[str]:
    """The shipped experiment files that belong to a reproduction (they have a [reproduce] table)."""
    from pybai.reproductions import shipped_reproductions

    return sorted(path.stem for rep in shipped_reproductions().values() for path, _ in rep.files)


#: shipped experiment files that belong to no reproduction but are held by the golden test all the same (their
#: whole run, every replication recorded; the test computes the first :data:`CHECKED` of each row)
STANDALONE = ("guardrails-latency",)


#: files whose ``--quick`` run is long (minutes): their golden file holds this many replications per
#: strategy, enough for a change of outcomes to show (a file-name prefix -> replications)
CAPPED = {"leaderboard-": 3}

#: replications per (point, strategy) that ``make test`` computes and compares (the first ones of the
#: recorded run).  Every replication has a seed of its own (``SeedSequence(seed, spawn_key=(r,))``), so
#: the first replications of a short run are those of the recorded run, bit for bit; a change of a rule
#: shows in its first run of every strategy at every grid point of every shipped file.  ``PYBAI_GOLDEN_FULL=1`` computes and compares every recorded replication
#: (for a refactoring: about ten times the work).
CHECKED = 1


def checked_replications() -> int | None:
    """Replications per (point, strategy) the test computes: :data:`CHECKED`, or all (None) with
    ``PYBAI_GOLDEN_FULL=1``."""
    return None if os.environ.get("PYBAI_GOLDEN_FULL") == "1" else CHECKED


def run_digest(run: dict) -> str:
    """Short digest of one replication's outcome (64 bits: the per-run check of :data:`CHECKED`)."""
    return digest([run])[:16]


def experiment_outcomes(name: str, replications: int | None = None) -> dict:
    """Per (point, strategy) of the file's ``--quick`` run (:data:`CAPPED`: its first replications;
    ``replications``: at most that many): digest of its outcomes, one digest per replication and a
    summary."""
    from pybai.config.experiment import read_document
    from pybai.experiments import experiment_path
    from pybai.report.spec import apply_quick, parse_reproduce
    from pybai.simulate.tasks import Sweep, make_tasks, run_task

    path = experiment_path(name)
    document = read_document(path)
    spec = parse_reproduce(document.get("reproduce"), where=name)
    document = _cut_replications(apply_quick(document, spec), name, replications)
    sweep = Sweep.from_document(document, default_name=name)
    results = [run_task(sweep.experiments, task, sweep.gridded) for task in make_tasks(sweep.experiments)]
    return _rows(sweep, results)


def _cut_replications(document: dict, name: str, replications: int | None) -> dict:
    """``document`` (a ``--quick`` experiment) with its replications cut to :data:`CAPPED`'s cap for ``name``,
    then to at most ``replications``."""
    for prefix, cap in CAPPED.items():
        if name.startswith(prefix):
            document["replications"] = min(int(document["replications"]), cap)
    if replications is not None:
        document["replications"] = min(int(document.get("replications", replications)), replications)
    return document


def _rows(sweep, results) -> dict:
    """The golden rows of a sweep's task results (:func:`experiment_outcomes`' format), per (point, strategy)
    in replication order."""
    rows: dict[str, list] = {}
    for result in sorted(results, key=lambda r: (r.task.point, r.task.strategy, r.task.first)):
        task = result.task
        label = sweep.experiments[task.point].strategies[task.strategy][0]
        key = f"point {task.point} / {label}"
        for o in result.outcomes:
            rows.setdefault(key, []).append({
                "samples": o.samples, "batches": o.batches, "status": o.status,
                "recommendation": _plain(o.recommendation), "correct": bool(o.correct),
                "simple_regret": _plain(o.simple_regret), "false_negative": _plain(o.false_negative),
                "counts": _plain(o.counts), "gain": _plain(o.gain), "oracle_gain": _plain(o.oracle_gain),
            })
    return {
        key: {
            "replications": len(runs),
            "mean_samples": float(np.mean([r["samples"] for r in runs])),
            "correct": int(sum(r["correct"] for r in runs)),
            "digest": digest(runs),
            "runs": [run_digest(r) for r in runs],
        }
        for key, runs in rows.items()
    }


# --------------------------------------------------------------------------- reproductions
def reproductions() -> dict[str, list[str]]:
    """Every shipped reproduction's name -> its experiment files (their stems, the golden files' names)."""
    from pybai.reproductions import shipped_reproductions

    return {name: [path.stem for path, _ in rep.files] for name, rep in shipped_reproductions().items()}


#: steps of the pilot run that preflight times, in :func:`reproduction_outcomes` (the command's: 40)
PILOT_STEPS = 4


def reproduction_outcomes(name: str, replications: int | None = None) -> dict:
    """``pybai reproduce NAME --quick``, the command itself, with the golden test's replications, and the
    golden rows of each of its files from the outcomes the command computed and stored.

    The command runs its whole path: preflight, the backend (``--jobs 1``), a store per file and
    variant, the report.  What differs from a user's ``--quick`` run: each file's replications are cut
    as in :func:`experiment_outcomes` (:data:`CAPPED`, then at most ``replications``), and the pilot
    run of preflight (which normally starts above two million samples) runs for every strategy of
    every point, :data:`PILOT_STEPS` timed steps without a minimum duration, so that every strategy
    passes through it.  The rows come from the task results as the engine hands them to the store
    (:meth:`ResultStore.append <pybai.simulate.store.ResultStore.append>`), so they hold the same
    values as :func:`experiment_outcomes`' (which computes the tasks one by one with ``run_task``):
    the golden files check that the command computes those very outcomes.

    Returns ``status`` (the command's exit status), ``out`` and ``err`` (what it printed),
    ``report`` (the path of its report.html) and ``report_written``, ``pilots`` (how many pilot runs
    preflight made) and ``files``: stem -> rows, for each store (a variant's stem is
    ``FILE--VARIANT``).
    """
    import contextlib
    import io
    import tempfile

    import pybai.reproductions as reproductions_module
    import pybai.simulate.preflight as preflight
    from pybai.cli import main as cli_main
    from pybai.simulate.store import ResultStore

    quick = reproductions_module.apply_quick
    pilot = preflight.pilot_seconds_per_sample
    append = ResultStore.append
    saved = (preflight._PILOT_FROM_SAMPLES, preflight._PILOT_STEPS)
    results: dict[str, tuple] = {}
    pilots: list[str] = []

    def golden_quick(document, spec):
        return _cut_replications(quick(document, spec), str(document.get("name", "")), replications)

    def counted_pilot(strategy, experiment, seconds=0.0):
        pilots.append(strategy.name)
        return pilot(strategy, experiment, seconds=0.0)

    def kept_append(store, result):
        results.setdefault(store.sweep.name, (store.sweep, []))[1].append(result)
        append(store, result)

    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory(prefix="golden-reproduce-") as folder:
        target = pathlib.Path(folder) / name
        reproductions_module.apply_quick = golden_quick
        preflight.pilot_seconds_per_sample = counted_pilot
        preflight._PILOT_FROM_SAMPLES, preflight._PILOT_STEPS = 0, PILOT_STEPS
        ResultStore.append = kept_append
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = cli_main(["reproduce", name, "--quick", "--out", str(target), "--quiet", "--jobs", "1"])
        finally:
            reproductions_module.apply_quick = quick
            preflight.pilot_seconds_per_sample = pilot
            preflight._PILOT_FROM_SAMPLES, preflight._PILOT_STEPS = saved
            ResultStore.append = append
        written = (target / "report.html").is_file()
    return {"status": status, "out": out.getvalue(), "err": err.getvalue()[-4000:],
            "report": str(target / "report.html"), "report_written": written, "pilots": len(pilots),
            "files": {stem: _rows(sweep, done) for stem, (sweep, done) in results.items()}}


def compare(what: str, expected: dict, got: dict) -> list[str]:
    """The rows of ``got`` that differ from the recorded ``expected`` (a line each).  A row computed on
    fewer replications than recorded is compared run by run with the recorded first ones."""
    lines = []
    for key, want in expected.items():
        have = got.get(key)
        if (what == "cases" or not isinstance(want, dict) or have is None  # compiled-epsilon: lists of runs
                or have.get("replications") == want.get("replications")):
            if have != want:
                lines.append(f"{key}: expected {want}, got {have}")
            continue
        n = have["replications"]
        if n > want["replications"] or have["runs"] != want["runs"][:n]:
            lines.append(f"{key}: first {n} runs: expected {want['runs'][:n]}, got {have['runs']}")
    return lines


# --------------------------------------------------------------------------- common-check cases
def case_outcomes() -> dict:
    """Every common-check case (strategy x goal x instance x regime x batching), seed 0, noise 1, the
    strategy with its check parameters (:data:`pybai.testing.instances.CHECK_PARAMS`)."""
    from pybai import get_strategy_class, registered_names
    from pybai.testing.instances import build, cases, checked_strategy

    out = {}
    for case in cases(registered_names(), get_strategy_class):
        name, goal, label, regime, batched = case
        env, problem = build(goal, label, regime, batched)
        strategy = checked_strategy(name).start(problem, rng=0)
        if strategy.reference:  # told the truth, as the simulation runner does
            strategy.reveal_truth(env.source_means)
        noise = np.random.default_rng(1)
        asks = 0
        while not strategy.stopped and asks < 200_000:
            strategy.tell(*env.respond(strategy.ask(), noise), request_id=strategy.request_id)
            asks += 1
        res = strategy.result()
        key = "-".join(str(x) for x in (name, goal, label, regime, "batch" if batched else "seq"))
        out[key] = {"status": res.status, "samples": res.samples, "batches": res.batches,
                    "counts": _plain(res.counts), "recommendation": _plain(res.recommendation),
                    "statistic": _plain(res.statistic), "means": _plain(res.means)}
    return out


# --------------------------------------------------------------------------- compiled epsilon runs
#: Rules with a compiled run and their variants, on the epsilon instances of :func:`compiled_epsilon_outcomes`
COMPILED_RULES = [("tas", {}), ("tas", {"tracking": "D"}), ("uniform", {}), ("top-two", {}),
                  ("top-two", {"challenger": "tc", "selection": "random", "beta": 0.4}), ("lucb", {}),
                  ("lucb", {"stopping": "confidence-intervals"}), ("game", {}), ("game", {"optimism": "ucb"})]


def compiled_epsilon_outcomes(fast: bool) -> dict:
    """Epsilon runs (an answer tolerance on ties) of every rule with a compiled run, 3 replications each.

    Recorded from the ask/tell loop (``fast=False``) and checked with the compiled runs (``fast=True``): the
    two are identical, which these rows pin down bit for bit.
    """
    from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian, TopKProblem, make_strategy
    from pybai.environments.bernoulli import BernoulliEnvironment
    from pybai.environments.gaussian import GaussianEnvironment
    from pybai.simulate.runner import run_replication

    gauss = GaussianEnvironment(np.array([1.0, 1.0, 0.8, 0.4]), [0.5, 0.7, 0.5, 0.5])
    bern = BernoulliEnvironment(np.array([0.6, 0.6, 0.5, 0.3]))
    regime = FixedConfidence(0.05, max_samples=20_000)
    instances = {
        "gaussian-additive": (gauss, BestArmProblem(4, Gaussian([0.5, 0.7, 0.5, 0.5], n_sources=4), regime, epsilon=0.2)),
        "gaussian-relative": (gauss, BestArmProblem(4, Gaussian([0.5, 0.7, 0.5, 0.5], n_sources=4), regime, epsilon=0.2,
                                                    epsilon_mode="relative")),
        "bernoulli-additive": (bern, BestArmProblem(4, Bernoulli(n_sources=4), regime, epsilon=0.1)),
        "top2-gaussian": (gauss, TopKProblem(4, 2, Gaussian([0.5, 0.7, 0.5, 0.5], n_sources=4), regime, epsilon=0.25)),
    }
    out = {}
    for label, (env, problem) in instances.items():
        for name, params in COMPILED_RULES:
            if problem.goal not in make_strategy(name).goals:
                continue
            for threshold in ("heuristic", "delta-correct"):
                strategy = make_strategy(name, dict(params, threshold=threshold))
                runs = [run_replication(strategy, env, problem, np.random.SeedSequence(5, spawn_key=(r,)), fast=fast)
                        for r in range(3)]
                key = f"{label}-{name}-{'-'.join(f'{k}={v}' for k, v in params.items()) or 'default'}-{threshold}"
                out[key] = [{"samples": o.samples, "status": o.status, "recommendation": _plain(o.recommendation),
                             "counts": _plain(o.counts), "correct": bool(o.correct)} for o in runs]
    return out


# --------------------------------------------------------------------------- child processes
def compute(what: str) -> dict:
    """``what`` ("cases" or an experiment name) computed in a child process with :data:`PORTABLE_ENV`."""
    env = {**os.environ, **PORTABLE_ENV}
    proc = subprocess.run([sys.executable, str(pathlib.Path(__file__).resolve()), "compute", what],
                          capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"golden computation of {what} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


class Worker:
    """One child process (:data:`PORTABLE_ENV`) that computes one ``what`` after another: a test file
    pays the child's imports and numba's cache loads once, not once per experiment.

    What it computes is what :func:`compute` computes in a fresh child (every computation starts
    from its own seed; no outcome depends on what ran before in the process): the golden files,
    recorded by :func:`compute`, are the check of that.  A computation that fails or outlives
    ``timeout`` seconds ends the child; the next one starts another.
    """

    def __init__(self, timeout: float = 1800.0):
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None

    def compute(self, what: str, replications: int | None = None) -> dict:
        """:func:`experiment_outcomes` (at most ``replications`` per row) or the cases, in the child."""
        import selectors

        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, str(pathlib.Path(__file__).resolve()), "serve"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **PORTABLE_ENV})
        proc = self.proc
        proc.stdin.write(what + ("" if replications is None else f" {replications}") + "\n")
        proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(self.timeout)
        line = proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            raise RuntimeError(f"golden computation of {what} failed or timed out:\n{self._stderr()[-4000:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"golden computation of {what} failed:\n{reply['error'][-4000:]}")
        return reply["result"]

    def _stderr(self) -> str:
        try:
            return self.proc.stderr.read() if self.proc is not None else ""
        except (OSError, ValueError):
            return ""

    def close(self) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()


def _serve() -> int:
    """The loop of :class:`Worker`'s child: a ``what`` per line in, ``{"result": ...}`` or
    ``{"error": traceback}`` per line out (on the original standard output; what the computation
    prints goes to standard error)."""
    import traceback

    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout = sys.stderr
    for line in sys.stdin:
        what, _, cap = line.strip().partition(" ")
        try:
            reply = {"result": outcomes(what, int(cap) if cap else None)}
        except Exception:  # noqa: BLE001 - reported to the test, which fails with it
            reply = {"error": traceback.format_exc()}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


def golden_file(what: str) -> pathlib.Path:
    return DATA / f"{what}.json"


def record(names: list[str]) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for what in names:
        result = compute(what + "@ask-tell" if what == "compiled-epsilon" else what)
        golden_file(what).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        print(f"recorded {what}: {len(result)} rows", flush=True)


#: prefix of a reproduction's name in a ``what`` (:func:`outcomes`): its run through the command
REPRODUCE = "reproduce:"


def outcomes(what: str, replications: int | None = None) -> dict:
    """The outcomes of ``what``: "cases", "compiled-epsilon" (recorded from ask/tell with the suffix
    "@ask-tell", checked compiled), an experiment name (at most ``replications`` per row) or
    ``reproduce:NAME`` (:func:`reproduction_outcomes`, the rows of each file of a reproduction)."""
    if what == "cases":
        return case_outcomes()
    if what.startswith("compiled-epsilon"):
        return compiled_epsilon_outcomes(fast=not what.endswith("@ask-tell"))
    if what.startswith(REPRODUCE):
        return reproduction_outcomes(what.removeprefix(REPRODUCE), replications)
    return experiment_outcomes(what, replications)


def main(argv: list[str]) -> int:
    if argv[:1] == ["compute"]:
        json.dump(outcomes(argv[1]), sys.stdout)
        return 0
    if argv[:1] == ["serve"]:
        return _serve()
    if argv[:1] == ["record"]:
        record(argv[1:] or ["cases", "compiled-epsilon", *experiment_names(), *STANDALONE])
        return 0
    print("usage: golden.py record [cases | compiled-epsilon | EXPERIMENT ...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
