"""Name Python objects in messages: a few words for what each is, and a repr that fits a line."""

from __future__ import annotations

import types
from typing import Any

from jaxpurity._introspect import qualname

__all__ = ["CONTAINERS", "LRU_CACHE", "is_lru_cache", "kind_of", "short_repr"]

#: The builtin containers, named by their type alone ("a list").
CONTAINERS = (list, dict, set, tuple, frozenset)

#: How :func:`kind_of` names a function wrapped in :func:`functools.lru_cache`.
LRU_CACHE = "a function cached with functools.lru_cache"

# Letters whose names start with a vowel sound ("em", "ex"): an `M` object, an `RNN`.
_VOWEL_LETTER_NAMES = frozenset("AEFHILMNORSX")


def _article(word: str) -> str:
    """``"an"`` before a vowel sound: by the first letter, or its name for a name read
    letter by letter (one letter, or all capitals: ``M``, ``MLP``)."""
    name = word.strip("`_")
    if len(name) == 1 or name.isupper():
        return "an" if name[:1].upper() in _VOWEL_LETTER_NAMES else "a"
    return "an" if name[:1].lower() in set("aeiou") else "a"


def is_lru_cache(obj: Any) -> bool:
    """Whether ``obj`` is a function wrapped in :func:`functools.lru_cache` (or ``cache``)."""
    try:
        return callable(obj) and hasattr(obj, "cache_info") and hasattr(obj, "__wrapped__")
    except Exception:  # noqa: BLE001 - a hostile __getattr__: no lru_cache, which has none
        return False


def kind_of(obj: Any) -> str:
    """A few words for what ``obj`` is: ``"a list"``, ``"an `Accumulator` object"``.

    Example:
      >>> class MLP:
      ...     pass
      >>> kind_of([]), kind_of(MLP()), kind_of(MLP)
      ('a list', 'an `MLP` object', 'a class `MLP`')
    """
    kind = type(obj)  # not isinstance, which reads __class__: a hostile object's may raise
    if is_lru_cache(obj):
        return LRU_CACHE
    if issubclass(kind, CONTAINERS):
        name = kind.__name__
        return f"{_article(name)} {name}"
    if issubclass(kind, types.FunctionType):
        return f"a function `{qualname(obj)}`"
    if issubclass(kind, type):
        return f"a class `{qualname(obj)}`"
    name = f"`{qualname(type(obj))}`"
    return f"{_article(name)} {name} object"


def short_repr(value: Any, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters, and never an error.

    Example:
      >>> short_repr(list(range(30)), limit=20)
      '[0, 1, 2, 3, 4, 5...'
    """
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide a finding
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
