"""``jaxpurity lint``'s settings: ``[tool.jaxpurity.lint]`` in the nearest pyproject.toml.

.. code-block:: toml

   [tool.jaxpurity.lint]
   select = ["JP1", "JP201"]     # codes or prefixes; default: every rule on by default
   ignore = ["JP111"]
   wrappers = ["mylib.jit"]      # your own wrappers of jax.jit, read as jax.jit

The nearest is the first ``pyproject.toml`` with that table, looking up from a
checked file's folder; each folder is looked at once.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The standard library's TOML reader from Python 3.11 on; on 3.10 the same API, from tomli.
tomllib = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")

__all__ = ["LintConfig", "find_config", "read_config"]

_KEYS = ("select", "ignore", "wrappers")


@dataclass(frozen=True)
class LintConfig:
    """The settings of ``[tool.jaxpurity.lint]``.

    Attributes:
      select: The codes and prefixes to check; None for every rule on by default.
      ignore: The codes and prefixes not to check.
      wrappers: Qualified names of functions that wrap ``jax.jit`` (``"mylib.jit"``),
        read as ``jax.jit``, with its ``static_argnums`` and ``static_argnames``.
      path: The pyproject.toml they come from; None for the defaults.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    wrappers: tuple[str, ...] = ()
    path: Path | None = None


def read_config(path: Path) -> LintConfig | None:
    """The ``[tool.jaxpurity.lint]`` settings of one pyproject.toml; None when it has none.

    Raises:
      ValueError: The file is not valid TOML, or the table holds an unknown key or a value
        that is not a list of strings.

    Example:
      >>> import tempfile
      >>> folder = Path(tempfile.mkdtemp())
      >>> pyproject = folder / "pyproject.toml"
      >>> _ = pyproject.write_text('[tool.jaxpurity.lint]\\nignore = ["JP111"]\\n')
      >>> read_config(pyproject).ignore
      ('JP111',)
    """
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text, as TOML must be: {error}") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot read it: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    table: Any = document
    for depth, key in enumerate(("tool", "jaxpurity", "lint"), start=1):
        table = table.get(key)
        if table is None:
            return None
        if not isinstance(table, dict):
            name = ".".join(("tool", "jaxpurity", "lint")[:depth])
            raise ValueError(
                f"{path}: {name} must be a table ([{name}]), not {type(table).__name__} "
                f"{table!r:.40}; jaxpurity lint's settings go under [tool.jaxpurity.lint]"
            )
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ValueError(
            f"{path}: [tool.jaxpurity.lint] has no setting {unknown[0]!r}; the settings are "
            f"{', '.join(_KEYS)}"
        )
    values = {key: _strings(path, key, table[key]) for key in _KEYS if key in table}
    return LintConfig(**values, path=path)


def _strings(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(
            f"{path}: [tool.jaxpurity.lint] {key} must be a list of strings, such as "
            f'{key} = ["JP101"], not {value!r}'
        )
    return tuple(value)


def find_config(folder: Path, cache: dict[Path, LintConfig]) -> LintConfig:
    """The settings for files in ``folder``: from the nearest pyproject.toml that has a
    ``[tool.jaxpurity.lint]`` table, or the defaults. ``cache`` keeps each folder's answer."""
    folder = folder.resolve()
    seen = []
    found = LintConfig()
    for candidate in (folder, *folder.parents):
        if candidate in cache:
            found = cache[candidate]
            break
        seen.append(candidate)
        pyproject = candidate / "pyproject.toml"
        config = read_config(pyproject) if pyproject.is_file() else None
        if config is not None:
            found = config
            break
    for candidate in seen:
        cache[candidate] = found
    return found
