"""Positions and timings for tests and benchmarks: random and played-out sample positions
(:mod:`fastnardy.testing.samples`) and the ``fastnardy bench`` timings
(:mod:`fastnardy.testing.speed`)."""
