"""What Python users get from run_experiment: the document, every replication's outcome, DataFrames, a plot."""

import copy
import json
import pickle

import numpy as np
import pytest

from pybai import ExperimentResult, parse_experiment, plot_comparison, read_outcomes, run_experiment
from pybai.simulate import Sweep, run_replication, run_sweep
from pybai.simulate.seeding import replication_seed

DOC = {"name": "three", "seed": 7, "replications": 6, "problem": {"goal": "best-arm", "delta": 0.1},
       "environment": {"kind": "gaussian", "means": [1.0, 0.4, 0.0], "sigma": 1.0},
       "strategy": [{"name": "uniform"}, {"name": "tas"}]}


@pytest.fixture(scope="module")
def result():
    return run_experiment(parse_experiment(copy.deepcopy(DOC)))


def test_outcomes_are_the_replications_behind_the_summaries(result):
    assert isinstance(result, ExperimentResult) and isinstance(result, dict)
    rows = result.outcomes
    assert [(r["strategy"], r["replication"]) for r in rows] == [(s, i) for s in ("uniform", "tas") for i in range(6)]
    for summary in result["results"]:
        mine = [r for r in rows if r["strategy"] == summary["strategy"]]
        assert np.mean([r["samples"] for r in mine]) == pytest.approx(summary["mean_samples"])
        assert np.mean([r["correct"] for r in mine]) == pytest.approx(summary["correct_rate"])
    # each row is the replication run alone with its seed
    experiment = parse_experiment(copy.deepcopy(DOC))
    label, strategy = experiment.strategies[1]
    alone = run_replication(strategy, experiment.environment, experiment.problem, replication_seed(7, 3), 3)
    assert next(r for r in rows if r["strategy"] == label and r["replication"] == 3)["samples"] == alone.samples


def test_the_document_is_unchanged_for_json_and_pickle(result):
    text = json.dumps(result)
    assert "outcomes" not in json.loads(text) and json.loads(text)["results"] == result["results"]
    again = pickle.loads(pickle.dumps(result))
    assert again == result and again.outcomes == result.outcomes
    assert result.name == "three" and result.goal == "best-arm"


def test_dataframes_of_outcomes_and_summaries(result):
    pytest.importorskip("pandas")
    frame = result.to_dataframe()
    assert len(frame) == 12 and {"experiment", "strategy", "replication", "samples", "correct"} <= set(frame.columns)
    means = frame.groupby("strategy")["samples"].mean()
    assert means["tas"] == pytest.approx(result["results"][1]["mean_samples"])
    summary = result.to_dataframe("summary")
    assert summary["strategy"].tolist() == ["uniform", "tas"] and "mean_samples" in summary
    with pytest.raises(ValueError, match="what"):
        result.to_dataframe("everything")


def test_read_outcomes_gives_the_stored_rows_of_a_store_or_a_folder_of_stores(tmp_path):
    pytest.importorskip("pandas")
    doc = dict(copy.deepcopy(DOC), grid={"environment.sigma": [0.5, 1.0]})
    swept = run_sweep(Sweep.from_document(doc), out=tmp_path / "study" / "three")
    frame = read_outcomes(tmp_path / "study" / "three")
    assert len(frame) == 24 and frame["environment.sigma"].tolist().count(0.5) == 12
    assert frame.drop(columns="experiment").to_dict("records") == [
        {k: r.get(k) for k in frame.columns if k != "experiment"} for r in swept.outcomes]
    assert len(read_outcomes(tmp_path / "study")) == 24  # a folder of stores
    assert read_outcomes(tmp_path / "study" / "three" / "outcomes.jsonl", frame=False)[0]["experiment"] == "three"
    from pybai.exceptions import ConfigError

    with pytest.raises(ConfigError, match="no results store"):
        read_outcomes(tmp_path)


def test_one_call_plots_a_comparison_on_the_given_axes(result, plt):
    fig, ax = plt.subplots()
    assert plot_comparison(result, ax=ax) is ax and result.plot(ax=ax) is ax
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["uniform", "tas"]
    assert "samples at stopping" in ax.get_ylabel() and "_" not in ax.get_ylabel()
    fig2, ax2 = plt.subplots()
    plot_comparison(result.outcomes, y="correct_rate", ax=ax2)
    assert ax2.get_ylim() == pytest.approx((-0.02, 1.02))
    with pytest.raises(ValueError, match="not a column"):
        plot_comparison(result, y="nothing")
    plt.close(fig)
    plt.close(fig2)


def test_a_sweep_is_plotted_against_its_grid_key(tmp_path, plt):
    doc = dict(copy.deepcopy(DOC), grid={"environment.sigma": [0.5, 1.0]}, replications=4)
    swept = run_sweep(Sweep.from_document(doc))
    ax = plot_comparison(swept)
    assert ax.get_xlabel() == "sigma" and [t.get_text() for t in ax.get_legend().get_texts()] == ["uniform", "tas"]
    plt.close(ax.figure)
