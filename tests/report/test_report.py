import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from pybai.report import format_results  # noqa: E402
from pybai.report.figures import FIGURES, FigureData  # noqa: E402


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


def test_bars_and_allocation_kinds_draw_a_document():
    """The figure registry draws what report/plots.py drew: bars with the lower bound, allocations beside w*."""
    doc = document([[0.2, 0.3], [0.4, 0.1]])
    complexity = {"lower_bound": 50.0, "optimal_weights": [[0.25, 0.25], [0.25, 0.25]]}
    data = FigureData("d", doc, [], complexity_of=lambda point: complexity)
    fig = FIGURES["bars"].function(data, {"hline": "lower_bound"})
    (ax,) = fig.axes
    assert [p.get_height() for p in ax.patches] == [100.0, 100.0]
    assert [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == "--"] == [50.0]
    plt.close(fig)
    fig = FIGURES["allocation"].function(data, {"reference": "optimal_weights", "reference_label": "w*", "vmax": 0.45})
    heat = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in heat] == ["s", "t", "w*"]
    assert all(ax.images[-1].get_array().shape == (2, 2) and ax.images[-1].get_clim() == (0.0, 0.45) for ax in heat)
    plt.close(fig)
    with pytest.raises(KeyError, match="missing"):
        FIGURES["allocation"].function(data, {"strategies": ["missing"]})


def test_table_header_names_the_threshold_and_whether_it_is_proven():
    from pybai.simulate import run_sweep
    from pybai.simulate.tasks import Sweep

    doc = {"name": "hdr", "seed": 1, "replications": 2, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "gaussian", "means": [2.0, 0.0]},
           "strategy": [{"name": "tas"}, {"name": "tas", "label": "proven", "threshold": "delta-correct"}]}
    document = run_sweep(Sweep.from_document(doc), progress=False)
    rows = {r["strategy"]: r["threshold"] for r in document["results"]}
    assert rows == {"tas": {"kind": "heuristic", "proven": False, "default": True},
                    "proven": {"kind": "delta-correct", "proven": True, "default": False}}
    head = format_results(document).splitlines()[1]
    assert head == ("threshold: tas: heuristic (papers' default, not a proven guarantee); "
                    "proven: delta-correct (proven)")
    del document["results"][1]
    assert format_results(document).splitlines()[1] == "threshold: heuristic (papers' default, not a proven guarantee)"
