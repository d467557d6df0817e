"""Helpers the kernels and the public modules share (no numerics of their own).

* :mod:`.validate`: argument checks at the public boundary, one style of message, and the
  limits bacc enforces.
* :mod:`.convert`: JSON-able scalars and read-only arrays of results.
* :mod:`.threads`: work on several threads (chunks, a background task).
* :mod:`.deprecation`: old argument names kept for one release with a warning.
"""
