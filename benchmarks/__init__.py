"""Benchmarks: each measures a tool beside a baseline in one run, and prints ratios.

Run one as a script from the repository root: ``python benchmarks/lint.py``.
"""
