"""What the routing checks share (``benchmarks/checks/installed_docs_routing.py``,
``benchmarks/checks/api_docs_routing.py``): each question with the pages it expects, and one
folder's routes checked against them."""

from __future__ import annotations

from pathlib import Path

from cage_core.expansion.documents import TITLE_CHARS
from cage_core.expansion.routing import RoutingSettings, route_question
from cage_core.names.documents import document_title
from crossval.dev_folders import folder_names

__all__ = ["check", "expecting", "stem"]


def expecting(
    questions: tuple[tuple[str, str | tuple[str, ...] | None], ...],
    pages: dict[str, str] | None = None,
) -> list[tuple[str, tuple[str, ...]]]:
    """Each question with the pages it expects: those it names (each one's page in ``pages``,
    when given), or none."""
    named = [(q, (p,) if isinstance(p, str) else p or ()) for q, p in questions]
    return [(q, tuple(sorted((pages or {}).get(p, p) for p in ps))) for q, ps in named]


def stem(file_name: str) -> str:
    """A page's name less its file's suffix (``apt.conf.5.txt``, ``repl.html``, ``repl.md``)."""
    return file_name.removesuffix(".txt").rsplit(".", 1)[0]


def check(
    name: str,
    folder: Path,
    files: list[str],
    questions: list[tuple[str, tuple[str, ...]]],
    verbose: bool,
    *,
    by_path: bool = False,
) -> None:
    """Print the folder's routes that differ from the expected ones and its figures."""
    titles = {
        f: document_title(
            (folder / f).read_text(encoding="utf-8", errors="replace").lstrip()[:TITLE_CHARS]
        )
        for f in files
    }
    names = folder_names(folder, files)
    if verbose:
        for f, title in titles.items():
            print(f"  {f}: {title!r}")
    right = others = 0
    for question, pages in questions:
        route = route_question(question, names, RoutingSettings())
        got = tuple(sorted(d if by_path else stem(d) for d in route.doc_ids))
        right += bool(pages) and got == pages
        others += not pages and bool(got)
        if got != pages:
            print(f"  {name}: {question[:80]!r} -> {list(got)} (expected {list(pages)})")
    naming = sum(bool(pages) for _, pages in questions)
    titled = sum(map(bool, titles.values()))
    print(
        f"{name}: {titled}/{len(files)} documents titled; naming questions routed to theirs "
        f"{right}/{naming}; others routed {others}/{len(questions) - naming}"
    )
