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


def _started(*args: str, env: dict[str, str] | None = None):
    """The web chat started with ``args`` (and ``env`` over this process's environment): its
    URL, then stopped as a service manager stops it (SIGTERM)."""
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
        env={**os.environ, **(env or {})},
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


@pytest.fixture(scope="module")
def folder_web_app(tmp_path_factory):
    """The web chat over an empty folder of one's own (``--docs``), uploads at most 20 MB."""
    docs = tmp_path_factory.mktemp("web") / "docs"
    docs.mkdir()
    for url in _started("--docs", str(docs), "--max-upload-mb", "20"):
        yield url, docs


@pytest.fixture
def page(folder_web_app):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(folder_web_app[0])
        yield page
        browser.close()


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


def test_a_stopped_app_leaves_no_temporary_file(tmp_path):
    """Its heatmaps, its uploads folder and that folder's store, and Gradio's copies live in
    the temporary directory until the app stops."""
    from playwright.sync_api import sync_playwright

    temp = tmp_path / "tmp"
    temp.mkdir()
    app = _started(env={"TMPDIR": str(temp)})
    url = next(app)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url)
        page.locator("#question textarea").fill(QUESTION)
        page.locator("#ask").click()
        page.locator("#heatmap img").wait_for(timeout=120_000)
        browser.close()
    holders = {p.relative_to(temp).parts[0] for p in temp.rglob("*.png")}
    assert "gradio" in holders and any(h.startswith("cage-web-") for h in holders)  # the heatmap
    next(app, None)  # SIGTERM
    assert [p.relative_to(temp) for p in temp.rglob("*") if p.is_file()] == []
    assert not [p.name for p in temp.iterdir() if p.name.startswith("cage-web-")]


UPLOADED = """\
# Lighthouse keeping

[![status](https://img.shields.io/badge/status-active-green.svg)](https://example.org)

## The lamp

The lamp of the Ar-Men lighthouse is lit every evening at sunset by the keeper on duty.
The keeper winds the clockwork of the lens every four hours through the night.
"""


def _ask(page, question: str) -> str:
    """Ask in the page; the conversation's text once the answer is there."""
    before = page.locator("#chat").inner_text().count("extractive answer")
    page.locator("#question textarea").fill(question)
    page.locator("#ask").click()
    page.wait_for_function(
        "n => document.querySelector('#chat').innerText.split('extractive answer').length > n + 1",
        arg=before,
        timeout=120_000,
    )
    return page.locator("#chat").inner_text()


def test_an_uploaded_file_is_ingested_and_others_refused_each_with_a_line(
    folder_web_app, page, tmp_path
):
    from playwright.sync_api import expect

    url, docs = folder_web_app
    expect(page.locator("#status")).to_contain_text(
        "nothing to ingest: 0 files (0 unchanged, 0 removed)", timeout=120_000
    )
    (tmp_path / "lighthouse.md").write_text(UPLOADED, encoding="utf-8")
    (tmp_path / ".keeper.md").write_text("# Keeper\n\nA hidden note.\n", encoding="utf-8")
    (tmp_path / "photo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 100)
    (tmp_path / "tides.csv").write_text("station,height\nbrest,4.2\n", encoding="utf-8")
    page.locator("#upload input[type=file]").set_input_files(
        [str(tmp_path / n) for n in ("lighthouse.md", ".keeper.md", "photo.md", "tides.csv")]
    )
    status = page.locator("#status")
    expect(status).to_contain_text("ingested 1 file (0 unchanged, 0 removed)", timeout=180_000)
    for line in (
        "not ingested: .keeper.md (a hidden name, starting with '.')",
        "not ingested: photo.md (binary content)",
        "not ingested: tides.csv (not .md, .markdown, .rst, .txt, .html, .htm, .ipynb, .eml, "
        ".pdf, .docx or no extension)",
    ):
        expect(status).to_contain_text(line)
    chat = _ask(page, "When is the lamp of the lighthouse lit?")
    expect(page.locator("#passages")).to_contain_text("lighthouse.md › The lamp")
    sources = page.locator("#passages").inner_text()
    assert "is lit every evening at sunset by the keeper on duty. [1]" in chat
    assert "shields.io" not in chat and "](" not in chat
    assert sources.count("lighthouse.md › The lamp") == 1  # its only chunk, by file and heading
    assert sorted(p.name for p in docs.iterdir()) == ["lighthouse.md"]
    assert (docs / "lighthouse.md").read_text(encoding="utf-8") == UPLOADED


def test_an_upload_over_the_size_limit_is_refused_with_a_message(folder_web_app, page, tmp_path):
    from playwright.sync_api import expect

    big = tmp_path / "manual.md"
    with big.open("wb") as f:
        f.truncate(200 * 1024 * 1024)  # 200 MB (sparse: nothing written)
    page.locator("#upload input[type=file]").set_input_files(str(big))
    expect(
        page.get_by_text('File(s) exceed the maximum allowed size of 20.0 Mb: "manual.md"')
    ).to_be_visible(timeout=30_000)
    assert not (folder_web_app[1] / "manual.md").exists()


def test_a_question_is_answered_while_a_large_file_is_ingested(folder_web_app, page, tmp_path):
    from playwright.sync_api import expect

    section = (
        "## Harbour {n}\n\nThe harbour master of quay {n} records the tide gauge every morning "
        "and posts the reading on the board beside the customs house.\n\n"
    )
    large = tmp_path / "harbours.md"
    large.write_text("".join(section.format(n=n) for n in range(70_000)), encoding="utf-8")
    assert large.stat().st_size > 10_000_000
    page.locator("#upload input[type=file]").set_input_files(str(large))
    status = page.locator("#status")
    expect(status).to_contain_text("ingesting", timeout=60_000)
    chat = _ask(page, "When is the lamp of the lighthouse lit?")
    assert "is lit every evening at sunset by the keeper on duty. [1]" in chat
    expect(status).to_contain_text("ingesting")  # still: the answer did not wait for it
