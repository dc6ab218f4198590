"""Routing on API references and manuals as tools write them on this machine, kinds no DEV
folder is (issue 45), without a model: which questions each folder's records route.

Four folders, each with questions written before the folder was routed (each naming the
pages it expects, or none):

* ``pydoc``: 47 of Python's standard modules as ``python -m pydoc -w MODULE`` writes them (one
  HTML page a module, every title "Python: module heapq");
* ``rustdoc``: 48 pages of Rust's standard library API as rustup installs them (the
  ``std/collections``, ``sync``, ``fs``, ``io``, … pages of structs, traits and functions and
  their modules' ``index.html``: "HashMap in std::collections - Rust");
* ``coreutils``: GNU coreutils' Info manual split into its 246 nodes, one text file a node
  named as gnu.org names its HTML page (``ls-invocation.txt``), each the node's text as
  ``info`` shows it ("File: coreutils.info,  Node: ls invocation, …" then "10.1 'ls': List
  directory contents");
* ``copyright``: the Debian copyright files of 30 packages, kept as ``PACKAGE/copyright`` (one
  file name in every folder, most without a title; DEP-5 fields).

Records are read as ``installed_docs_routing.py`` reads them (:mod:`crossval.folder_routing`).
Printed per folder: each question's route where it differs from the one expected; the
documents with a title, the naming questions routed to their documents and the others routed.

    python benchmarks/checks/api_docs_routing.py [--doc /usr/share/doc]
        [--info /usr/share/info/coreutils.info.gz]
        [--rust-docs ~/.rustup/toolchains/TOOLCHAIN/share/doc/rust/html] [-v]

Needs Python's own ``pydoc``, the coreutils Info manual (Debian: coreutils, with its info
file), the packages' copyright files (Debian installs them) and Rust's docs (rustup's
rust-docs component, or Debian's rust-doc); it says which are missing and exits 2 without
them.
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.folder_routing import check, expecting

PYDOC_MODULES = (
    "json argparse logging pathlib shutil subprocess collections itertools functools datetime "
    "csv sqlite3 re textwrap heapq bisect hashlib hmac secrets random statistics tempfile "
    "zipfile tarfile gzip urllib.parse http.client smtplib email.message threading queue "
    "asyncio.tasks contextlib dataclasses enum typing uuid base64 pickle copy pprint difflib "
    "shlex glob fnmatch socket selectors"
).split()
PYDOC_QUESTIONS = (  # written 2026-12-05 before the folder was routed
    ("What does the json module say about the default argument of dumps?", "json.html"),
    ("In the argparse module, how does add_mutually_exclusive_group work?", "argparse.html"),
    ("What does shutil.copytree do with symlinks?", "shutil.html"),
    ("Which functions does the heapq module provide?", "heapq.html"),
    ("How does the bisect module's insort differ from bisect?", "bisect.html"),
    ("What does the secrets module recommend for generating tokens?", "secrets.html"),
    (
        "Compare the random and secrets modules for generating passwords.",
        ("random.html", "secrets.html"),
    ),
    ("How does urllib.parse split a URL into its parts?", "urllib.parse.html"),
    ("What does the pydoc page for http.client say about HTTPConnection?", "http.client.html"),
    ("Compare tarfile and zipfile for reading archives.", ("tarfile.html", "zipfile.html")),
    ("How is a frozen dataclass made?", None),
    ("How do I run a command and capture its output?", None),
    ("How can I parse a date string with a time zone?", None),
    ("What is the difference between a deque and a list?", None),
    ("How do I compute a SHA-256 digest of a file?", None),
    ("What is the capital of Australia?", None),
    ("Who painted the Mona Lisa?", None),
)
RUST_STD = (
    "collections/index.html collections/struct.BTreeMap.html collections/struct.BTreeSet.html "
    "collections/struct.BinaryHeap.html collections/struct.HashMap.html "
    "collections/struct.HashSet.html collections/struct.LinkedList.html "
    "collections/struct.TryReserveError.html collections/struct.VecDeque.html "
    "sync/index.html sync/struct.Mutex.html sync/struct.RwLock.html sync/struct.Arc.html "
    "sync/struct.Condvar.html sync/struct.Barrier.html sync/mpsc/index.html "
    "sync/mpsc/fn.channel.html fs/index.html fs/struct.File.html fs/struct.OpenOptions.html "
    "fs/struct.Metadata.html fs/fn.read_to_string.html fs/fn.create_dir_all.html "
    "string/index.html string/struct.String.html vec/index.html vec/struct.Vec.html "
    "rc/index.html rc/struct.Rc.html rc/struct.Weak.html cell/index.html "
    "cell/struct.RefCell.html cell/struct.Cell.html thread/index.html thread/fn.spawn.html "
    "thread/struct.JoinHandle.html thread/struct.Builder.html io/index.html "
    "io/trait.Read.html io/trait.Write.html io/struct.BufReader.html io/struct.BufWriter.html "
    "iter/index.html iter/trait.Iterator.html option/index.html option/enum.Option.html "
    "result/index.html result/enum.Result.html"
).split()
RUST_STD_QUESTIONS = (  # written 2026-12-05 before the folder was routed
    ("What does the HashMap page say about the default hasher?", "collections/struct.HashMap.html"),
    ("How does VecDeque grow its buffer?", "collections/struct.VecDeque.html"),
    ("What does the std::sync module documentation say about poisoning?", "sync/index.html"),
    (
        "Compare Mutex and RwLock on writer starvation.",
        ("sync/struct.Mutex.html", "sync/struct.RwLock.html"),
    ),
    ("What does the documentation of Rc say about cycles?", "rc/struct.Rc.html"),
    ("When does RefCell panic on borrow_mut?", "cell/struct.RefCell.html"),
    ("What errors can fs::read_to_string return?", "fs/fn.read_to_string.html"),
    ("Which options does OpenOptions offer for appending?", "fs/struct.OpenOptions.html"),
    (
        "What does the std::collections module say about when to use a BTreeMap?",
        "collections/index.html",
    ),
    ("How does thread::spawn handle a panic in the spawned thread?", "thread/fn.spawn.html"),
    (
        "What does the Iterator trait's documentation say about laziness?",
        "iter/trait.Iterator.html",
    ),
    ("How do I read a file line by line?", None),
    ("How can two threads share a counter safely?", None),
    ("What is the difference between a string slice and an owned string?", None),
    ("How do I sort a vector of floats?", None),
    ("Who discovered penicillin?", None),
    ("What is the tallest mountain in Africa?", None),
)
COREUTILS_QUESTIONS = (  # written 2026-12-05 before the folder was routed
    ("What does the ls invocation section say about --time-style?", "ls-invocation.txt"),
    ("According to the Block size section, how is POSIXLY_CORRECT handled?", "Block-size.txt"),
    ("What does the Common options section say about --help?", "Common-options.txt"),
    ("In the sort invocation node, how does -k select fields?", "sort-invocation.txt"),
    (
        "What does the coreutils manual's chapter on date input formats say about relative items?",
        "Date-input-formats.txt",
    ),
    (
        "Compare the cp invocation and mv invocation sections on --backup.",
        ("cp-invocation.txt", "mv-invocation.txt"),
    ),
    (
        "What does the Backup options section list as the values of VERSION_CONTROL?",
        "Backup-options.txt",
    ),
    ("How does the dd invocation node describe conv=sparse?", "dd-invocation.txt"),
    ("What does the section on Random sources say about --random-source?", "Random-sources.txt"),
    ("What does the chmod invocation section say about symbolic links?", "chmod-invocation.txt"),
    ("Which exit status does the test invocation page document?", "test-invocation.txt"),
    ("How do I list files sorted by modification time?", None),
    ("How can I split a large file into pieces of 100 MB?", None),
    ("Which option keeps file timestamps when copying?", None),
    ("How do I count the lines of a file?", None),
    ("What is the speed of light?", None),
    ("Who wrote Pride and Prejudice?", None),
)
COPYRIGHT_PACKAGES = (
    "apt bash bzip2 ca-certificates cmake-data coreutils curl dpkg findutils git gnupg grep "
    "gzip less libssl3 libxml2 make man-db nodejs openssl perl python3.11 sed sqlite3 tar "
    "valgrind vim-common wget xz-utils zlib1g"
).split()
COPYRIGHT_QUESTIONS = (  # written 2026-12-05 before the folder was routed
    ("Which licence does the curl copyright file give for the curl sources?", "curl/copyright"),
    ("Who holds the copyright of sqlite3 according to its copyright file?", "sqlite3/copyright"),
    ("What does the copyright file of bzip2 say about the licence?", "bzip2/copyright"),
    ("Under which licence is zlib distributed, per the zlib1g copyright file?", "zlib1g/copyright"),
    ("Which files of gnupg are under the LGPL according to its copyright file?", "gnupg/copyright"),
    (
        "Compare the licences in the gzip and tar copyright files.",
        ("gzip/copyright", "tar/copyright"),
    ),
    ("Where does the openssl copyright file say the source was obtained?", "openssl/copyright"),
    (
        "What does the Debian copyright file for valgrind list as the upstream contact?",
        "valgrind/copyright",
    ),
    ("Which packages here are under the GPL version 3 or later?", None),
    ("Who is the upstream author of the bourne again shell?", None),
    ("Which licence allows relicensing under a later version?", None),
    ("What is a public domain dedication?", None),
    ("When was the Eiffel Tower built?", None),
    ("What is the boiling point of water at sea level?", None),
)
_NODE = re.compile(r"File: [^,]+,\s+Node: ([^,\n]+)")


def pydoc_pages(folder: Path) -> list[str]:
    """Each module's page as ``python -m pydoc -w`` writes it into ``folder``; the file names."""
    for module in PYDOC_MODULES:
        subprocess.run(
            [sys.executable, "-m", "pydoc", "-w", module],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    return sorted(p.name for p in folder.glob("*.html"))


def info_nodes(info: Path, folder: Path) -> list[str]:
    """Each node of the Info manual ``info`` (gzipped) written into ``folder`` as
    ``NODE-NAME.txt`` (gnu.org's HTML page name: "ls invocation" → ``ls-invocation``)."""
    text = gzip.decompress(info.read_bytes()).decode("utf-8", errors="replace")
    files = []
    for node in (n.lstrip("\n") for n in text.split("\x1f")):
        found = _NODE.match(node)
        if found is None:
            continue
        name = re.sub(r"[^A-Za-z0-9_.+-]+", "-", found.group(1).strip()).strip("-") + ".txt"
        (folder / name).write_text(node, encoding="utf-8")
        files.append(name)
    return sorted(files)


def copy_pages(source: Path, pages: list[str], folder: Path) -> None:
    """Each of ``pages`` copied from ``source`` into ``folder`` at its path."""
    for page in pages:
        (folder / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / page, folder / page)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doc", type=Path, default=Path("/usr/share/doc"))
    parser.add_argument("--info", type=Path, default=Path("/usr/share/info/coreutils.info.gz"))
    rust_dirs = sorted(Path.home().glob(".rustup/toolchains/*/share/doc/rust/html"))
    parser.add_argument(
        "--rust-docs",
        type=Path,
        default=rust_dirs[0] if rust_dirs else Path("/usr/share/doc/rust-doc/html"),
    )
    parser.add_argument("-v", action="store_true", help="print every document's title")
    args = parser.parse_args()
    std = args.rust_docs / "std"
    missing = [] if args.info.is_file() else [str(args.info)]
    missing += [f"{std}/{p}" for p in RUST_STD if not (std / p).is_file()]
    copyrights = [f"{p}/copyright" for p in COPYRIGHT_PACKAGES]
    missing += [f"{args.doc}/{p}" for p in copyrights if not (args.doc / p).is_file()]
    if missing:
        print(f"missing: {', '.join(missing)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = pydoc_pages(folder)
        check("pydoc", folder, files, expecting(PYDOC_QUESTIONS), args.v, by_path=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        copy_pages(std, RUST_STD, folder)
        questions = expecting(RUST_STD_QUESTIONS)
        check("rustdoc", folder, list(RUST_STD), questions, args.v, by_path=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = info_nodes(args.info, folder)
        check("coreutils", folder, files, expecting(COREUTILS_QUESTIONS), args.v, by_path=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        copy_pages(args.doc, copyrights, folder)
        questions = expecting(COPYRIGHT_QUESTIONS)
        check("copyright", folder, copyrights, questions, args.v, by_path=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
