import pytest

from pybai.report import format_results
from pybai.report.figures import FIGURES, FigureData


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


def test_bars_and_allocation_kinds_draw_a_document(plt):
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


def test_report_page_reads_well(tmp_path):
    """One title, captions saying what a figure shows, readers' column names, w* and the lower bound by default."""
    from pybai.report.experiment import ReportPart, write_report

    doc = document([0.6, 0.4])
    doc["results"][0].update(censored=2, mean_samples_stopped=90.0)
    doc["results"][1].update(mean_samples_stopped=100.0)
    complexity = {"lower_bound": 50.0, "optimal_weights": [0.5, 0.5]}
    data = FigureData("d", doc, [], complexity_of=lambda point: complexity)
    html = write_report([ReportPart(data)], tmp_path, "d").html.read_text()
    assert html.count("<h1>d</h1>") == 1 and "<h2>d</h2>" not in html
    captions = [c.split("</figcaption>")[0] for c in html.split("<figcaption>")[1:]]
    assert len(captions) == 3 and not any(".png" in c for c in captions)
    assert "beside w*(mu)" in captions[0] and "lower bound T* kl(delta, 1 - delta)" in captions[2]
    headers = [h.split("</th>")[0] for h in html.split("<th>")[1:]]
    assert "mean samples" in headers and "mean samples over the runs that stopped" in headers
    assert not any("_" in h for h in headers), headers
    # nothing censored: the column over the stopped runs is left out
    doc["results"][0].update(censored=0)
    html = write_report([ReportPart(FigureData("d", doc, []))], tmp_path / "2", "two parts").html.read_text()
    assert "<h2>d</h2>" in html and "the runs that stopped" not in html


def test_allocation_heat_maps_name_arms_and_subpopulations(plt):
    from pybai.config.experiment import read_document
    from pybai.experiments import experiment_path
    from pybai.report.spec import parse_reproduce

    doc = document([[0.2, 0.3], [0.4, 0.1]])
    data = FigureData("d", doc, [])
    fig = FIGURES["allocation"].function(data, {"arm_names": ["small", "large"], "subpopulation_names": ["x", "y"]})
    first = [ax for ax in fig.axes if ax.images][0]
    assert [t.get_text() for t in first.get_yticklabels()] == ["small", "large"]
    assert [t.get_text() for t in first.get_xticklabels()] == ["x", "y"]
    plt.close(fig)
    # the shipped STAR study names its class types and school types
    spec = parse_reproduce(read_document(experiment_path("star-class-size"))["reproduce"], where="star")
    (alloc,) = [f for f in spec.figures if f.kind == "allocation"]
    assert alloc.options["arm_names"][2] == "small" and len(alloc.options["subpopulation_names"]) == 4
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
