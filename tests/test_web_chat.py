"""The Gradio web chat, started on localhost and driven in headless Chromium (Playwright)."""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [
    pytest.mark.models,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="needs Debian's chromium (installed by .ci/run)"
    ),
]
QUESTION = (
    "What is the name of the fight song of the university whose main campus is in Lawrence, Kansas?"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def web_app():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "web_chat" / "app.py"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"web app exited: {proc.stdout.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(1)
    else:
        proc.kill()
        pytest.fail("web app did not start in 180 s")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def test_question_answer_table_and_heatmap_in_chromium(web_app, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(web_app)
        page.locator("#question textarea").fill(QUESTION)
        page.locator("#ask").click()
        page.wait_for_selector("#chat :text('extractive answer')", timeout=120_000)
        assert "Kansas Song" in page.locator("#chat").inner_text()
        page.wait_for_selector("#passages :text('Kansas Song')", timeout=30_000)
        assert page.locator("#passages").inner_text().count("University of Kansas") >= 1
        assert "linked to" in page.locator("#passages").inner_text()  # the evidence chain column
        assert "← 'University of Kansas' from #" in page.locator("#passages").inner_text()
        image = page.locator("#heatmap img")
        image.wait_for(timeout=30_000)
        assert image.get_attribute("src")
        shot = tmp_path / "web_chat.png"
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert shot.stat().st_size > 10_000
    out_dir = os.environ.get("CAGE_SCREENSHOT_DIR")
    if out_dir:
        shutil.copy(shot, Path(out_dir) / "web_chat.png")
