"""The terminal: its width, and text made safe to show on it.

Light on purpose (no numpy): the command line's parser uses it, and ``bacc --help`` must not
wait for the numerics to load.
"""

from __future__ import annotations

import os
import sys

__all__ = ["WIDTH", "terminal_width", "visible"]

#: Width of bacc's terminal output: every line of the default output fits.
WIDTH = 100

#: Spaces that are not printable to Python but harmless: the no-break spaces that keep an
#: interval "[a, b]" on one line of a figure's title.
_SPACES = "\u00a0\u202f"


def visible(text: str, keep: str = "\t") -> str:
    r"""``text`` with control and format characters written as escapes (``\x1b``, ``\u202e``),
    except those in ``keep``: a label holding an escape sequence cannot recolour or rewrite a
    terminal, nor a bidirectional override reorder what is shown. The one rule for every
    output format (tables, CSV, HTML, pictures).

    Examples
    --------
    >>> print(visible("\x1b[31mred"), visible("a\u202eb"))
    \x1b[31mred a\u202eb
    """
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() or c in keep or c in _SPACES else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def terminal_width(stream=None, default: int = WIDTH) -> int:
    """The number of columns of the terminal behind ``stream`` (default standard output).

    The ``COLUMNS`` environment variable when it is a whole number above 0 (as
    :func:`shutil.get_terminal_size` reads it), else the terminal's own width; ``default``
    when the stream is not a terminal, or when the terminal reports no width (0 columns, as
    some pseudo-terminals and CI runners do). Never less than 1.

    Parameters
    ----------
    stream : file object, optional
        Default ``sys.stdout``.
    default : int
        The width to use without a terminal width.

    Returns
    -------
    int

    Examples
    --------
    >>> terminal_width() >= 1
    True
    """

    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    stream = sys.stdout if stream is None else stream
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError, TypeError):
        return max(1, default)
    return columns if isinstance(columns, int) and columns > 0 else max(1, default)


