"""The three pages in real headless Chromium (Debian's ``chromium`` driven by Playwright).

The dashboard watches a real env server with a real desktop; the viewer replays a trajectory that
``desktop-gym run`` recorded on a real desktop; the training page draws a metrics file. Each test
saves a screenshot of its page under the test output folder (``$DESKTOP_GYM_WEB_SHOTS`` if set).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_gym.cli import main as desktop_gym_main
from desktop_gym.serve.client import RemoteEnv
from desktop_gym.serve.server import EnvServer
from desktop_gym.web import LocalServerSource, create_app
from desktop_gym.web.runner import WebServer

pytestmark = pytest.mark.stage_browser
CHROMIUM = "/usr/bin/chromium"
TASK = "starter.calc_fill_totals"
# A page-side hash of the picture an <img> shows (drawn through a canvas), to see it change.
IMAGE_HASH_JS = """img => { if (!img || !img.naturalWidth) return null;
  const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d'); g.drawImage(img, 0, 0); const d = g.getImageData(0, 0, c.width, c.height).data;
  let h = 0; for (let i = 0; i < d.length; i += 7) h = (h * 31 + d[i]) >>> 0; return h; }"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("DESKTOP_GYM_WEB_SHOTS") or tmp_path_factory.mktemp("web-shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _wait(condition: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def test_dashboard_shows_live_envs_whose_thumbnails_follow_the_desktop(browser: Any, shots: Path) -> None:
    with EnvServer(backend="local", max_envs=1, warm=1) as server:
        env = RemoteEnv(TASK, server.address, server.token, screenshot_format="jpeg")
        try:
            env.reset(seed=0)
            with WebServer(create_app(source=LocalServerSource(server), token=server.token)) as web:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"{web.url}/dashboard")
                card = page.locator("#envs .env").first
                card.wait_for(timeout=20_000)
                assert TASK in card.inner_text()
                image = card.locator("img")
                before = _wait(lambda: image.evaluate(IMAGE_HASH_JS), 20, "the first thumbnail")
                env.step('CalcTools.set_cell_value(cell="A1", value="DASHBOARD CHANGES THIS CELL")')
                _wait(lambda: image.evaluate(IMAGE_HASH_JS) not in (None, before), 20, "the thumbnail to change")
                # The thumbnail can show the new cell while the step is still running (the card then
                # reads "stepping · step 0"); the card's text follows on the next status update.
                _wait(lambda: "step 1" in card.inner_text(), 20, "the card to count the step")
                steps = page.locator("#counters [data-name='Steps'] b")
                _wait(lambda: steps.inner_text() == "1", 20, "the Steps counter to read 1")
                card.click()
                page.locator("#focus-img").wait_for(timeout=10_000)
                large = page.locator("#focus-img")
                _wait(lambda: large.evaluate("img => img.naturalWidth") > 320, 20, "the large view")
                page.screenshot(path=str(shots / "dashboard.png"), full_page=True)
                page.close()
        finally:
            env.close()


def test_viewer_steps_through_a_recorded_trajectory_to_its_verdict(browser: Any, shots: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    assert desktop_gym_main(["run", "--task", TASK, "--agent", "oracle", "--out", str(runs), "--video"]) == 0
    with WebServer(create_app(root=runs)) as web:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{web.url}/view")
        link = page.locator("#episodes tbody a").first
        link.wait_for(timeout=10_000)
        page.screenshot(path=str(shots / "viewer-list.png"), full_page=True)
        link.click()
        page.locator("#timeline button").first.wait_for(timeout=10_000)
        steps = page.locator("#timeline button").count() - 1
        assert steps >= 1
        assert "start" in page.locator("#position").inner_text()
        assert page.locator("#verdict").is_hidden()
        page.keyboard.press("ArrowRight")
        assert page.locator("#position").inner_text().startswith("step 1 of")
        assert page.locator("#action").inner_text().strip()
        for _ in range(steps - 1):
            page.locator("#next").click()
        assert page.locator("#verdict").is_visible()
        assert page.locator("#verdict-text").inner_text().startswith("SUCCESS")
        _wait(lambda: page.locator("#screen").evaluate("img => img.naturalWidth") > 0, 10, "the step's screenshot")
        page.screenshot(path=str(shots / "viewer-episode.png"), full_page=True)
        # The episode video: one second a step; moving its time moves the step shown.
        assert page.locator("#video-panel").is_visible()
        _wait(lambda: page.locator("#video").evaluate("v => v.readyState") >= 1, 10, "the video's metadata")
        assert round(page.locator("#video").evaluate("v => v.duration")) == steps + 1
        page.locator("#video").evaluate("v => { v.currentTime = 1.5; }")
        _wait(lambda: page.locator("#position").inner_text().startswith("step 1 of"), 10, "the step at 1.5 s")
        page.close()


def test_training_page_draws_charts_with_phase_changes(browser: Any, shots: Path, tmp_path: Path) -> None:
    run = tmp_path / "train-demo"
    run.mkdir()
    rows: list[dict[str, Any]] = []
    for iteration in range(1, 13):
        phase = "sft" if iteration in (7, 8) else "rl"
        entropy = 1.0 - 0.08 * iteration if phase == "rl" else 0.9
        rows.append(
            {
                "kind": "iteration",
                "iteration": iteration,
                "phase": phase,
                "success": 0.1 + 0.05 * iteration,
                "reward": 0.05 * iteration,
                "entropy": entropy,
                "kl": 0.01 * iteration,
                "loss": 0.5 / iteration,
                "steps_per_s": 3.0,
                "time": 10.0 * iteration,
            }
        )
    rows.insert(6, {"kind": "phase", "iteration": 7, "phase": "sft", "reason": "entropy fell 40%, success plateaued"})
    rows.insert(9, {"kind": "phase", "iteration": 9, "phase": "rl", "reason": "SFT done, reference reset"})
    (run / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    with WebServer(create_app(root=tmp_path)) as web:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{web.url}/train")
        page.locator("#phases li").first.wait_for(timeout=10_000)
        assert page.locator(".chart svg polyline.series").count() == 6
        points = page.locator("[data-metric='success'] polyline.series").get_attribute("points")
        assert len(points.split()) == 12
        assert page.locator("[data-metric='entropy'] line.phase-marker").count() == 2
        assert "entropy fell" in page.locator("#phases").inner_text()
        assert page.locator("#evals .none-yet").inner_text() == "none yet"  # no held-out eval in this run
        page.screenshot(path=str(shots / "training.png"), full_page=True)
        page.close()


def test_training_page_clamps_rates_and_plots_held_out_evals(browser: Any, shots: Path, tmp_path: Path) -> None:
    run = tmp_path / "train-evals"
    run.mkdir()
    rows = [
        {"kind": "eval", "label": "before", "iteration": 0, "success": 0.25, "ci_low": 0.1, "ci_high": 0.5},
        {"kind": "iteration", "iteration": 1, "phase": "rl", "success": 0.5},
        {"kind": "iteration", "iteration": 2, "phase": "rl", "success": 1.7},  # a bad row: over 100%
        {"kind": "iteration", "iteration": 3, "phase": "rl", "success": -0.2},
        {"kind": "eval", "label": "after", "iteration": 3, "success": 0.75, "ci_low": 0.5, "ci_high": 0.9},
    ]
    (run / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    with WebServer(create_app(root=tmp_path)) as web:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{web.url}/train?run=train-evals")
        page.locator("#evals li").nth(1).wait_for(timeout=10_000)
        chart = page.locator("[data-metric='success'] svg")
        assert chart.locator("rect.interval-point").count() == 2 and chart.locator("line.interval").count() == 2
        labels = chart.locator("text").evaluate_all("els => els.map(e => e.textContent)")
        assert "0" in labels and "1" in labels and "1.7" not in labels  # the axis is [0, 1]
        ys = [float(point.split(",")[1]) for point in chart.locator("polyline.series").get_attribute("points").split()]
        assert 10.0 - 1e-6 <= min(ys) and max(ys) <= 176.0 + 1e-6  # inside the plot area: clamped to [0, 1]
        assert "75.0% held-out success (95% CI 50.0% to 90.0%)" in page.locator("#evals").inner_text()
        assert page.locator("#phases .none-yet").count() == 1
        page.screenshot(path=str(shots / "training_evals.png"), full_page=True)
        page.close()
