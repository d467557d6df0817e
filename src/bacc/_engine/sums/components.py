"""The one preparation step of every sum of independent components: which component is kept
exact, which enter the lattice, and which are narrow enough to enter together as one law.

The cost of a lattice is set by its step, and the step by the narrowest component resolved on
it. When class sizes are alike every component is resolved (16 steps per standard deviation of
the narrowest). When they are not (the spreads differ by more than ``MIXED``), the step is set
by the spread of the whole sum instead, and the components narrower than two steps are summed
into one narrow part (:class:`bacc._engine.sums.narrow_part.NarrowPart`) that enters as one law, with
its exact mean, variance, third moment and fourth cumulant. Beside a two-component sum, a narrow
part of spread below ``NARROW_RULE`` times the narrower of the two enters by a two-point rule
instead (:class:`TwoPoint`). No component's variance is dropped, and the cost no longer depends on the
ratio of the widest spread to the narrowest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Lattice steps per standard deviation of the narrowest lattice component, halved.
RHO = 8.0
#: Ratio of the whole sum's spread to a component's above which the component is narrow.
MIXED = 64.0
#: A narrow part this much narrower than both components of a two-component sum enters it by a
#: two-point rule (error below 0.05 (sd / sd_R)^4 = 3e-11 in the CDF, sd_R the narrower one).
NARROW_RULE = 5e-3
#: Beta parameters from which a density is smooth enough at both ends to be the exact
#: component of an extrapolated lattice without adding boundary terms (h^5.5 and beyond).
SMOOTH_EXPONENT = 4.5
#: From this many lattice components on, a smooth component may replace a rough widest one.
MANY_LATTICE = 14


@dataclass
class Plan:
    """How a sum of components is computed.

    ``widest``: index of the component evaluated exactly; ``lattice``: the components resolved
    on the lattice (or, when there is one, the second component of the exact two-component
    quadrature), in ascending spread; ``narrow``: the components entered together as one narrow
    part; ``rule``: whether that part enters by the two-point rule (else as a lattice row).
    """

    widest: int
    lattice: list[int] = field(default_factory=list)
    narrow: list[int] = field(default_factory=list)
    rule: bool = False


def split_scales(
    sd: np.ndarray, sd_sum: float | None = None, mixed: float = MIXED
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the components within a factor ``MIXED`` of ``sd_sum`` (default: the spread
    of their sum; resolved on a lattice) and of the narrower ones (one narrow part), each in
    ascending spread. The widest is always resolved."""
    order = np.argsort(sd, kind="stable")
    if sd_sum is None:
        sd_sum = float(np.sqrt(np.sum(sd**2)))
    narrow = order[:-1][sd[order[:-1]] * mixed < sd_sum]
    return order[narrow.size :], narrow


def partition(cvar: np.ndarray, mixed: float = MIXED, widest_smooth: bool = False,
              smooth: np.ndarray | None = None) -> Plan:
    """Split components by spread (see the module notes).

    Parameters
    ----------
    cvar : ndarray, shape (m,)
        Variance of each weighted component.
    mixed : float
        Components narrower than ``1 / mixed`` of the whole sum form the narrow part.
    widest_smooth : bool
        The widest component's density is smooth (its CDF at least three times continuously
        differentiable) wherever it has mass: then, when every other component is narrow, they
        all enter it by the two-point rule (the sum is the widest component, exact, smoothed).
    smooth : ndarray of bool, optional
        Which components have smooth densities at both ends (parameters at least
        ``SMOOTH_EXPONENT``). With ``MANY_LATTICE`` or more lattice components and a widest
        one that is not smooth (its density jumps or diverges), the widest smooth lattice
        component of at least half its spread is kept exact instead: its CDF adds no boundary
        terms to the lattice's error, and the rough one, on the lattice, adds fewer (one
        extrapolation level less: 1000 Jeffreys classes of 1 to 1e4 examples, 0.25 s ->
        0.14 s, within 1e-10 of Gil-Pelaez).
    """
    sd = np.sqrt(cvar)
    order = np.argsort(sd, kind="stable")
    plan = Plan(widest=int(order[-1]))
    rest = order[:-1]
    if rest.size == 0:
        return plan
    sd_sum = float(np.sqrt(np.sum(cvar)))
    keep, narrow = split_scales(sd[rest], sd_sum, mixed)
    keep, narrow = rest[keep], rest[narrow]
    if widest_smooth and keep.size == 1 and narrow.size and sd[keep[0]] * mixed < sd_sum:
        # every other component is narrow (the kept one was kept only as the widest of them)
        # and the widest is smooth where it has mass: together they enter it by the two-point
        # rule (a widest component that jumps or diverges at an end keeps the lattice, which
        # resolves the narrow ones there)
        all_rest = float(np.sqrt(np.sum(cvar[rest])))
        if all_rest <= NARROW_RULE * sd[plan.widest]:
            plan.narrow = [int(i) for i in rest]
            plan.rule = True
            return plan
    sd_narrow = float(np.sqrt(np.sum(cvar[narrow])))
    # the rule needs the rest smooth on the narrow part's scale: the two-component sum varies
    # on the scale of its narrower component (which smooths the jumps of the wider one)
    plan.rule = bool(narrow.size and keep.size == 1 and sd_narrow <= NARROW_RULE * sd[keep[0]])
    plan.lattice = [int(i) for i in keep]
    plan.narrow = [int(i) for i in narrow]
    if smooth is not None and len(plan.lattice) >= MANY_LATTICE and not smooth[plan.widest]:
        ok = [i for i in plan.lattice if smooth[i] and sd[i] >= 0.5 * sd[plan.widest]]
        if ok:
            j = max(ok, key=lambda i: sd[i])
            plan.lattice = sorted([i for i in plan.lattice if i != j] + [plan.widest],
                                  key=lambda i: sd[i])
            plan.widest = j
    return plan


class TwoPoint:
    """The two-point law with the mean, variance and third moment of a narrow part.

    ``E[g(D)] ~ p1 g(d1) + p2 g(d2)`` is exact for cubic ``g``; for a CDF ``g`` of spread
    ``sigma`` the error is ``(dm4 / 24) max |g''''|`` with ``dm4 = m4(D) - m4(rule)``, about
    ``(2 + |excess kurtosis|) var(D)^2``: below ``0.05 (sd(D) / sigma)^4`` for a near-normal
    ``g``.
    """

    def __init__(self, mean: float, var: float, m3: float) -> None:
        sd = float(np.sqrt(var))
        g = m3 / sd**3 if sd > 0 else 0.0
        root = float(np.sqrt(1.0 + 0.25 * g * g))
        z1, z2 = 0.5 * g - root, 0.5 * g + root
        self.points = np.array([mean + sd * z1, mean + sd * z2])
        self.weights = np.array([z2, -z1]) / (z2 - z1)

    def apply(self, values, x: np.ndarray, kinds) -> dict[str, np.ndarray]:
        """``E[values(x - D)]`` for every requested kind, by the rule."""
        n = x.size
        v = values(np.concatenate([x - self.points[0], x - self.points[1]]), kinds)
        p1, p2 = self.weights
        return {k: p1 * val[:n] + p2 * val[n:] for k, val in v.items()}
