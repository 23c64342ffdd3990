"""LibreOffice profile template and UNO bridge, against a real soffice on a private X server."""

from __future__ import annotations

import os
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_gym.guest.apps import lo_profile, uno_bridge

from ..support.soffice import needs_desktop_tools, start_soffice, start_x_session, stop_all
from ..support.threads import run_in_threads

pytestmark = needs_desktop_tools

OOR = "{http://openoffice.org/2001/registry}"


def _registry_value(profile: Path, path: str, name: str) -> str | None:
    """The last value registrymodifications.xcu sets for ``path``/``name`` (later items win)."""
    root = ET.parse(profile / "user" / "registrymodifications.xcu").getroot()
    value = None
    for item in root.iter("item"):
        if item.get(f"{OOR}path") != path:
            continue
        for prop in item.iter("prop"):
            if prop.get(f"{OOR}name") == name:
                value = prop.findtext("value")
    return value


@pytest.fixture(scope="module")
def x_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Xvfb + openbox + a private session bus, each in its own process group; yields their env."""
    runtime = tmp_path_factory.mktemp("xdg-runtime")
    runtime.chmod(0o700)
    procs: list[subprocess.Popen] = []
    try:
        base = {k: v for k, v in os.environ.items() if k not in ("AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE")}
        yield start_x_session(runtime, {**base, "SAL_USE_VCLPLUGIN": "gtk3"}, procs)
    finally:
        stop_all(procs)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lo-cache")


def _make_xlsx(path: Path) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    sheet["A1"], sheet["B1"], sheet["A2"], sheet["B2"] = "item", "qty", "apples", 3
    workbook.save(path)
    return path


@pytest.fixture(scope="module")
def calc(x_session: dict[str, str], cache_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """A soffice --calc on a fresh profile and a fresh xlsx; yields (connection, file, ready seconds)."""
    work = tmp_path_factory.mktemp("calc")
    document = _make_xlsx(work / "task.xlsx")
    started = time.monotonic()
    proc, pipe = start_soffice(work, document, x_session, cache_dir=cache_dir)
    try:
        connection = uno_bridge.wait_for_uno(pipe, timeout=60)
        ready_s = time.monotonic() - started
        print(f"\nUNO ready with a loaded document {ready_s:.2f} s after launch")
        yield connection, document, ready_s
        connection.close()
    finally:
        stop_all([proc])


def test_template_built_once_then_reused(cache_dir: Path) -> None:
    started = time.monotonic()
    template = lo_profile.ensure_profile_template(cache_dir)
    built_s = time.monotonic() - started
    print(f"\nprofile template ready in {built_s:.2f} s")
    registry = template / "user" / "registrymodifications.xcu"
    mtime = registry.stat().st_mtime_ns

    started = time.monotonic()
    assert lo_profile.ensure_profile_template(cache_dir) == template
    assert time.monotonic() - started < 0.05
    assert registry.stat().st_mtime_ns == mtime
    assert template.name.startswith(f"lo-profile-{lo_profile.libreoffice_version()}")
    assert not [p for p in template.rglob("*") if p.name.endswith(".lock") or p.name.startswith(".~lock")]
    assert [p.name for p in cache_dir.iterdir() if p.name.startswith(".")] == []  # no build leftovers


def test_template_settings(cache_dir: Path) -> None:
    template = lo_profile.ensure_profile_template(cache_dir)
    common = "/org.openoffice.Office.Common"
    assert _registry_value(template, f"{common}/Save/Document", "WarnAlienFormat") == "false"
    assert _registry_value(template, f"{common}/Misc", "ShowTipOfTheDay") == "false"
    assert _registry_value(template, f"{common}/Misc", "FirstRun") == "false"
    assert _registry_value(template, "/org.openoffice.Office.Recovery/AutoSave", "Enabled") == "false"
    assert _registry_value(template, "/org.openoffice.Office.Java/VirtualMachine", "Enable") == "false"
    major_minor = ".".join(lo_profile.libreoffice_version().split(".")[:2])
    assert _registry_value(template, "/org.openoffice.Setup/Product", "ooSetupLastVersion") == major_minor


def test_concurrent_builds_agree(tmp_path: Path) -> None:
    results, errors = run_in_threads(lambda: lo_profile.ensure_profile_template(tmp_path), copies=3, timeout=120)
    assert errors == []
    assert len(set(results)) == 1 and len(results) == 3
    assert [p.name for p in tmp_path.iterdir()] == [results[0].name]


def test_fresh_profile_is_fast_and_independent(cache_dir: Path, tmp_path: Path) -> None:
    lo_profile.ensure_profile_template(cache_dir)
    started = time.monotonic()
    url_a = lo_profile.fresh_profile(tmp_path / "a", cache_dir)
    copy_s = time.monotonic() - started
    print(f"\nfresh profile copy {copy_s * 1000:.1f} ms")
    url_b = lo_profile.fresh_profile(tmp_path / "b", cache_dir)
    assert copy_s < 0.5
    assert url_a == (tmp_path / "a").as_uri() and url_a.startswith("file:///")
    (tmp_path / "a" / "user" / "registrymodifications.xcu").write_text("changed")
    assert "WarnAlienFormat" in (tmp_path / "b" / "user" / "registrymodifications.xcu").read_text()
    assert (
        "WarnAlienFormat"
        in (lo_profile.ensure_profile_template(cache_dir) / "user" / "registrymodifications.xcu").read_text()
    )
    assert url_b != url_a


@pytest.mark.slow
def test_wait_for_uno_names_the_pipe_on_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="no_such_pipe_for_test.*a loaded document"):
        uno_bridge.wait_for_uno("no_such_pipe_for_test", timeout=0.3)
    assert time.monotonic() - started < 2.0


@pytest.mark.slow
def test_office_uses_the_template_settings(calc) -> None:
    connection, _, _ = calc
    provider = connection.context.ServiceManager.createInstanceWithContext(
        "com.sun.star.configuration.ConfigurationProvider", connection.context
    )
    access = provider.createInstanceWithArguments(
        "com.sun.star.configuration.ConfigurationAccess",
        uno_bridge.property_values(nodepath="/org.openoffice.Office.Common/Save/Document"),
    )
    assert connection.call(access.getByName, "WarnAlienFormat") is False


@pytest.mark.slow
def test_set_cell_and_save_xlsx_roundtrip(calc, tmp_path: Path) -> None:
    import openpyxl

    connection, document_path, ready_s = calc
    assert ready_s < 30
    document = connection.current_document()
    assert document is not None
    assert document.getURL() == document_path.as_uri()
    sheet = connection.call(document.Sheets.getByName, "Data")
    connection.call(sheet.getCellRangeByName("C2").setString, "checked")
    connection.call(sheet.getCellRangeByName("B3").setValue, 42)

    exported = tmp_path / "export.xlsx"
    started = time.monotonic()
    connection.save(document, exported, filter_name="Calc MS Excel 2007 XML")
    print(f"\nstoreToURL xlsx {1000 * (time.monotonic() - started):.0f} ms")
    sheet_out = openpyxl.load_workbook(exported)["Data"]
    assert sheet_out["C2"].value == "checked"
    assert sheet_out["B3"].value == 42
    assert sheet_out["A2"].value == "apples"

    connection.save(document)  # in place, keeping xlsx: no "Keep current format?" dialog can block it
    assert openpyxl.load_workbook(document_path)["Data"]["C2"].value == "checked"


@pytest.mark.slow
def test_call_timeout_names_the_call(calc) -> None:
    connection, _, _ = calc
    release = threading.Event()

    def blocks_forever() -> None:
        release.wait(10)

    started = time.monotonic()
    with pytest.raises(uno_bridge.UnoTimeoutError, match="blocks_forever.*did not return within 0.2"):
        connection.call(blocks_forever, timeout=0.2)
    assert time.monotonic() - started < 1.0
    release.set()
    assert connection.current_document() is not None  # the connection itself is still fine


@pytest.mark.slow
def test_wait_for_uno_without_document(calc) -> None:
    connection, _, _ = calc
    other = uno_bridge.wait_for_uno(connection.pipe_name, timeout=10, expect_document=False)
    try:
        assert other.desktop is not None
    finally:
        other.close()
