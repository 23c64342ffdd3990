"""The docs site: every page is in the nav, the nav names only pages that exist, and the build is
configured to run offline. The build itself (``mkdocs build --strict``) is scripts/test.sh's docs stage."""

from __future__ import annotations

import configparser
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GENERATED = {"changelog.md": ROOT / "CHANGELOG.md"}  # pages the build hook makes from files outside docs/
REQUIRED_PAGES = {
    "tasks.md", "verifiers.md", "apps.md", "backends.md", "server-and-cluster.md", "training.md",
    "adapters.md", "evaluation.md", "web-ui.md", "api-generation.md", "security.md", "benchmarks.md",
}  # fmt: skip


def mkdocs_config() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def nav_pages(entries: list[Any]) -> list[str]:
    """Every page a nav names, depth first."""
    pages: list[str] = []
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def doc_pages() -> set[str]:
    excluded = [
        line.strip().rstrip("/") for line in mkdocs_config().get("exclude_docs", "").splitlines() if line.strip()
    ]
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    return {page for page in pages if not any(page.startswith(prefix + "/") for prefix in excluded)}


def test_every_page_is_in_the_nav_once() -> None:
    named = nav_pages(mkdocs_config()["nav"])
    assert len(named) == len(set(named)), "a page is in the nav twice"
    assert set(named) == doc_pages() | set(GENERATED)


def test_the_nav_names_only_pages_that_exist() -> None:
    for page in nav_pages(mkdocs_config()["nav"]):
        assert (DOCS / page).is_file() or GENERATED[page].is_file(), page


def test_the_pages_the_readme_promises_exist() -> None:
    assert REQUIRED_PAGES <= doc_pages()


def test_the_build_needs_no_network_and_is_strict_about_links() -> None:
    config = mkdocs_config()
    assert config["theme"]["name"] == "material"
    assert config["theme"]["font"] is False  # no Google Fonts download
    assert {"search", "offline"} <= set(config["plugins"])
    validation = config["validation"]
    assert validation["nav"]["omitted_files"] == "warn"  # --strict turns a page missing from the nav into an error
    assert validation["links"]["not_found"] == "warn"
    polyfills = config["extra"]["polyfills"]  # else the offline plugin adds unpkg.com's iframe-worker shim
    assert any("iframe-worker" in script for script in polyfills)
    assert all("://" not in script and (DOCS / script).is_file() for script in polyfills)
    for page in doc_pages():
        text = (DOCS / page).read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)=["']https?://""", text), f"{page} loads something from the network"


def test_mkdocs_is_pinned_in_the_dev_extra() -> None:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg", encoding="utf-8")
    dev = parser["options.extras_require"]["dev"].split()
    assert any(re.fullmatch(r"mkdocs==[\d.]+", item) for item in dev)
    assert any(re.fullmatch(r"mkdocs-material==[\d.]+", item) for item in dev)


def test_the_test_command_builds_the_docs_strictly() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert re.search(r"^\s*if wanted docs; then", script, re.M)
    build = re.search(r"^.*mkdocs build --strict.*$", script, re.M)
    assert build and "--quiet" not in build.group(0)  # --quiet hides the warnings --strict turns into errors
    assert re.search(r'^\s*record docs \d+ "\$started"', script, re.M)


def test_the_built_site_is_ignored_by_git() -> None:
    assert "/site/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


REPO_PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.(?:py|json|md|toml|txt|yaml|sh|proto))`")


def test_every_repository_path_the_pages_name_exists() -> None:
    """A path in backticks (``guest/screen.py``, ``tasks/catalogue.json``) names a file in the tree,
    from the root or from the package (so pages follow files that move)."""
    missing = []
    for page in [ROOT / "README.md", ROOT / "CHANGELOG.md", *(DOCS / name for name in sorted(doc_pages()))]:
        for path in REPO_PATH.findall(page.read_text(encoding="utf-8")):
            if not any((base / path).exists() for base in (ROOT, ROOT / "desktop_gym")):
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert missing == []
