"""Testing tooling for minirt: the crash sweep (:mod:`minirt.testing.sweep`).

Invariant: the runtime imports nothing from this package; it builds on the core's fault points
(:mod:`minirt.faults`). Nothing is imported here, so ``import minirt.testing`` costs nothing.
"""
