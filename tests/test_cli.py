import json
import subprocess
import sys
import textwrap

import pytest

from pybai.cli import main

GOOD = """
name = "cli"
replications = 6
seed = 3
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.0]
[[strategy]]
name = "tas"
"""


def write(tmp_path, text):
    path = tmp_path / "exp.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_run_writes_json(tmp_path, capsys):
    out = tmp_path / "res.json"
    assert main(["run", str(write(tmp_path, GOOD)), "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["name"] == "cli" and doc["version"] == "0.1.0"
    assert doc["results"][0]["replications"] == 6
    assert "tas" in capsys.readouterr().out


def test_complexity_json(tmp_path, capsys):
    out = tmp_path / "cx.json"
    assert main(["complexity", str(write(tmp_path, GOOD)), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["answer"] == 0 and doc["delta"] == 0.1
    assert doc["characteristic_time"] == pytest.approx(8.0)
    assert doc["lower_bound"] == pytest.approx(8.0 * 0.8 * 2.1972245773, rel=1e-6)


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("delta = 0.1", "delta = 1.5", "problem.delta"),
        ("means = [1.0, 0.0]", "", "environment.means: missing"),
        ("means = [1.0, 0.0]", "means = [1.0, 0.0]\nsigma = -1", "environment.sigma"),
        ('name = "tas"', 'name = "fastest"', "strategy"),
        ("[problem]", "[problem", "not valid TOML"),
    ],
)
def test_user_errors_exit_2_with_one_line(tmp_path, capsys, old, new, message):
    path = write(tmp_path, GOOD.replace(old, new))
    assert main(["run", str(path), "--quiet"]) == 2  # in-process: the same code path as the command
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in err


def test_user_error_exits_2_with_one_line_from_the_command(tmp_path):
    """One of the cases above through a real process: exit status, stderr and no traceback."""
    path = write(tmp_path, GOOD.replace("delta = 0.1", "delta = 1.5"))
    proc = subprocess.run(
        [sys.executable, "-m", "pybai.cli", "run", str(path), "--quiet"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "problem.delta" in lines[0] and "Traceback" not in proc.stderr


def test_missing_file_and_bad_jobs(tmp_path, capsys):
    assert main(["run", str(tmp_path / "none.toml")]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["run", "x.toml", "--jobs", "zero"])
    assert exc.value.code == 2


def test_run_json_to_stdout_is_pure_json(tmp_path, capsys):
    assert main(["run", str(write(tmp_path, GOOD)), "--json", "-", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["name"] == "cli"
    assert "mean samples" in captured.err
