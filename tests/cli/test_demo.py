"""``pybai demo``: a failing reproduction does not stop the others; one summary table; exit 1 if any failed."""

from __future__ import annotations

import textwrap

import pytest

from pybai.cli import main
from pybai.demo import DemoRow, summary_table

SMALL = """
name = "small"
replications = 8
seed = 1
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.0]
[[strategy]]
name = "uniform"
[reproduce]
name = "{name}"
title = "A small comparison"
quick = {{ replications = 4 }}
"""


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """Two shipped reproductions, ``a-broken`` (whose run raises a bug) and ``b-small``."""
    import pybai.reproductions as reproductions

    folder = tmp_path / "shipped"
    folder.mkdir()
    for stem, name in (("broken", "a-broken"), ("small", "b-small")):
        (folder / f"{stem}.toml").write_text(textwrap.dedent(SMALL.format(name=name)))
    monkeypatch.setattr(reproductions, "experiment_names", lambda: ["broken", "small"])
    monkeypatch.setattr(reproductions, "experiment_path", lambda stem: folder / f"{stem}.toml")
    run = reproductions.run_reproduction

    def failing_first(name, **options):
        if name == "a-broken":
            raise RuntimeError("something broke\nin two lines")
        return run(name, **options)

    monkeypatch.setattr(reproductions, "run_reproduction", failing_first)
    return tmp_path / "out"


def test_a_failing_reproduction_does_not_stop_the_demo(shipped, capsys):
    assert main(["demo", "--out", str(shipped), "--jobs", "1"]) == 1
    captured = capsys.readouterr()
    assert "pybai demo: 2 reproduction(s)" in captured.out
    assert "[1/2] a-broken" in captured.out and "[2/2] b-small" in captured.out  # progress
    assert "pybai: error: a-broken: RuntimeError: something broke in two lines" in captured.err
    assert "Traceback" in captured.err  # not a user mistake: the traceback is kept for the log
    table = captured.out[captured.out.index("reproduction  status"):].splitlines()
    assert table[1].split()[:2] == ["a-broken", "failed"] and "- (RuntimeError: something broke" in table[1]
    assert table[2].split()[:2] == ["b-small", "ok"] and table[2].endswith(str(shipped / "b-small" / "report.html"))
    assert "2 reproduction(s) in" in table[3] and "1 ok, 1 failed (a-broken)" in table[3]
    assert (shipped / "b-small" / "report.html").is_file()


def test_the_demo_exits_0_when_all_pass_and_replaces_its_previous_output(shipped, capsys):
    for _ in range(2):  # the second run replaces the first's stores instead of refusing them
        assert main(["demo", "b-small", "--out", str(shipped), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 ok, 0 failed" in out and "on 2 cores" not in out  # the time estimate is for the whole demo


def test_the_whole_quick_demo_states_its_time_up_front(shipped, capsys, monkeypatch):
    import pybai.demo

    monkeypatch.setattr(pybai.demo, "QUICK_MINUTES", 7)
    assert main(["demo", "--out", str(shipped), "--jobs", "1"]) == 1  # a-broken fails
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("reproduction(s) with their --quick settings, into " + f"{shipped}/; about 7 min on 2 "
                           "cores with --jobs 2.")


def test_an_unknown_name_is_refused_before_anything_runs(shipped, capsys):
    assert main(["demo", "b-small", "nothing", "--out", str(shipped)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "demo: unknown reproduction name(s) nothing" in err
    assert not shipped.exists()


def test_summary_table_columns():
    rows = [DemoRow("x", "ok", 75.2, None), DemoRow("long-name", "failed", 3.0, None, "why")]
    rows[0].report = "out/x/report.html"
    text = summary_table(rows)
    assert text.splitlines()[1].split() == ["x", "ok", "1", "min", "15", "s", "out/x/report.html"]
    assert "- (why)" in text and text.endswith("1 ok, 1 failed (long-name)")
