"""[reproduce] tables, intervals, figure kinds and `pybai report` / `pybai reproduce` on small stores."""

import copy
import math
import re
import struct
import textwrap

import pytest

from pybai.cli import main
from pybai.exceptions import ConfigError
from pybai.report.figures import FIGURES, FigureData
from pybai.report.intervals import estimate, metric_interval
from pybai.report.spec import apply_quick, parse_reproduce
from pybai.simulate import Sweep, run_sweep

SWEEP = """
name = "small"
replications = 12
seed = 1
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.5, 0.0]
sigma = 1.0
[grid]
"environment.sigma" = [0.5, 1.0, 2.0]
[[strategy]]
name = "tas"
[[strategy]]
name = "uniform"
[reproduce]
name = "small-repro"
title = "A small sweep: samples vs sigma"
quick = { replications = 6, grid = { "environment.sigma" = [0.5, 1.0] } }
[[reproduce.figure]]
kind = "metric-vs-grid"
x = "sigma"
y = "mean_samples"
log_y = true
hline = 10
[[reproduce.figure]]
kind = "allocation"
at = { sigma = 1.0 }
[[reproduce.figure]]
kind = "boxplot"
y = "samples"
[[reproduce.figure]]
kind = "histogram"
y = "recommendation"
[[reproduce.figure]]
kind = "table"
columns = ["mean_samples", "correct_rate"]
[reproduce.paper]
source = "nobody (2026)"
columns = ["strategy", "sigma", "mean_samples"]
rows = [["tas", 1.0, 40.0], ["uniform", 2.0, 200.0]]
"""


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_wilson_and_normal_intervals_by_hand():
    rows = [{"correct": c} for c in [True] * 18 + [False] * 2]
    p, low, high = metric_interval(rows, "correct_rate")
    # Wilson: centre (p + z^2/2n) / (1 + z^2/n), half z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n), z = 1.96
    z, n = 1.959963984540054, 20
    centre = (0.9 + z * z / 40) / (1 + z * z / n)
    half = z * (0.9 * 0.1 / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    assert (p, low, high) == pytest.approx((0.9, centre - half, centre + half))
    mean, low, high = estimate([1.0, 2.0, 3.0, None, float("nan")])
    assert (mean, high - mean) == pytest.approx((2.0, 1.959963984540054 * 1.0 / 3 ** 0.5))
    assert metric_interval(rows, "unknown_metric") is None


def test_reproduce_table_validation():
    spec = parse_reproduce({"name": "x", "figure": [{"kind": "boxplot", "y": "samples"}]})
    assert spec.figures[0].kind == "boxplot" and spec.paper is None
    bad = [
        ({"name": "x", "titel": "t"}, 'reproduce.titel: unknown key (did you mean "title"?)'),
        ({"name": "x", "figure": [{"kind": "pie"}]}, "reproduce.figure[0].kind: expected one of"),
        ({"name": "x", "figure": [{"kind": "metric-vs-grid", "x": "d"}]}, "reproduce.figure[0].y: missing"),
        ({"name": "x", "figure": [{"kind": "boxplot", "y": "samples", "colour": 1}]}, "figure[0].colour: unknown"),
        ({"name": "x", "paper": {"source": "s", "columns": ["a", "b"], "rows": [[1]]}}, "paper.rows"),
        ({"name": "x", "quick": {"replications": 0}}, "quick.replications"),
        ({"title": "no name"}, "reproduce.name"),
    ]
    for table, message in bad:
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_reproduce(table)


def test_apply_quick_sets_top_level_dotted_and_grid_values():
    spec = parse_reproduce({"name": "x", "quick": {"replications": 3, "problem.max_samples": 99,
                                                   "grid": {"environment.d": [2]}}})
    doc = {"replications": 100, "problem": {"delta": 0.1}, "grid": {"environment.d": [2, 5, 10]}}
    quick = apply_quick(doc, spec)
    assert quick == {"replications": 3, "problem": {"delta": 0.1, "max_samples": 99}, "grid": {"environment.d": [2]}}
    assert doc["grid"]["environment.d"] == [2, 5, 10]  # the original is untouched
    with pytest.raises(ConfigError, match="no such grid axis"):
        apply_quick({"grid": {}}, parse_reproduce({"name": "x", "quick": {"grid": {"problem.k": [1]}}}))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import tomllib

    folder = tmp_path_factory.mktemp("report") / "store"
    run_sweep(Sweep.from_document(tomllib.loads(SWEEP), "small"), out=folder)
    return folder


def test_report_from_store_alone(store, capsys):
    assert main(["report", str(store)]) == 0
    assert "report:" in capsys.readouterr().out
    html = (store / "report.html").read_text()
    figures = sorted((store / "figures").glob("*.png"))
    assert [p.name for p in figures] == ["small-1-metric-vs-grid.png", "small-2-allocation.png",
                                         "small-3-boxplot.png", "small-4-histogram.png"]
    assert html.count("<img") == len(figures)
    for path in figures:
        assert f'alt="{path.name}"' in html  # the page references (and embeds) every figure
        width, height = png_size(path)
        assert 300 <= width <= 2500 and 200 <= height <= 1500 and path.stat().st_size > 5000
    tables = sorted(p.name for p in (store / "tables").glob("*.csv"))
    assert tables == ["small-5-table.csv", "small-paper.csv", "small-summary.csv"]
    paper = (store / "tables" / "small-paper.csv").read_text().splitlines()
    assert paper[0] == ("strategy,sigma,mean_samples (paper),mean_samples (pybai),"
                        "mean_samples (pybai) low95,mean_samples (pybai) high95")
    assert paper[1].startswith("tas,1.0,40.0,") and paper[2].startswith("uniform,2.0,200.0,")
    assert "nobody (2026)" in html and "A small sweep" in html


def test_paper_values_are_the_stored_means(store):
    from pybai.reproductions import store_part
    from pybai.report.experiment import paper_comparison

    part = store_part(store)
    table = paper_comparison(part.data, part.spec.paper)
    rows = part.data.rows_of(1, "tas")  # sigma = 1.0 is point 1
    mean = sum(r["samples"] for r in rows) / len(rows)
    assert table.rows[0][3].value == pytest.approx(mean) and len(rows) == 12


def test_figure_kinds_handle_a_gridless_store(tmp_path):
    doc = {"name": "flat", "replications": 5, "seed": 2, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "bernoulli", "means": [0.9, 0.2]}, "strategy": [{"name": "uniform"}]}
    document = run_sweep(Sweep.from_document(copy.deepcopy(doc)), out=tmp_path / "s")
    from pybai.simulate import read_store

    data = FigureData("flat", document, read_store(tmp_path / "s").rows)
    for kind, options in [("allocation", {}), ("boxplot", {"y": "samples"}), ("histogram", {"y": "samples"}),
                          ("table", {})]:
        made = FIGURES[kind].function(data, options)
        assert made is not None
    with pytest.raises(KeyError, match="not a grid key"):
        FIGURES["metric-vs-grid"].function(data, {"x": "d", "y": "mean_samples"})


def test_reproduce_runs_quick_stores_and_reports(tmp_path, monkeypatch, capsys):
    import pybai.reproductions as rep

    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "small.toml").write_text(textwrap.dedent(SWEEP))
    monkeypatch.setattr(rep, "experiment_names", lambda: ["small"])
    monkeypatch.setattr(rep, "experiment_path", lambda name: shipped / f"{name}.toml")
    assert main(["reproduce", "--list"]) == 0
    assert "small-repro" in capsys.readouterr().out
    out = tmp_path / "out"
    assert main(["reproduce", "small-repro", "--quick", "--out", str(out), "--quiet"]) == 0
    manifest = (out / "small" / "manifest.json").read_text()
    assert '"replications": 6' in manifest and len((out / "figures").glob("*.png").__iter__().__next__().name) > 0
    assert (out / "report.html").read_text().count("<img") == 4
    page = (out / "report.html").read_text()
    assert "Quick run (--quick): replications = 6 (the full run: 12); environment.sigma in [0.5, 1.0] (the full run: " \
           "[0.5, 1.0, 2.0])" in page
    summary = page.split("<h2>Summary</h2>")[1].split("</ul>")[0]
    assert "Compared: 2 strategies (tas, uniform) on best-arm identification (fixed confidence), 6 runs each, " \
           "at each of 2 grid points." in summary and "Lowest mean samples: " in summary
    # again without --resume: refused before running; with --resume: nothing to run
    assert main(["reproduce", "small-repro", "--quick", "--out", str(out), "--quiet"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["reproduce", "small-repro", "--quick", "--out", str(out), "--quiet", "--resume"]) == 0
    assert main(["reproduce", "nothing"]) == 2


def test_shipped_reproduce_tables_are_valid_and_quick_versions_parse():
    from pybai.reproductions import shipped_reproductions

    known = shipped_reproductions()
    assert {"gk16-table2", "baics-table1", "baics-star"} <= set(known)
    assert [p.stem for p, _ in known["baics-table1"].files] == ["baics-example-1", "baics-example-2"]
    from pybai.config import read_document
    from pybai.report.spec import apply_variant

    variants = 0
    for reproduction in known.values():
        for path, spec in reproduction.files:
            document = read_document(path)
            quick = Sweep.from_document(apply_quick(document, spec), path.stem)
            assert all(e.replications <= 100 for e in quick.experiments), path
            for variant in spec.variants:  # every variant parses, quick and full, and keeps the file's seed
                full = apply_variant(document, spec, variant.name, path.stem)
                small = Sweep.from_document(apply_quick(full, spec), full["name"])
                assert all(e.replications <= 100 and e.seed == document["seed"] for e in small.experiments), full["name"]
                assert Sweep.from_document(full, full["name"]).experiments[0].strategies
                variants += 1
    assert variants >= 6


def test_variants_and_derived_metrics_are_validated():
    from pybai.report.spec import apply_variant

    bad = [
        ({"name": "x", "variant": [{"name": "a b"}]}, "variant[0].name: expected letters"),
        ({"name": "x", "variant": [{"name": "a", "sett": {}}]}, 'variant[0].sett: unknown key (did you mean "set"?)'),
        ({"name": "x", "variant": [{"name": "a"}, {"name": "a"}]}, "two variants share a name"),
        ({"name": "x", "variant": [{"name": "a", "set": {"replications": 0}}]}, "variant[0].set.replications"),
        ({"name": "x", "as_variant": "b"}, 'no variant named "b"'),
        ({"name": "x", "metric": {"m": {"of": "mean_samples", "source": 0}}}, "metric.m: give exactly one of"),
        ({"name": "x", "metric": {"m": {"source": -1}}}, "metric.m.source"),
        ({"name": "x", "metric": {"m": {"source": 0}, "r": {"of": "m"}}}, "metric.r.of: 'm' is itself derived"),
        ({"name": "x", "metric": {"m": {"of": "mean_samples", "scale": 0}}}, "metric.m.scale"),
    ]
    for table, message in bad:
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_reproduce(table)
    spec = parse_reproduce({"name": "x", "quick": {"replications": 6},
                            "variant": [{"name": "v", "set": {"environment.sigma": 2.0}, "quick": {"replications": 3}}]})
    doc = {"name": "f", "replications": 12, "environment": {"sigma": 1.0}, "reproduce": {"name": "x"}}
    varied = apply_variant(doc, spec, "v")
    assert varied["environment"]["sigma"] == 2.0 and doc["environment"]["sigma"] == 1.0
    assert apply_quick(varied, spec)["replications"] == 3 and apply_quick(doc, spec)["replications"] == 6
    with pytest.raises(ConfigError, match="a list on the way"):
        apply_variant({"strategy": [1, 2]}, parse_reproduce({"name": "x", "variant": [
            {"name": "v", "set": {"strategy.threshold": "x"}}]}), "v")


def test_derived_metrics_by_hand(store):
    from pybai.reproductions import store_part

    part = store_part(store)
    data = part.data
    data.metrics = parse_reproduce({"name": "x", "metric": {
        "speedup": {"of": "mean_samples", "at": {"sigma": 2.0}, "invert": True},
        "vs_uniform": {"of": "mean_samples", "at": {"strategy": "uniform"}},
        "bound_multiple": {"of": "mean_samples", "over": "lower_bound"},
        "us_per_sample": {"of": "mean_cpu_seconds", "over": "mean_samples", "scale": 1e6},
        "x1": {"source": 0}}}).metrics

    def mean(point, strategy, field):
        rows = data.rows_of(point, strategy)
        return sum(r[field] for r in rows) / len(rows)

    point = data.points[0]  # sigma = 0.5
    table = FIGURES["table"].function(data, {"columns": ["speedup", "vs_uniform", "bound_multiple", "us_per_sample", "x1"],
                                             "at": {"sigma": 0.5}})
    assert table.header == ["sigma", "strategy", "speedup", "vs_uniform", "bound_multiple", "us_per_sample", "x1"]
    speedup, vs_uniform, multiple, cost, x1 = table.rows[0][2:]
    assert speedup.value == pytest.approx(mean(2, "tas", "samples") / mean(0, "tas", "samples"))
    assert vs_uniform.value == pytest.approx(mean(0, "tas", "samples") / mean(0, "uniform", "samples"))
    assert speedup.low < speedup.value < speedup.high
    lower_bound = data.complexity(point)["lower_bound"]
    report = data.complexity(point)  # with t = T* beta(t), beta the heuristic threshold ln((1 + ln t)/delta)
    t = report["heuristic_stop"]
    assert t == pytest.approx(report["characteristic_time"] * math.log((1 + math.log(t)) / 0.1), rel=1e-9)
    assert multiple.value == pytest.approx(mean(0, "tas", "samples") / lower_bound)
    assert cost.value == pytest.approx(1e6 * mean(0, "tas", "cpu_seconds") / mean(0, "tas", "samples"))
    assert x1.value == pytest.approx(sum(r["counts"][0] for r in data.rows_of(0, "tas")) / 12)
    assert [r[:2] for r in table.rows] == [[0.5, "tas"], [0.5, "uniform"]]
    assert table.rows[1][3].value == pytest.approx(1.0)
    complexity = FIGURES["complexity"].function(data, {})
    assert complexity.header[:1] == ["sigma"] and "lower_bound" in complexity.header and len(complexity.rows) == 3
    bars = FIGURES["bars"].function(data, {"y": "speedup", "at": {"sigma": 1.0}})
    assert len(bars.axes[0].patches) == 2


VARIANT = SWEEP.replace('''[[reproduce.figure]]
kind = "metric-vs-grid"''', '''[[reproduce.variant]]
name = "proven"
title = "with the proven threshold"
set = { "strategy.threshold" = "delta-correct" }
quick = { replications = 3 }
compare = ["mean_samples", "correct_rate"]
[[reproduce.variant.figure]]
kind = "boxplot"
y = "samples"
[[reproduce.figure]]
kind = "metric-vs-grid"''', 1)


def test_reproduce_runs_variants_in_their_own_stores_beside_the_file(tmp_path, monkeypatch, capsys):
    import json

    import pybai.reproductions as rep

    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "small.toml").write_text(textwrap.dedent(VARIANT))
    monkeypatch.setattr(rep, "experiment_names", lambda: ["small"])
    monkeypatch.setattr(rep, "experiment_path", lambda name: shipped / f"{name}.toml")
    out = tmp_path / "out"
    assert main(["reproduce", "--list"]) == 0
    assert "files: small +proven" in capsys.readouterr().out
    assert main(["reproduce", "small-repro", "--quick", "--out", str(out), "--quiet"]) == 0
    manifest = json.loads((out / "small--proven" / "manifest.json").read_text())
    document = manifest["document"]
    assert document["replications"] == 3 and document["name"] == "small--proven" and document["seed"] == 1
    assert {s["threshold"] for s in document["strategy"]} == {"delta-correct"}
    html = (out / "report.html").read_text()
    assert "with the proven threshold" in html and "Beside small" in html
    versus = (out / "tables" / "small--proven-versus.csv").read_text().splitlines()
    assert versus[0].startswith("sigma,strategy,mean_samples (small),")
    assert len(versus) == 1 + 2 * 2  # two quick grid points x two strategies
    assert sorted(p.name for p in (out / "figures").glob("small--proven-*")) == ["small--proven-1-boxplot.png"]
    # the variant's replications are the file's first ones: same truths and noise, other threshold
    rows = [json.loads(line) for line in (out / "small" / "outcomes.jsonl").read_text().splitlines()]
    mine = [json.loads(line) for line in (out / "small--proven" / "outcomes.jsonl").read_text().splitlines()]
    first = {(r["point"], r["strategy"], r["replication"]): r for r in rows}
    assert all((r["point"], r["strategy"], r["replication"]) in first for r in mine)
    assert all(r["samples"] >= first[(r["point"], r["strategy"], r["replication"])]["samples"]
               for r in mine if r["strategy"] == "uniform")


def test_paper_rows_without_a_strategy_and_with_findings_in_words(store):
    from pybai.report.experiment import paper_comparison
    from pybai.report.spec import PaperTable
    from pybai.reproductions import store_part

    data = store_part(store).data
    findings = PaperTable("s", ["strategy", "finding"], [["tas", "fast"], ["uniform", "slow"]])
    table = paper_comparison(data, findings)
    assert table.header == ["strategy", "finding"] and table.rows == [["tas", "fast"], ["uniform", "slow"]]
    only = FigureData(data.name, {"results": [r for r in data.points[0]["results"] if r["strategy"] == "tas"]},
                      data.rows)
    table = paper_comparison(only, PaperTable("s", ["mean_samples"], [[10.0]]))
    assert table.rows[0][0] == 10.0 and table.rows[0][1].value == pytest.approx(
        sum(r["samples"] for r in data.rows_of(0, "tas")) / 12)


def test_figures_speak_in_users_words_and_tell_strategies_apart(store):
    """Axis labels, titles and legends carry no raw field names; each strategy keeps one colour in every figure."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from pybai.report.registry import STRATEGY_COLOURS, strategy_style
    from pybai.reproductions import store_part

    part = store_part(store)
    data = part.data
    colours = {}
    for figure in part.spec.figures:
        made = FIGURES[figure.kind].function(data, figure.options)
        if not hasattr(made, "axes"):
            continue
        for ax in made.axes:
            texts = [ax.get_xlabel(), ax.get_ylabel(), ax.get_title()]
            legend = ax.get_legend()
            texts += [t.get_text() for t in legend.get_texts()] if legend else []
            for text in texts:
                assert not re.search(r"[a-z]_[a-z]", text), (figure.kind, text)
            for handle, label in zip(*ax.get_legend_handles_labels()):
                if label in data.strategies():
                    artist = handle.patches[0] if hasattr(handle, "patches") else handle[0] if isinstance(
                        handle, tuple) else handle
                    colour = artist.get_facecolor() if hasattr(handle, "patches") else artist.get_color()
                    colours.setdefault(label, set()).add(to_hex(colour))
        plt.close(made)
    assert colours and all(c == {strategy_style(data, s)["color"]} for s, c in colours.items())
    assert len(set(STRATEGY_COLOURS)) == 12


def test_twelve_strategy_colours_are_far_apart():
    """CIE76 distance in L*a*b* between every two of the 12 colours (>= 25: distinct at a glance)."""
    import itertools

    import numpy as np

    from pybai.report.registry import STRATEGY_COLOURS

    def lab(colour):
        rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
        rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
        xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ rgb
        f = np.cbrt(np.maximum(xyz / np.array([0.95047, 1.0, 1.08883]), 0.008856))
        return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])

    distances = [np.linalg.norm(lab(a) - lab(b)) for a, b in itertools.combinations(STRATEGY_COLOURS, 2)]
    assert min(distances) >= 25


def test_summary_leaves_out_columns_that_are_zero_everywhere(store):
    from pybai.report.registry import default_columns
    from pybai.reproductions import store_part

    data = store_part(store).data
    columns = default_columns(data)
    assert "mean_simple_regret" not in columns and "censored" not in columns  # all runs correct, none censored
    assert "mean_batches" not in columns  # one sample per batch: the same as mean_samples
    assert "correct_rate" in columns and "mean_samples" in columns


def test_report_of_a_guardrail_run_compares_allocations_per_arm(tmp_path, capsys):
    """A guardrail run stores its allocation per source (arm x metric) and its w* per arm: the report's allocation
    figure compares them per arm (each observation carries every metric of its arm) instead of failing."""
    import json
    import tomllib

    from _toml import write_toml  # tests/_toml.py

    from pybai.experiments import experiment_path
    from pybai.simulate import read_store

    doc = tomllib.loads(experiment_path("guardrails-latency").read_text())
    doc.update(replications=2, strategy=[{"name": "tas"}])
    doc["problem"]["max_samples"] = 300
    path = tmp_path / "g.toml"
    write_toml(path, doc)
    out = tmp_path / "out"
    assert main(["run", str(path), "--quiet", "--out", str(out)]) == 0
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    assert "3 figures" in capsys.readouterr().out
    data = FigureData("g", json.loads((out / "results.json").read_text()), read_store(out).rows)
    fig = FIGURES["allocation"].function(data, {"reference": [0.4, 0.4, 0.1, 0.1]})
    bars = [p.get_height() for p in fig.axes[0].patches]
    assert len(bars) == 2 * 4  # tas and the reference, one bar per arm
    assert abs(sum(bars[:4]) - 1.0) < 1e-6 and bars[4:] == [0.4, 0.4, 0.1, 0.1]
