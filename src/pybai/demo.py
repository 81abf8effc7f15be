"""``pybai demo``: a short run of each shipped experiment family, tables and figures."""

from __future__ import annotations

import json
from pathlib import Path

from pybai.complexity import complexity_report
from pybai.config import load_experiment
from pybai.experiments import experiment_path
from pybai.report import format_results
from pybai.simulate import run_experiment

__all__ = ["run_demo", "DEMO_EXPERIMENTS"]

#: (experiment name, replications in the demo, replications with --quick)
DEMO_EXPERIMENTS = [
    ("bai-gaussian-5", 200, 40),
    ("gk16-bernoulli-mu2", 200, 40),
    ("baics-example-1", 60, 20),
]


def run_demo(out: Path = Path("out/demo"), jobs: int = 2, quick: bool = False) -> list[dict]:
    """Run each demo experiment with reduced replications; write JSON and PNG to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.report.plots import plot_allocation, plot_allocation_heatmap, plot_mean_samples

    out.mkdir(parents=True, exist_ok=True)
    documents = []
    for name, reps, quick_reps in DEMO_EXPERIMENTS:
        experiment = load_experiment(experiment_path(name))
        experiment.replications = quick_reps if quick else reps
        cx = complexity_report(experiment)
        document = run_experiment(experiment, jobs=jobs, progress=True)
        document["complexity"] = cx
        print(format_results(document))
        print(f"  T*(mu) = {cx['characteristic_time']:.1f}, lower bound T* kl(delta, 1-delta) = {cx['lower_bound']:.1f}\n")
        (out / f"{name}.json").write_text(json.dumps(document, indent=2) + "\n")
        if len(experiment.problem.source_shape) == 2:  # arms x subpopulations: heat maps
            labels = [r["strategy"] for r in document["results"]]
            fig, axes = plt.subplots(1, len(labels) + 1, figsize=(4.2 * (len(labels) + 1), 3.6))
            plot_mean_samples(document, axes[0], lower_bound=cx["lower_bound"])
            for ax, label in zip(axes[1:], labels):
                plot_allocation_heatmap(document, ax, label, vmax=0.5)
        else:
            fig, axes = plt.subplots(1, 2, figsize=(11, 4))
            plot_mean_samples(document, axes[0], lower_bound=cx["lower_bound"])
            plot_allocation(document, axes[1], optimal_weights=cx["optimal_weights"])
        fig.tight_layout()
        fig.savefig(out / f"{name}.png", dpi=110)
        plt.close(fig)
        documents.append(document)
    print(f"figures and JSON written to {out}/")
    return documents
