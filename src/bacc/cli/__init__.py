"""The ``bacc`` command: evaluate, compare, rank, coverage, report, population, threshold, plan,
next-label, monitor and demo.

Presentation and input only; the library computes every number. The package:

- :mod:`.parser`: the argument parser and its help texts;
- :mod:`.inputs`: files, matrix text and options turned into named confusion matrices;
- :mod:`.results`: the calls into the library (evaluate, compare, rank);
- :mod:`.output`: tables, JSON, CSV, one-line warnings and errors, report entries;
- :mod:`.commands`: one function per subcommand, taking the parsed arguments and returning the
  exit status;
- :mod:`.planning`: ``bacc plan`` and ``bacc next-label`` (how many labels, which class next);
- :mod:`.monitoring`: ``bacc monitor`` (every detector per time window, with alarms);
- :mod:`.across`: ``bacc compare`` and ``bacc rank`` with ``--across`` (across data sets);
- :mod:`.scores`: ``bacc evaluate`` and ``bacc report`` with ``--score`` (a classifier's scores:
  AUC, best threshold) and ``bacc threshold`` (a threshold with a guarantee);
- :mod:`.demo`: ``bacc demo`` (the example classifiers that ship with bacc).

Bad input prints one line ``bacc: error: ...`` on standard error and exits with status 2.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Sequence

from ..errors import BaccError, MissingDependencyError
from .parser import UsageError, build_parser

__all__ = ["EXIT_USAGE", "build_parser", "main"]

#: Exit status for bad input (a usage error, unreadable data, a missing optional dependency).
EXIT_USAGE = 2


def _show_warning(*args, **kwargs) -> None:
    """A warning left uncaught, as one line (:func:`bacc.cli.output.show_warning`)."""
    from .output import show_warning

    show_warning(*args, **kwargs)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``bacc`` command; return the exit status (2 for bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for bad input, 130 when interrupted.
    """
    # the parser alone answers --version and --help: the commands (and the numerics behind
    # them) are imported once the arguments are known
    try:
        parser = build_parser()
        parser._argv = list(sys.argv[1:] if argv is None else argv)
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args = parser.parse_args(argv)
            from .commands import COMMANDS
            from .output import page_on_stdout

            page_on_stdout(False)
            return int(COMMANDS[args.command](args) or 0)
    except (UsageError, BaccError, MissingDependencyError) as exc:
        from .output import error

        error(exc)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (bacc ... | head): stop quietly, as Unix tools do
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("bacc: interrupted\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
