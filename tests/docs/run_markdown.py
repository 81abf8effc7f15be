"""Run the examples of a markdown page and compare what they print with what the page shows.

    python -m tests.docs.run_markdown README.md docs/sessions.md      # check (exit 1 on a difference)
    python -m tests.docs.run_markdown --update README.md              # rewrite the shown outputs
    python -m tests.docs.run_markdown --slow --update README.md docs/*.md

Run it with the project's interpreter (``.venv/bin/python``): ``pybai`` and ``python`` in the
page's console blocks are the ones beside it.  Each page runs in a new temporary folder holding a
copy of ``docs/examples`` (so ``docs/examples/...`` paths work as from the repository root; in
/dev/shm when it exists, see :func:`scratch_dir`), its
blocks in order: console blocks with bash (standard output and error together, as a terminal
shows them), python blocks in one namespace per page, doctest blocks with ``ELLIPSIS``.  The
markers and the meaning of ``...`` in shown output are described in
:mod:`tests.docs.markdown_blocks` and :mod:`tests.docs.output_match`.

``--update`` rewrites, in place, every shown output that no longer matches, keeping the lines
(and ``...`` markers) that still do; the page's prose is never touched, so numbers quoted in
sentences must be checked by hand after an update (the runner prints each block it rewrote).
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

try:  # run as ``python -m tests.docs.run_markdown`` or imported by the tests
    from tests.docs.forkserver import ForkServer
    from tests.docs.markdown_blocks import Block, parse_blocks
    from tests.docs.output_match import matches, merge, normalise
except ImportError:  # pragma: no cover - pytest's rootdir-relative import of this folder
    from forkserver import ForkServer  # type: ignore[no-redef]
    from markdown_blocks import Block, parse_blocks  # type: ignore[no-redef]
    from output_match import matches, merge, normalise  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[2]
COMMAND_TIMEOUT = 600.0
WAIT_TIMEOUT = 60.0
#: a page with at least this many ``pybai`` commands runs them through a fork server
#: (:mod:`tests.docs.forkserver`: the server's imports cost about as much as two commands' own)
FORK_FROM = 3


def scratch_dir() -> str | None:
    """Where pages run: ``PYBAI_DOCS_TMP``, else /dev/shm when it exists (memory: the examples'
    databases commit without waiting for a disk; what they print does not depend on it), else
    the system's temporary folder."""
    chosen = os.environ.get("PYBAI_DOCS_TMP")
    if chosen:
        return chosen
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@dataclass
class Outcome:
    """What running one page found."""

    page: Path
    ran: int = 0
    skipped: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rewritten: list[int] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class ConsoleStep:
    comments: list[str]
    command: list[str]  # the lines as shown ("$ ..." and continuations)
    output: list[str]


def split_console(lines: list[str]) -> tuple[list[ConsoleStep], list[str]]:
    """The ``$`` commands of a console block with their shown output, and trailing comments."""
    steps: list[ConsoleStep] = []
    comments: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = [line]
            while command[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                command.append(lines[i])
            steps.append(ConsoleStep(comments, command, []))
            comments = []
        elif line.startswith("#"):
            comments.append(line)
        elif steps and not comments:
            steps[-1].output.append(line)
        elif not line.strip():
            comments.append(line)
        else:
            raise ValueError(f"console block: output line {line!r} follows no command")
        i += 1
    return steps, comments


def command_text(step: ConsoleStep) -> str:
    text = "\n".join(step.command)
    return text[2:]


class PageRunner:
    """Runs the blocks of one page in a temporary folder."""

    def __init__(self, page: Path, slow: bool, update: bool, verbose: bool = False):
        self.page, self.slow, self.update, self.verbose = page, slow, update, verbose
        self.namespace: dict = {"__name__": "__main__"}
        self.background: list[subprocess.Popen] = []
        self.last_output: str | None = None
        self.env = dict(os.environ)
        bin_dir = str(Path(sys.executable).parent)
        self.env.update({
            "PATH": bin_dir + os.pathsep + self.env.get("PATH", ""),
            "COLUMNS": "100", "TZ": "UTC", "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT / "src") + os.pathsep + self.env.get("PYTHONPATH", ""),
        })

    def run(self) -> Outcome:
        outcome = Outcome(self.page)
        started = time.perf_counter()
        lines, blocks = parse_blocks(self.page.read_text(encoding="utf-8"))
        replacements: dict[int, tuple[int, list[str], str]] = {}
        work = Path(tempfile.mkdtemp(prefix="pybai-docs-", dir=scratch_dir()))
        here = Path.cwd()
        server = None
        try:
            if (ROOT / "docs" / "examples").is_dir():
                shutil.copytree(ROOT / "docs" / "examples", work / "docs" / "examples")
            if os.environ.get("PYBAI_DOCS_FORK", "1") != "0" and self._pybai_commands(blocks) >= FORK_FROM:
                server = ForkServer(Path(tempfile.mkdtemp(prefix="pybai-fork-")), self.env, work)
                self.env.update(server.start())
            os.chdir(work)
            for block in blocks:
                self._run_block(block, outcome, replacements, work)
        finally:
            os.chdir(here)
            self._stop_background()
            if server is not None:
                server.stop()
                shutil.rmtree(server.folder, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
        if self.update and replacements:
            for start in sorted(replacements, reverse=True):
                end, new_lines, indent = replacements[start]
                lines[start:end] = [indent + line if line else line for line in new_lines]
            self.page.write_text("\n".join(lines), encoding="utf-8")
            outcome.rewritten = sorted(start + 1 for start in replacements)
        outcome.seconds = time.perf_counter() - started
        return outcome

    def _pybai_commands(self, blocks: list[Block]) -> int:
        """How many console steps of the blocks this run executes call ``pybai`` (background ones apart)."""
        count = 0
        for block in blocks:
            if block.kind != "console" or "skip" in block.markers or "background" in block.markers:
                continue
            if "slow" in block.markers and not self.slow:
                continue
            count += sum("pybai " in command_text(step) for step in split_console(block.lines)[0])
        return count

    # -- blocks -----------------------------------------------------------------------------
    def _run_block(self, block: Block, outcome: Outcome, replacements: dict, work: Path) -> None:
        where = f"{self.page.name}:{block.start}"
        kind = block.kind
        if "skip" in block.markers:
            outcome.skipped.append(f"{where}: {block.markers['skip']}")
            return
        if "slow" in block.markers and not self.slow:
            outcome.skipped.append(f"{where}: slow")
            return
        if kind == "shown":
            return
        if self.verbose:
            print(f"  {where} ({kind})", file=sys.stderr, flush=True)
        outcome.ran += 1
        if kind == "output":
            if self.last_output is None:
                outcome.failures.append(f"{where}: an output block that follows no executed block")
            else:
                self._compare(block.lines, self.last_output, where, outcome,
                              lambda new: replacements.__setitem__(block.start, (block.end, new, block.indent)))
            self.last_output = None
            return
        if kind == "console" and "background" in block.markers:
            self._start_background(block, where, outcome, work)
            self.last_output = None
            return
        if kind == "console":
            self._run_console(block, where, outcome, replacements, work)
        elif kind == "python":
            self.last_output = self._run_python(block, where, outcome)
        elif kind == "doctest":
            self._run_doctest(block, where, outcome, replacements)
            self.last_output = None
        if "figure" in block.markers:
            self._keep_figure(block.markers["figure"], where, outcome, work)

    def _keep_figure(self, spec: str, where: str, outcome: Outcome, work: Path) -> None:
        made, _, shown = spec.partition(" ")
        if not (work / made).is_file():
            outcome.failures.append(f"{where}: the block did not write {made}")
        elif self.update:
            target = self.page.parent / shown.strip()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(work / made, target)

    def _compare(self, shown: list[str], printed: str, where: str, outcome: Outcome, store) -> None:
        if matches("\n".join(shown), printed):
            return
        if self.update:
            store(merge("\n".join(shown), printed))
        else:
            outcome.failures.append(f"{where}: shown output differs from what is printed:\n" + _diff(shown, printed))

    def _run_console(self, block: Block, where: str, outcome: Outcome, replacements: dict, work: Path) -> None:
        steps, trailing = split_console(block.lines)
        new_lines: list[str] = []
        changed = False
        for step in steps:
            printed = self._shell(command_text(step), work)
            new_lines += step.comments + step.command
            if matches("\n".join(step.output), printed):
                new_lines += step.output
                continue
            changed = True
            if self.update:
                blank = len(step.output) - len("\n".join(step.output).rstrip().split("\n")) if step.output else 0
                new_lines += merge("\n".join(step.output), printed) + [""] * blank
            else:
                outcome.failures.append(f"{where}: `{step.command[0][2:]}` printed something else:\n"
                                        + _diff(step.output, printed))
        new_lines += trailing
        self.last_output = None
        if changed and self.update:
            replacements[block.start] = (block.end, new_lines, block.indent)

    def _shell(self, command: str, work: Path) -> str:
        try:
            result = subprocess.run(["bash", "-c", command], cwd=work, env=self.env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"[timed out after {COMMAND_TIMEOUT:.0f} s]"
        return result.stdout

    def _start_background(self, block: Block, where: str, outcome: Outcome, work: Path) -> None:
        steps, _ = split_console(block.lines)
        for step in steps:
            self.background.append(subprocess.Popen(
                ["bash", "-c", "exec " + command_text(step)], cwd=work, env=self.env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        url = block.markers.get("wait-for")
        if url and not _wait_for(url, self.background):
            outcome.failures.append(f"{where}: {url} did not answer within {WAIT_TIMEOUT:.0f} s")

    def _stop_background(self) -> None:
        for process in self.background:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self.background = []

    def _run_python(self, block: Block, where: str, outcome: Outcome) -> str:
        buffer = io.StringIO()
        try:
            code = compile(block.text, f"{self.page}:{block.start + 1}", "exec")
            with contextlib.redirect_stdout(buffer):
                exec(code, self.namespace)
        except Exception:  # noqa: BLE001 - a failing example is reported, with its traceback
            outcome.failures.append(f"{where}: the python block raised\n{traceback.format_exc(limit=6)}")
        return buffer.getvalue()

    def _run_doctest(self, block: Block, where: str, outcome: Outcome, replacements: dict) -> None:
        test = doctest.DocTestParser().get_doctest(block.text, self.namespace, where, str(self.page), block.start)
        runner = _RecordingRunner(optionflags=doctest.ELLIPSIS)
        with contextlib.redirect_stdout(io.StringIO()):
            runner.run(test, clear_globs=False)
        self.namespace.update(test.globs)  # DocTest works on a copy: later blocks see its names
        if not runner.failed_examples:
            return
        if not self.update:
            for example, got in runner.failed_examples:
                line = block.start + example.lineno + 1
                shown = normalise(example.want) if got is not None else ["(an exception was raised)"]
                outcome.failures.append(f"{self.page.name}:{line}: >>> {example.source.strip()}\n"
                                        + _diff(shown, got if got is not None else runner.exceptions[id(example)]))
            return
        lines = list(block.lines)
        for example, got in sorted(runner.failed_examples, key=lambda pair: -pair[0].lineno):
            if got is None:  # an unexpected exception: not rewritten, reported
                outcome.failures.append(f"{where}: >>> {example.source.strip()} raised\n{runner.exceptions[id(example)]}")
                continue
            first = example.lineno + example.source.count("\n")
            count = example.want.count("\n")
            indent = " " * example.indent
            lines[first:first + count] = [indent + line for line in merge(example.want, got)]
        replacements[block.start] = (block.end, lines, block.indent)


class _RecordingRunner(doctest.DocTestRunner):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.failed_examples: list[tuple[doctest.Example, str | None]] = []
        self.exceptions: dict[int, str] = {}

    def report_failure(self, out, test, example, got):  # noqa: D401 - doctest's hook
        self.failed_examples.append((example, got))

    def report_unexpected_exception(self, out, test, example, exc_info):
        self.failed_examples.append((example, None))
        self.exceptions[id(example)] = "".join(traceback.format_exception(*exc_info, limit=6))


def _wait_for(url: str, processes: list[subprocess.Popen]) -> bool:
    deadline = time.monotonic() + WAIT_TIMEOUT
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            return False
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=2):
                return True
        time.sleep(0.2)
    return False


def _diff(shown: list[str], printed: str) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(normalise("\n".join(shown)), normalise(printed), "shown", "printed", lineterm=""))


def run_pages(pages: list[Path], slow: bool = False, update: bool = False, verbose: bool = False) -> list[Outcome]:
    return [PageRunner(page, slow, update, verbose).run() for page in pages]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.docs.run_markdown", description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="+", type=Path, help="markdown files (README.md, docs/*.md)")
    parser.add_argument("--update", action="store_true", help="rewrite the shown outputs that no longer match")
    parser.add_argument("--slow", action="store_true", help="also run the blocks marked slow")
    parser.add_argument("-v", "--verbose", action="store_true", help="name each block as it runs")
    args = parser.parse_args(argv)
    status = 0
    for page in args.pages:
        outcome = PageRunner(page.resolve(), args.slow, args.update, args.verbose).run()
        verdict = "FAILED" if outcome.failures else ("rewritten" if outcome.rewritten else "ok")
        print(f"{page}: {outcome.ran} blocks run, {len(outcome.skipped)} skipped, {verdict} "
              f"({outcome.seconds:.1f} s)")
        for line in outcome.rewritten:
            print(f"  rewrote the output of the block at line {line}: check the prose around it")
        for failure in outcome.failures:
            print("  " + failure.replace("\n", "\n    "))
        status = status or (1 if outcome.failures else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
