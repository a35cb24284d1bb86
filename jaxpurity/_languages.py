"""The languages jaxpurity answers in: English, and Simplified Chinese (``"zh_CN"``).

They are the site's two editions. :func:`jaxpurity.explain` and the command
line answer in either and link the pages of the same edition. The package's
texts other than English are in a gettext catalog for each language,
``jaxpurity/locale/<language>/LC_MESSAGES/jaxpurity.mo`` (compiled from the
``.po`` beside it, which translators edit: ``tox -e catalogs`` updates it, see
the README), read with the standard library's :mod:`gettext` the first time a
text is asked for in that language.
"""

from __future__ import annotations

import functools
import gettext
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EDITIONS", "LANGUAGES", "Edition", "from_locale", "language", "translate"]


@dataclass(frozen=True)
class Edition:
    """The site's edition in one language: where it is built, and what its readers call it."""

    folder: str  # below the site's root: "" for English, "zh_CN/"
    name: str  # in its own language, as the language switcher shows it


#: Each language jaxpurity answers in, and the site's edition in it.
EDITIONS: dict[str, Edition] = {
    "en": Edition("", "English"),
    "zh_CN": Edition("zh_CN/", "简体中文"),
}
LANGUAGES: tuple[str, ...] = tuple(EDITIONS)

_ALIASES = {"en": "en", "zh": "zh_CN", "zh_cn": "zh_CN", "zh_hans": "zh_CN", "zh_hans_cn": "zh_CN"}
#: The package's catalogs: <language>/LC_MESSAGES/jaxpurity.mo, and the .po it is compiled from.
_LOCALE = Path(__file__).parent / "locale"


def language(lang: object) -> str:
    """The code of a language jaxpurity answers in, for ``lang`` as people write it.

    Example:
      >>> language("zh-CN"), language("zh"), language("EN")
      ('zh_CN', 'zh_CN', 'en')
    """
    if not isinstance(lang, str):
        raise TypeError(f"lang must be a str such as 'en' or 'zh_CN', not {type(lang).__name__}")
    code = _ALIASES.get(lang.strip().replace("-", "_").lower())
    if code is None:
        raise ValueError(
            f"lang={lang!r}: jaxpurity answers in English ('en') and Simplified Chinese "
            "('zh_CN') only"
        )
    return code


def from_locale(environ: Mapping[str, str] = os.environ) -> str:
    """The language of the user's locale: ``"zh_CN"`` for Simplified Chinese, else ``"en"``.

    The variables are read in the order gettext reads them (``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG``); the first one set decides.

    Example:
      >>> from_locale({"LANG": "zh_CN.UTF-8"}), from_locale({"LANG": "de_DE.UTF-8"})
      ('zh_CN', 'en')
    """
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "").split(":")[0].split(".")[0].split("@")[0]
        if value:
            code = value.replace("-", "_").lower()
            return (
                "zh_CN" if code in ("zh", "zh_cn", "zh_sg") or code.startswith("zh_hans") else "en"
            )
    return "en"


def translate(text: str, lang: str) -> str:
    """``text`` in the language ``lang`` (a code of :data:`LANGUAGES`), from its catalog.

    A text the catalog does not hold comes back as it is, in English.

    Example:
      >>> translate("Read more", "zh_CN"), translate("Read more", "en")
      ('详见', 'Read more')
    """
    if lang == "en" or not text:  # gettext's translation of "" is the catalog's header
        return text
    return _catalog(lang).gettext(text)


@functools.cache
def _catalog(lang: str) -> gettext.NullTranslations:
    """The package's catalog for ``lang``, read once, when a text is first asked for in it."""
    return gettext.translation("jaxpurity", _LOCALE, languages=[lang])
