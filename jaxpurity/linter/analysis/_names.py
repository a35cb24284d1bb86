"""What a name in a module stands for, read from its source: imports and aliases resolved.

``jaxpurity lint`` imports nothing it checks, so ``jnp.sum`` is only a name.
:class:`Names` reads a module's ``import`` statements (anywhere in it) and its
module-level aliases (``shard_map = jax.shard_map``) once, and then answers
what a dotted expression is: ``jnp.sum`` is ``jax.numpy.sum`` after ``import
jax.numpy as jnp``, and ``lax.scan`` is ``jax.lax.scan`` after ``from jax
import lax``. A few names that moved between JAX versions are given one
spelling (:data:`CANONICAL`), so that the rules list each thing once.
"""

from __future__ import annotations

import ast

__all__ = ["CANONICAL", "Names", "dotted", "module_level"]

#: Older or longer spellings, and the one name the rules use for each.
CANONICAL: dict[str, str] = {
    "jax.experimental.shard_map.shard_map": "jax.shard_map",
    "jax.experimental.pjit.pjit": "jax.jit",
    "jax.pjit": "jax.jit",
    "jax.ad_checkpoint.checkpoint": "jax.checkpoint",
    "jax.remat": "jax.checkpoint",
}

# Aliases are kept only for names rooted in these packages: `shard_map = jax.shard_map`,
# not `model = build()`.
_KNOWN_ROOTS = frozenset(
    {
        "jax",
        "numpy",
        "random",
        "time",
        "datetime",
        "os",
        "functools",
        "math",
        "operator",
        "equinox",
        "flax",
        "haiku",
        "jaxpurity",
    }
)


def _canonical(name: str) -> str:
    for old, new in CANONICAL.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return name


def dotted(node: ast.expr) -> str | None:
    """The dotted text of a name or attribute chain (``a.b.c``), as written; else None.

    Example:
      >>> dotted(ast.parse("jnp.linalg.norm", mode="eval").body)
      'jnp.linalg.norm'
    """
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class Names:
    """The qualified names of one module's imports and aliases.

    Args:
      tree: The parsed module.
      package: The package the module is in (``"pkg.sub"`` for ``pkg/sub/mod.py``), to read
        its relative imports (``from .utils import f`` is ``pkg.sub.utils.f``); without it,
        they are left out.

    Example:
      >>> names = Names(ast.parse("import jax.numpy as jnp\\nfrom jax import lax"))
      >>> names.qualified(ast.parse("jnp.sum", mode="eval").body)
      'jax.numpy.sum'
      >>> names.qualified(ast.parse("lax.scan", mode="eval").body)
      'jax.lax.scan'
      >>> relative = Names(ast.parse("from ..utils import f"), package="pkg.sub")
      >>> relative.qualified(ast.parse("f", mode="eval").body)
      'pkg.utils.f'
    """

    def __init__(self, tree: ast.Module, package: str | None = None) -> None:
        self._aliases: dict[str, str] = {}
        self._known: dict[str, str] = {}
        #: Local names bound by an ``import`` statement (modules and imported objects).
        self.imported: set[str] = set()
        for node in _statements(tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self._bind(alias.asname, alias.name)
                    else:
                        root = alias.name.split(".")[0]
                        self._bind(root, root)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for alias in node.names if base else ():
                    if alias.name != "*":
                        self._bind(alias.asname or alias.name, f"{base}.{alias.name}")
        for statement in module_level(tree.body):
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, (ast.Name, ast.Attribute))
            ):
                target = statement.targets[0].id
                if target not in self._aliases:
                    value = self.qualified(statement.value)
                    if value and value.split(".")[0] in _KNOWN_ROOTS:
                        self._aliases[target] = value
        self._known.clear()  # answers given while the aliases were being read

    def _bind(self, local: str, qualified: str) -> None:
        self.imported.add(local)
        self._aliases.setdefault(local, _canonical(qualified))

    def qualified(self, node: ast.expr) -> str | None:
        """What ``node`` names: ``jax.numpy.sum`` for ``jnp.sum``; a name not imported is
        itself (``my_jit``); None for anything that is no name or attribute chain."""
        text = dotted(node)
        if text is None:
            return None
        if text not in self._known:
            head, _, rest = text.partition(".")
            base = self._aliases.get(head, head)
            self._known[text] = _canonical(f"{base}.{rest}" if rest else base)
        return self._known[text]


def _absolute(node: ast.ImportFrom, package: str | None) -> str | None:
    """The module an ``import from`` names, made absolute: ``..utils`` in ``pkg.sub`` is
    ``pkg.utils``; None for a relative import outside a known package."""
    if not node.level:
        return node.module
    if package is None:
        return None
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts) or (node.level - 1 == len(parts) and not node.module):
        return None
    kept = parts[: len(parts) - (node.level - 1)]
    return ".".join([*kept, *([node.module] if node.module else [])]) or None


def module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run at module level: the body, and inside its if/try/with blocks."""
    found = []
    stack = list(reversed(body))
    while stack:
        statement = stack.pop()
        found.append(statement)
        if isinstance(statement, (ast.If, ast.Try, ast.With)):
            blocks = [statement.body, getattr(statement, "orelse", [])]
            if isinstance(statement, ast.Try):
                blocks += [h.body for h in statement.handlers] + [statement.finalbody]
            for block in reversed(blocks):
                stack.extend(reversed(block))
    return found


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement of a module, in blocks at any depth (imports are statements: this
    skips the expressions, most of the tree)."""
    found = []
    stack = list(reversed(body))
    while stack:
        statement = stack.pop()
        found.append(statement)
        for block in ("body", "orelse", "handlers", "finalbody", "cases"):
            inner = getattr(statement, block, None)
            if isinstance(inner, list):
                stack.extend(reversed(inner))
    return found
