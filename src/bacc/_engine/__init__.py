"""Private numerical kernels and shared helpers of bacc (not a public API).

Beta functions checked rather than trusted (:mod:`.beta`), the per-class bound kernels
(:mod:`.bounds`, :mod:`.buehler`), the one preparation step of a sum of components
(:mod:`.components`), the two-class quadrature (:mod:`.pair`), the lattice of three or more
classes (:mod:`.lattice`), the paired (Dirichlet) lattice (:mod:`.paired`), the quantile
iterations (:mod:`.solvers`), argument checks (:mod:`.validate`) and result conversions
(:mod:`.convert`). The public modules import from here; nothing here imports them.
"""
