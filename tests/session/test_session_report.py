"""``pybai session report`` and ``export``: the page, its figures and the replayed history."""

import csv
import io

import numpy as np
import pytest

from conftest import World, learner_document
from pybai.cli import main
from pybai.report.session_plots import (
    plot_means_with_intervals,
    plot_samples_over_time,
    plot_statistic_vs_threshold,
)
from pybai.session import Session


@pytest.fixture
def finished(workdir, gaussian_doc):
    # the heuristic threshold depends on t only: the stop is the first crossing of the drawn line
    # (the default delta-correct rule tests each pair with its own counts, see test_certify.py)
    gaussian_doc["strategy"][0]["threshold"] = "heuristic"
    world = World(gaussian_doc)
    db = workdir / "s.db"
    with Session.create(db, learner_document(gaussian_doc)) as s:
        world.drive(s)
    return db


def test_history_follows_the_stopping_rule(finished):
    with Session.open(finished) as s:
        status = s.status()
        h = s.history()
    k = 3
    assert np.all(np.diff(h.samples) == 1) and h.samples[-1] == status["samples"]
    assert h.counts[-1].tolist() == status["counts"]
    assert h.statistic[-1] == status["statistic"] and h.threshold[-1] == status["threshold"]
    assert h.statistic[-1] > h.threshold[-1]
    ready = h.samples >= k
    # the session stopped at the first answer where the statistic crossed the threshold
    assert np.all(h.statistic[ready][:-1] <= h.threshold[ready][:-1])
    assert h.recommendation == status["recommendation"] and h.status == "stopped"


def test_report_is_one_self_contained_page_with_three_figures(finished, workdir, capsys):
    out = workdir / "report"
    assert main(["session", "report", "--db", str(finished), "--out", str(out)]) == 0
    page = (out / "session.html").read_text()
    assert page.count("<img") == 3 and page.count("data:image/png;base64,") == 3
    assert "src=\"http" not in page and "<link" not in page and "<script" not in page
    for name in ("samples.png", "means.png", "statistic.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Recommendation: arm 0" in page


def test_report_fixed_budget_and_empty_sessions(workdir):
    doc = {"problem": {"goal": "best-arm", "budget": 4}, "environment": {"kind": "bernoulli", "arms": 2},
           "strategy": [{"name": "uniform"}]}
    with Session.create(workdir / "fb.db", doc) as s:
        from pybai.session.report import write_session_report

        page = write_session_report(s, workdir / "empty").read_text()
        assert page.count("<img") == 0 and "No answers yet" in page
        for _ in range(4):
            r = s.ask()
            s.tell(r.id, r.requests, [1.0])
        page = write_session_report(s, workdir / "fb").read_text()
    assert page.count("<img") == 2 and "no stopping threshold" in page


def test_export_rewards_read_back_exactly(finished, capsys):
    capsys.readouterr()
    assert main(["session", "export", "--db", str(finished)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    with Session.open(finished) as s:
        model = s._replay.strategy.model_
        sums = np.zeros(3)
        for row in rows:
            sums[int(row["source"])] += float(row["reward"])
    assert [int(r["observation"]) for r in rows] == list(range(1, len(rows) + 1))
    assert np.array_equal(np.bincount([int(r["source"]) for r in rows], minlength=3), model.counts)
    assert np.allclose(sums, model.sums, rtol=1e-15, atol=1e-12)


def test_plot_functions_take_and_return_an_axis(plt):
    fig, axes = plt.subplots(1, 3)
    t = np.arange(1, 6)
    counts = np.array([[1, 0], [1, 1], [2, 1], [3, 1], [3, 2]])
    assert plot_samples_over_time(t, counts, axes[0], highlight=[0]) is axes[0]
    assert len(axes[0].get_lines()) >= 2 and axes[0].get_xlabel()
    means = np.array([[1.0, 0.5], [0.2, np.nan]])
    ax = plot_means_with_intervals(means, means - 0.1, means + 0.1, axes[1], highlight=[0], floors={0: 0.0, 1: 0.1})
    assert ax is axes[1] and len(ax.containers) == 2  # one error-bar series per subpopulation
    assert plot_statistic_vs_threshold(t, t * 1.0, np.full(5, 4.5), axes[2], stopped=True) is axes[2]
    plt.close(fig)
