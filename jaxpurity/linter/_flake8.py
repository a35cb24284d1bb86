"""``jaxpurity lint`` as a flake8 plugin: its findings among flake8's, with flake8's noqa.

Installed with jaxpurity (the ``flake8.extension`` entry point ``JP``), so that
``flake8`` reports the JP codes too; flake8's ``--select``, ``--extend-ignore``
and ``# noqa`` apply to them as to its own codes. The wrappers of
``[tool.jaxpurity.lint]`` in the nearest pyproject.toml are read, as by
``jaxpurity lint``; its ``select`` and ``ignore`` are flake8's to decide, but
for a rule that is off by default (``JP122``): flake8 reports it when that
``select`` names it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from jaxpurity import __version__
from jaxpurity.linter._config import LintConfig, find_config
from jaxpurity.linter._finding import UNPARSABLE
from jaxpurity.linter._lint import findings_in
from jaxpurity.linter._rules import DEFAULT, RULES

__all__ = ["Plugin"]

_CONFIGS: dict[Path, LintConfig] = {}  # each folder's settings, read once per flake8 run


class Plugin:
    """The flake8 plugin: flake8 gives it a module's tree and file name, and reads what
    :meth:`run` yields.

    Example:
      >>> import ast
      >>> source = "import jax\\n@jax.jit\\ndef f(x):\\n    print(x)\\n    return x\\n"
      >>> for line, col, message, _ in Plugin(ast.parse(source), "f.py").run():
      ...     print(line, col, message[:35])
      4 4 JP130 print of a traced value (jax.
    """

    name = "jaxpurity"
    version = __version__

    def __init__(self, tree: ast.Module, filename: str = "stdin") -> None:
        self.tree = tree
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        """Each finding as flake8 wants it: line, 0-based column, ``"JPxxx message"``."""
        path = Path(self.filename)
        folder = path.parent if self.filename not in ("stdin", "-") else Path.cwd()
        config = find_config(folder, _CONFIGS) if folder.is_dir() else LintConfig()
        jit_wrappers = frozenset(config.wrappers)
        chosen = {code.strip().upper() for code in config.select or ()}
        codes = DEFAULT | {rule.code for rule in RULES if rule.code in chosen}
        for finding in findings_in(self.tree, self.filename, codes, jit_wrappers):
            if finding.code != UNPARSABLE:
                text = f"{finding.code} {finding.message}"
                yield finding.line, finding.col - 1, f"{text} ({finding.url})", type(self)
