"""Scorers: each scores a diagnostic on its real-world corpora (``tests/data/``).

Run one as a script from the repository root: ``python scorers/explain.py --misses``.
"""
