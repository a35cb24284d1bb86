"""The rule families of ``jaxpurity lint``: one module per family, with its rules and their checks.

Each module holds the :class:`~jaxpurity.linter._family.Rule` entries of its
codes (data: message, page, what it cannot see) and the checks that find them,
registered on its :class:`~jaxpurity.linter._family.Family`:

- :mod:`~jaxpurity.linter.rules.state` (JP101-JP106, JP108, JP109, JP112): globals, outer
  containers, ``self``, caches and arguments changed while JAX traces;
- :mod:`~jaxpurity.linter.rules.settings` (JP107, JP110, JP111): values read once,
  while tracing: a mutable default, the clock, a setting changed later;
- :mod:`~jaxpurity.linter.rules.randomness` (JP120-JP122): host randomness, and
  jax.random keys used twice or shared;
- :mod:`~jaxpurity.linter.rules.printing` (JP130-JP133): print and callbacks;
- :mod:`~jaxpurity.linter.rules.traced_control_flow` (JP201-JP205): Python
  control flow and conversions on traced values;
- :mod:`~jaxpurity.linter.rules.shapes` (JP206-JP208): shapes, masks and slices
  that depend on traced values;
- :mod:`~jaxpurity.linter.rules.array_updates` (JP209, JP210): JAX arrays written
  in place;
- :mod:`~jaxpurity.linter.rules.static_arguments` (JP211): static arguments that
  cannot be hashed;
- :mod:`~jaxpurity.linter.rules.retracing` (JP301, JP305): a new function jitted where
  it runs again: in a loop, or in a method, once per call;
- :mod:`~jaxpurity.linter.rules.donation` (JP302): donated arrays read again;
- :mod:`~jaxpurity.linter.rules.differentiation` (JP303, JP304): what reverse-mode
  differentiation cannot go through, or turns into nan.

The rule table (:mod:`jaxpurity.linter._rules`) gathers them, in code order.
Each rule has a fixture in ``tests/lint_fixtures/``: the code it must flag, and
the look-alikes it must leave alone.
"""
