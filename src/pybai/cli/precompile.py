"""``pybai precompile [--jobs N]``: compile the numerical kernels into numba's on-disk cache now.

``make install`` runs it, so that the first run, test or demo does not pay the compilation
(see :mod:`pybai.precompile`).  Prints one line per family of the validation suite and a total.
"""

from __future__ import annotations

import sys
import time

from pybai.cli._common import positive_int


def add_parser(sub) -> None:
    pc = sub.add_parser("precompile", help="compile the numerical kernels once (make install does it), so that "
                                           "first runs start at full speed")
    pc.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    pc.add_argument("--family", action="append", metavar="NAME",
                    help="only the kernels of this validation family (repeatable; default: all)")
    pc.add_argument("--quiet", action="store_true", help="print the total only")
    pc.set_defaults(func=command)


def command(args) -> int:
    from pybai._validation import fail
    from pybai.precompile import precompile
    from pybai.validation import FAMILIES

    for name in args.family or []:
        if name not in FAMILIES:
            raise fail("--family", "pybai precompile", "one of " + ", ".join(FAMILIES), name)
    t0, c0 = time.perf_counter(), time.process_time()

    def show(done) -> None:
        if not args.quiet:
            print(f"  compiled: {done.family} ({done.runs} tiny runs, {done.cpu_seconds:.0f} s CPU)",
                  file=sys.stderr, flush=True)

    done = precompile(args.jobs, families=args.family, progress=show)
    print(f"pybai precompile: {len(done)} families, {sum(d.runs for d in done)} tiny runs, "
          f"{time.perf_counter() - t0:.0f} s wall; the kernels are cached for every later process")
    return 0
