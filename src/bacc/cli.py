"""The ``bacc`` command (minimal: ``demo`` and ``evaluate --matrix``)."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

from .errors import BaccError


def _parse_matrix(text: str):
    try:
        return [[float(v) for v in row.split(",")] for row in text.split(";")]
    except ValueError:
        raise BaccError(f"cannot read the matrix {text!r}: use rows separated by ';' and counts by ','") from None


def _cmd_evaluate(args) -> int:
    from . import evaluate

    ev = evaluate(_parse_matrix(args.matrix), rows=args.rows, confidence=args.confidence)
    if args.format == "json":
        print(json.dumps(ev.to_dict(), indent=2))
    else:
        print(ev)
    return 0


def _cmd_demo(args) -> int:
    from . import ConfusionMatrix, evaluate

    data = json.loads(resources.files("bacc").joinpath("data/seed_examples.json").read_text())
    for ex in data["examples"]:
        cm = ConfusionMatrix(ex["counts"], labels=ex["labels"])
        print(f"== {ex['name']}")
        print(f"   {ex['note']}")
        print(evaluate(cm))
        print()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="bacc", description="How good is a classifier, really?")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("evaluate", help="evaluate a confusion matrix")
    p.add_argument("--matrix", required=True, help='counts, e.g. "42,3;6,4" (rows = true class)')
    p.add_argument("--rows", choices=["true", "predicted"], default="true")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=_cmd_evaluate)
    d = sub.add_parser("demo", help="evaluate the example classifiers that ship with bacc")
    d.set_defaults(func=_cmd_demo)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BaccError as exc:
        print(f"bacc: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
