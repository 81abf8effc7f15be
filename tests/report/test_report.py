import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from pybai.report import format_results  # noqa: E402
from pybai.report.plots import plot_allocation, plot_allocation_heatmap, plot_mean_samples  # noqa: E402


def document(alloc):
    row = {
        "strategy": "s", "replications": 10, "mean_samples": 100.0, "sd_samples": 10.0, "median_samples": 99.0,
        "mean_batches": None, "censored": 0, "correct_rate": 1.0, "mean_simple_regret": 0.0,
        "false_negative_rate": None, "mean_allocation": alloc, "wall_seconds": 0.1,
    }
    return {"name": "d", "goal": "best-arm", "answer": 0, "results": [row, dict(row, strategy="t")]}


def test_table_drops_empty_columns():
    text = format_results(document([0.5, 0.5]))
    assert "mean samples" in text and "FNR" not in text and "batches" not in text
    assert len(text.splitlines()) == 5


def test_plots_return_axes():
    fig, axes = plt.subplots(1, 3)
    doc = document([[0.2, 0.3], [0.4, 0.1]])
    assert plot_mean_samples(doc, axes[0], lower_bound=50.0) is axes[0]
    assert plot_allocation(doc, axes[1], optimal_weights=[[0.25, 0.25], [0.25, 0.25]]) is axes[1]
    assert plot_allocation_heatmap(doc, axes[2], "t") is axes[2]
    assert axes[2].images[-1].get_array().shape == (2, 2)
    with pytest.raises(KeyError):
        plot_allocation_heatmap(doc, axes[2], "missing")
    plt.close(fig)
