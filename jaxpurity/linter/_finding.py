"""What ``jaxpurity lint`` reports: one :class:`Finding` per problem, where and why.

Its own module, so that the reports and the command line read a finding
without importing the linter's engine.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UNPARSABLE", "Finding"]

#: The code of a file that could not be read or parsed (and so was not checked).
UNPARSABLE = "JP000"


@dataclass(frozen=True)
class Finding:
    """One problem that :func:`jaxpurity.lint` found.

    Attributes:
      path: The file, as given or found under a given folder (``"<string>"`` for text).
      line: The line, from 1.
      col: The column, from 1.
      code: The rule's code, such as ``"JP101"`` (``"JP000"``: the file was not checked).
      message: What is wrong, in one line.
      topic: The gallery topic that explains it (a key of ``jaxpurity._pages.PAGES``);
        None for ``JP000``.
      url: The address of that page; None for ``JP000``.
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    topic: str | None
    url: str | None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"
        return f"{where} ({self.url})" if self.url else where
