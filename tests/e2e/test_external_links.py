"""Every link of the built site to the Python, JAX and NumPy docs is a URL their docs have.

Intersphinx writes those links from ``docs/_inventories/*.inv`` when the build is offline
(see the README there): the real Python inventory, and JAX's and NumPy's derived from their
documentation sources. Each ``href`` of ``build/html`` into one of the sites in
``intersphinx_mapping`` must be, page and anchor, the URI of an entry of that site's
inventory, so that a link the real site does not have (a guessed page, a name documented
under another module) fails here instead of landing on a 404 or on the top of a page.

Like the browser tests, this runs after the docs build, with ``JAXPURITY_E2E=1``
(``tox -e e2e``); ``JAXPURITY_SITE`` points it at a site built elsewhere than ``build/html``.
"""

from __future__ import annotations

import ast
import collections
import html
import os
import re
from pathlib import Path

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip(
        "tests of the built site run with `tox -e e2e` (JAXPURITY_E2E=1)",
        allow_module_level=True,
    )

import importlib.util

from _site import ROOT, SITE

_spec = importlib.util.spec_from_file_location(
    "derive_inventory", ROOT / "docs" / "_inventories" / "derive_inventory.py"
)
assert _spec and _spec.loader
derive_inventory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(derive_inventory)

if not (SITE / "index.html").is_file():
    pytest.fail(f"no built site at {SITE}: run `tox -e docs` first", pytrace=False)


def intersphinx_mapping() -> dict[str, tuple[str, Path]]:
    """``intersphinx_mapping`` of ``conf.py``: name -> (base URL, offline inventory file)."""
    for node in ast.parse((ROOT / "conf.py").read_text()).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "intersphinx_mapping":
            mapping = ast.literal_eval(node.value)
            return {
                name: (base, ROOT / "docs" / files[-1]) for name, (base, files) in mapping.items()
            }
    raise AssertionError("conf.py sets no intersphinx_mapping")


def known_urls(base: str, inventory: Path) -> set[str]:
    """The absolute URL of every entry of ``inventory``, as intersphinx links it."""
    tables = derive_inventory.read(inventory.read_bytes(), uri=base)
    return {uri for table in tables.values() for uri in table.values()}


MAPPING = intersphinx_mapping()
HREF = re.compile(r'href="(https?://[^"]*)"')


def links_to(base: str) -> dict[str, collections.Counter[str]]:
    """Each URL under ``base`` that the built pages link: how many times, on which pages."""
    found: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for page in SITE.rglob("*.html"):
        for url in HREF.findall(page.read_text(encoding="utf-8")):
            if url.startswith(base):
                found[html.unescape(url)][page.relative_to(SITE).as_posix()] += 1
    return found


@pytest.mark.parametrize("name", sorted(MAPPING))
def test_every_external_link_is_in_the_real_inventory(name, summary):
    base, inventory = MAPPING[name]
    known = known_urls(base, inventory)
    links = links_to(base)
    assert links, f"the site has no link to {base}: is intersphinx on?"
    unknown = {url: pages for url, pages in links.items() if url not in known}
    count = sum(sum(pages.values()) for pages in links.values())
    summary.append(
        f"{name}: {count} links to {len(links)} URLs of {base}; "
        f"{len(unknown)} URLs not in {inventory.name}"
    )
    assert not unknown, (
        f"links to {base} that its inventory ({inventory.name}) does not have, so the real "
        "site has no such page or anchor; fix the role (docs/_inventories/README.md says how):\n"
        + "\n".join(
            f"{url} on {', '.join(sorted(pages))}" for url, pages in sorted(unknown.items())
        )
    )
