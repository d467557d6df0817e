"""``bacc monitor``: the balanced accuracy of every detector per time window, with alarms.

Presentation only: :func:`bacc.monitor` counts (in DuckDB for files) and computes every number.
"""

from __future__ import annotations

from pathlib import Path

from ..display.files import is_stdout
from ..errors import BaccError
from .inputs import parse_labels
from .output import (
    check_output_path,
    dump_json,
    out,
    page_on_stdout,
    pictures_wanted,
    write_csv,
)

__all__ = ["monitor_command"]


def monitor_command(args) -> int:
    """``bacc monitor FILE --true COL --pred COL --time COL [--by COL]``: a table (detectors in
    alarm first), JSON or CSV (one row per detector and window), and with ``-o`` an HTML
    report with each alarming detector's timeline."""
    from ..monitoring import monitor

    if not args.inputs:
        raise BaccError("monitor needs a predictions file (CSV, Parquet or JSON lines), e.g. "
                        "bacc monitor preds.parquet --true label --pred predicted --time ts")
    for opt in ("true", "pred", "time"):
        if not getattr(args, opt):
            raise BaccError(f"monitor needs --{opt} COL (the column of the "
                            f"{ {'true': 'true class', 'pred': 'predicted class', 'time': 'time'}[opt]})")
    if args.output:
        check_output_path(args.output)
        for src in args.inputs if not is_stdout(args.output) else ():
            p = Path(src)
            if p.exists() and Path(args.output).exists() and p.samefile(args.output):
                raise BaccError(f"the output {args.output} is the input {src}: choose another -o path")
        if is_stdout(args.output):
            page_on_stdout()
    by = [c.strip() for c in args.by.split(",")] if args.by else None
    source = args.inputs[0] if len(args.inputs) == 1 else list(args.inputs)
    m = monitor(
        source, true=args.true, pred=args.pred, time=args.time, window=args.window, by=by,
        baseline=args.baseline, lookback=args.lookback, rule=args.rule, alarm_at=args.alarm_at,
        margin=args.margin, confidence=args.confidence, labels=parse_labels(args.labels),
        nulls="drop" if args.drop_missing else "error", n_simulations=args.simulations,
        random_state=args.random_state, tuned_for=args.tuned_for, sep=args.sep,
        memory_limit=args.memory_limit,
    )  # fmt: skip
    if args.format == "json":
        dump_json(m.to_dict())
    elif args.format == "csv":
        recs = m.to_records()
        labels = [str(x) for x in m.labels]
        header = ["detector", "window_start", *(f"support_{x}" for x in labels),
                  *(f"correct_{x}" for x in labels), "posterior_mean", "credible_lower",
                  "credible_upper", "exact_lower", "exact_upper", "baseline_mean",
                  "baseline_exact_lower", "p_worse", "alarm"]  # fmt: skip
        rows = []
        for r in recs:
            d = r["detector"]
            rows.append([" / ".join(map(str, d)) if isinstance(d, list) else d, r["window_start"],
                         *r["support"], *r["correct"],
                         *(r[k] for k in header[2 + 2 * len(labels):])])  # fmt: skip
        write_csv(header, rows)
    else:
        out(str(m))
    if args.output:
        from ..display.report import Section, render_report, write_report

        title = args.title or f"bacc monitor: {Path(args.inputs[0]).name}"
        html = render_report(
            [Section(f"Monitoring per {m.window} window", [], monitoring=m,
                     description=f"{len(m.detectors)} detectors from {', '.join(args.inputs)}.")],
            title=title, pictures=pictures_wanted(args.no_pictures),
        )  # fmt: skip
        write_report(args.output, html)
        if args.format == "text" and not is_stdout(args.output):
            out(f"\nreport written to {args.output}")
    return 0
