"""``pybai reproduce NAME [--quick]`` / ``pybai reproduce --list``: the shipped seed-paper experiments."""

from __future__ import annotations

import sys

from pybai import _interrupts

from pybai.cli._common import note
from pybai.cli.run import add_backend_options


def add_parser(sub) -> None:
    rep = sub.add_parser("reproduce", help="run a shipped reproduction of a seed paper: store, tables, figures, HTML")
    rep.add_argument("name", nargs="?", help="reproduction name (see --list)")
    rep.add_argument("--list", action="store_true", help="list the shipped reproductions, their files and variants (+NAME)")
    rep.add_argument("--quick", action="store_true", help="the file's quick settings (fewer replications or points)")
    rep.add_argument("--out", metavar="DIR", help="output folder (default out/reproduce/NAME, or NAME-quick)")
    rep.add_argument("--resume", action="store_true", help="continue the stores in DIR (only missing tasks run)")
    add_backend_options(rep)
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    rep.set_defaults(func=command)


def command(args) -> int:
    from pybai.exceptions import ConfigError
    from pybai.reproductions import run_reproduction, shipped_reproductions
    from pybai.simulate import RunInterrupted

    if args.list:
        for name, reproduction in shipped_reproductions().items():
            stems = ", ".join(path.stem + "".join(f" +{v.name}" for v in spec.variants)
                              for path, spec in reproduction.files)
            print(f"{name:<18} {reproduction.title}\n{'':<18} files: {stems}")
        return 0
    if not args.name:
        raise ConfigError("reproduce: give a NAME (see pybai reproduce --list).")
    try:
        files = run_reproduction(args.name, quick=args.quick, out=args.out, jobs=args.jobs, cluster=args.cluster,
                                 scheduler=args.scheduler, resume=args.resume, progress=not args.quiet, note=note)
    except RunInterrupted as exc:
        print(f"pybai: {exc.message()}", file=sys.stderr)
        _interrupts.said()
        return 130
    print(f"report: {files.html} ({len(files.figures)} figures, {len(files.tables)} tables)")
    return 0
