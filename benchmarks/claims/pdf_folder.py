"""A DEV folder read by the example chats, and the same folder printed to PDF: what reading PDFs
loses (``examples/pdf_sections.py``).

Each file of a DEV folder (``data/dev_folders/``) is read as the example chats read it
(``folder_docs.read_file``: its title and sections) and printed by Chromium as a browser prints
a page: a ``<title>``, each section an ``<h2>`` over its paragraphs, the title as the running
head, "Page N of M" as the running foot, the outline on. Both folders are synced by the
LangChain example's ``FolderIndex`` (Chroma, the link index) and asked the folder's questions
at k = 20: the store's top 5 (plain), and the LangChain chat's own retriever
(``build_retriever``: ``CageRerank(top_n=5)`` after ``CageExpansionRetriever``, cage --expand).

A gold part is the question's ``(file, phrase)``, the phrase compared by its words alone
(:func:`normal`); found in a top 5 when one of its file's chunks there holds
it (``file.pdf`` for the printed copy). A part that no chunk holds in one of the two reads (a
chunk border cuts it, or the phrase is markup) is left out of both and counted. Prints, per
folder: the files' titles that differ (a file that writes none: its name), sections per read,
R@5 of plain and cage --expand per read over the parts both reads hold.

Needs Chromium (Debian's ``chromium``) and the ``examples`` extra.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # rank with this tree's cage_core, not an installed copy
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval: the DEV folders' shared parts
EXAMPLES = ROOT / "examples"
CHAT_APP = EXAMPLES / "langchain_chat" / "app.py"

from crossval.dev_folders import DATA

HEADER = '<div style="font-size:9px;width:100%;text-align:center"><span class="title"></span></div>'
FOOTER = (
    '<div style="font-size:9px;width:100%;text-align:center">'
    'Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>'
)
K, TOP = 20, 5
_TAG = re.compile(r"<[^>]+>")
_NON_WORD = re.compile(r"[\W_]+")


def normal(text: str) -> str:
    """``text`` as phrases are compared: its words (HTML tags and every other character
    removed: the phrases are written as the files write them, `code` and **bold** included),
    casefolded."""
    return " ".join(_NON_WORD.sub(" ", html.unescape(_TAG.sub(" ", text))).split()).casefold()


def page(title: str, sections: list[tuple[str, str]]) -> str:
    """An HTML page of a file's title and sections (module docstring)."""
    body = "".join(
        (f"<h2>{html.escape(heading)}</h2>" if heading else "")
        + "".join(f"<p>{html.escape(p)}</p>" for p in text.split("\n\n"))
        for heading, text in sections
    )
    return f"<!doctype html><html><head><title>{html.escape(title)}</title></head><body>{body}"


def print_folder(
    read: dict[str, tuple[str, list[tuple[str, str]]]], out: Path, chromium: str
) -> None:
    """Each file as read by the examples (``read``: its name, its title and sections, the
    title its name gives when it writes none), printed to ``out/<file>.pdf``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        tab = browser.new_page()
        for name, (title, sections) in read.items():
            tab.set_content(page(title, sections))
            target = out / f"{name}.pdf"
            target.parent.mkdir(parents=True, exist_ok=True)
            tab.pdf(
                path=target,
                outline=True,
                tagged=True,
                display_header_footer=True,
                header_template=HEADER,
                footer_template=FOOTER,
                margin={"top": "60px", "bottom": "60px"},
            )
        browser.close()


def chat_retriever() -> Any:
    """The LangChain chat's own ``build_retriever`` (``examples/langchain_chat/app.py``: the
    store's top k, ``CageExpansionRetriever``, ``CageRerank``), read from its file."""
    spec = importlib.util.spec_from_file_location("langchain_chat_app", CHAT_APP)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {CHAT_APP}")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    return app.build_retriever


def ranked(store_dir: Path, docs: Path, questions: list[str]) -> tuple[dict, dict]:
    """Sync ``docs`` into a store; per question the plain and the cage --expand top 5 as
    ``(source, normal text)``; and each source's chunks' normal texts."""
    from langchain_folder import FolderIndex

    from cage_langchain import ScoredVectorStoreRetriever

    index = FolderIndex(store_dir)
    print(index.sync(docs, None).line(), flush=True)
    base = ScoredVectorStoreRetriever(vectorstore=index.vectorstore, k=K)
    cage = chat_retriever()(index.vectorstore, top_n=TOP, k=K, links=index.links)
    tops = {}
    for q in questions:
        tops[q] = {
            method: [(d.metadata["source"], normal(d.page_content)) for d in found[:TOP]]
            for method, found in (("plain", base.invoke(q)), ("cage --expand", cage.invoke(q)))
        }
    stored = index.vectorstore.get(include=["documents", "metadatas"])
    chunks: dict[str, list[str]] = {}
    for text, metadata in zip(stored["documents"], stored["metadatas"]):
        chunks.setdefault(str(metadata["source"]), []).append(normal(text))
    return tops, chunks


def run(name: str, chromium: str) -> None:
    import json

    from folder_docs import read_file

    spec = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    folder = DATA / name
    work = Path(tempfile.mkdtemp(prefix="cage-pdf-folder-"))
    try:
        printed = work / "pdf"
        read = {}
        for f in spec["files"]:
            read[f] = read_file(folder / f)
        print_folder(read, printed, chromium)
        from pdf_sections import read_pdf

        read_back = {f: read_pdf(printed / f"{f}.pdf") for f in spec["files"]}
        retitled = [
            (f, read[f][0], read_back[f][0]) for f in spec["files"] if read[f][0] != read_back[f][0]
        ]
        sections = [sum(len(s) for _, s in files.values()) for files in (read, read_back)]
        questions = [q["question"] for q in spec["questions"]]
        reads = {
            "as read": ranked(work / "read-store", folder, questions),
            "printed": ranked(work / "pdf-store", printed, questions),
        }
        source = {"as read": lambda f: f, "printed": lambda f: f"{f}.pdf"}
        kept = dropped = 0
        hits = {(r, m): 0 for r in reads for m in ("plain", "cage --expand")}
        for q in spec["questions"]:
            for part in q["gold"]:
                phrase = normal(part["contains"])
                held = all(
                    any(phrase in c for c in chunks.get(source[r](part["file"]), []))
                    for r, (_, chunks) in reads.items()
                )
                if not held:
                    dropped += 1
                    continue
                kept += 1
                for (r, method), _ in hits.items():
                    top = reads[r][0][q["question"]][method]
                    hits[r, method] += any(
                        s == source[r](part["file"]) and phrase in t for s, t in top
                    )
        print(f"\n{name}: {len(spec['files'])} files, {len(questions)} questions")
        print(f"sections: {sections[0]} as read, {sections[1]} printed and read back")
        for f, a, b in retitled:
            print(f"  title of {f}: {a!r} as read, {b!r} printed")
        print(f"gold parts held by a chunk in both reads: {kept} (left out: {dropped})")
        print("| read | plain R@5 | cage --expand R@5 |\n|---|---|---|")
        for r in reads:
            cells = [f"{hits[r, m] / max(kept, 1):.3f}" for m in ("plain", "cage --expand")]
            print(f"| {r} | {' | '.join(cells)} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--folders",
        default="libffi_html_manual",
        help="DEV folders, comma-separated (default: libffi_html_manual)",
    )
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        parser.error("needs Chromium (Debian's chromium) to print the PDFs")
    sys.path.insert(0, str(EXAMPLES))
    for name in args.folders.split(","):
        if not (DATA / f"{name}.json").is_file():
            parser.error(f"--folders: no DEV folder {name!r} in {DATA}")
        run(name, chromium)


if __name__ == "__main__":
    main()
