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

ROOT = Path(__file__).resolve().parents[2]
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


def _started(*args: str):
    """The web chat started with ``args``: its URL, then stopped."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "examples" / "web_chat" / "app.py"),
            "--port",
            str(port),
            *args,
        ],
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


@pytest.fixture
def web_app():
    yield from _started()


@pytest.fixture
def folder_web_app(tmp_path):
    """The web chat over an empty folder of one's own (``--docs``)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    yield from _started("--docs", str(docs))


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def test_question_answer_table_and_heatmap_in_chromium(web_app, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
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


UPLOADED = """\
# Lighthouse keeping

[![status](https://img.shields.io/badge/status-active-green.svg)](https://example.org)

## The lamp

The lamp of the Ar-Men lighthouse is lit every evening at sunset by the keeper on duty.
The keeper winds the clockwork of the lens every four hours through the night.
"""


def test_an_uploaded_file_is_ingested_and_answers_with_its_sources(folder_web_app, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    upload = tmp_path / "lighthouse.md"
    upload.write_text(UPLOADED, encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(folder_web_app)
        page.wait_for_selector("#status :text('ingested 0 files (0 unchanged, 0 removed)')")
        page.locator("#upload input[type=file]").set_input_files(str(upload))
        page.wait_for_selector(
            "#status :text('ingested 1 file (0 unchanged, 0 removed)')", timeout=180_000
        )
        page.locator("#question textarea").fill("When is the lamp of the lighthouse lit?")
        page.locator("#ask").click()
        page.wait_for_selector("#chat :text('extractive answer')", timeout=120_000)
        chat = page.locator("#chat").inner_text()
        expect(page.locator("#passages")).to_contain_text("lighthouse.md › The lamp")
        sources = page.locator("#passages").inner_text()
        browser.close()
    assert "is lit every evening at sunset by the keeper on duty. [1]" in chat
    assert "shields.io" not in chat and "](" not in chat
    assert (
        sources.count("lighthouse.md › The lamp") == 1
    )  # its only chunk, named by file and heading
    assert (upload.parent / "docs" / "lighthouse.md").read_text(encoding="utf-8") == UPLOADED
