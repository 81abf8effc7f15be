"""``pybai report DIR``: tables, figures and one HTML page from stored results (no simulation)."""

from __future__ import annotations


def add_parser(sub) -> None:
    rep = sub.add_parser("report", help="tables, figures and an HTML page from a results store (no simulation)")
    rep.add_argument("folder", metavar="DIR", help="a store (pybai run --out DIR) or a folder of stores (pybai reproduce)")
    rep.add_argument("--out", metavar="OUT", help="write the report here (default: DIR)")
    rep.add_argument("--title", help="page title (default: the reproduction's title or the experiment's name)")
    rep.set_defaults(func=command)


def command(args) -> int:
    from pybai.reproductions import report_folder

    files = report_folder(args.folder, out=args.out, title=args.title)
    print(f"report: {files.html} ({len(files.figures)} figures, {len(files.tables)} tables)")
    return 0
