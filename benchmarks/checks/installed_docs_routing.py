"""Routing on documentation installed on the machine, kinds no DEV folder is (issue 45), without
a model: the titles the documents' openings give and which questions each folder's records route.

Twenty-two folders, each read as a user would save or load it:

* ``apt``: 22 Debian ``apt`` / ``dpkg`` manual pages and ``git``: 31 ``git`` pages, each rendered
  as ``MANWIDTH=80 man -l PAGE | col -bx`` into one ``NAME.SECTION.txt`` file a page; their
  questions (below) were written before any was routed, each naming the page it expects or none;
* ``pg-sql``: 44 of PostgreSQL's SQL command pages (section 7, "CREATE TABLE AS(7)": names of
  a few common words, "ALTER TABLE", "CREATE TABLE", "CREATE TABLE AS") and ``linux-man7``: 49
  of the Linux overview pages ("capabilities(7)", "feature_test_macros") and ``perl``: the
  35 pages of libwww-perl's modules and their neighbours (section 3pm: "LWP::UserAgent",
  "HTTP::Request::Common", "URI::Escape"), rendered the same way, with questions written
  before any was routed;
* ``nodejs-html``: Node.js's own HTML API pages (``/usr/share/doc/nodejs/api/*.html``, as
  published; the DEV Node.js folder holds the Markdown sources) with the DEV Node.js folder's
  questions and off-topic questions, each expecting the pages it names (two name a Markdown
  file, ``cluster.md``, and so expect a page no HTML file is named by);
* ``pip``: pip's own Sphinx sources as Debian installs them (reStructuredText and MyST Markdown,
  ``/usr/share/doc/python3-pip/html``, 41 pages: the command reference, topics, the reference's
  formats and the architecture notes; gzipped ones unpacked, index and redirect pages left out),
  with questions written before any was routed;
* ``libxslt-site``: libxslt's own web site as Debian installs it (``/usr/share/doc/libxslt1-dev/
  html/*.html``: "FAQ", "The xsltproc tool", "Library internals"), with questions written
  before any was routed;
* ``libxslt``: libxslt's gtk-doc API reference (``/usr/share/doc/libxslt1-dev/gtk-doc/html/
  libxslt``, one HTML page a header: "transform: the XSLT engine transformation part."), with
  questions written before any was routed;
* ``readmes``: the READMEs of 26 packages (``/usr/share/doc/PACKAGE/README``, ``README.md``,
  gzipped ones unpacked), each kept as ``PACKAGE/README`` as a monorepo keeps its packages',
  with questions written before any was routed; ``debian-changelogs``: the Debian changelogs
  of 23 packages (``/usr/share/doc/PACKAGE/changelog.Debian.gz``, unpacked, kept as
  ``PACKAGE/changelog.Debian``: a generic file named by its folder, "sqlite3", "gcc-12"),
  with questions written before any was routed; ``git-relnotes``: git's release notes, one
  text file a release (``/usr/share/doc/git/RelNotes``, 485 of them: "Git v2.39 Release
  Notes"), with questions written before the folder was routed (two of them then changed:
  they named releases newer than this git's, 2.40, 2.41 and 2.45);
* ``util-linux``: util-linux's documentation folder as Debian installs it
  (``/usr/share/doc/util-linux``: its plain-text notes, most untitled, "howto-debug.txt",
  "pg.txt", gzipped ones unpacked, ``README.Debian`` and its 27 release notes
  ``releases/v2.38-ReleaseNotes``, "Util-linux 2.38 Release Notes"), with questions written
  before the folder was routed;
* ``valgrind``: Valgrind's DocBook HTML manual (``/usr/share/doc/valgrind/html``, 40 pages:
  chapters numbered "7. Helgrind: a thread error detector", the FAQ, the release notes), with
  questions written before the folder was routed;
* ``npm-docs``: npm's own documentation as npm installs it (91 Markdown pages with front
  matter, ``/usr/lib/node_modules/npm/docs/content``: its commands, its configuration files'
  formats and its guides: "npm-install", "package.json"), with questions written before the
  folder was routed;
* ``nodejs-contributing``: Node.js's contributor and maintainer guides (52 Markdown pages,
  ``/usr/share/doc/nodejs/contributing``, its ``maintaining`` folder kept), with questions
  written before any was routed;
* ``node-changelogs``: Node.js's changelogs, one Markdown file a release line ("Node.js 18
  ChangeLog", ``/usr/share/doc/nodejs/changelogs``, gzipped ones unpacked), with questions
  written before any was routed;
* ``cmake-release``, ``cmake-policy``, ``cmake-command``: three sections of CMake's own
  reStructuredText help (``/usr/share/cmake-*/Help``): 26 release notes of one name but for
  the version ("CMake 3.7 Release Notes"), 143 policies titled by their number ("CMP0077")
  and 127 command pages titled by the command ("find_package"), with questions written before
  any was routed;
* ``rust-book`` and ``rust-errors``: the Rust book's chapters as rustup installs them (109
  mdBook HTML pages, redirect stubs left out: "What is Ownership? - The Rust Programming
  Language") and the compiler's error code pages (518, "E0382 - Error codes index"), with
  questions written before any was routed.

Titles and records are read as ``dev_folder_routing.py`` reads a folder's
(``crossval.dev_folders.folder_names``: the opening's first
:data:`~cage_core.expansion.documents.TITLE_CHARS` characters). Printed per folder: each
question's route where it differs from the one expected; the documents with a title, the
naming questions routed to their documents and the others routed.

    python benchmarks/checks/installed_docs_routing.py [--man /usr/share/man]
        [--node-html /usr/share/doc/nodejs/api] [--pip-docs /usr/share/doc/python3-pip/html]
        [--gtk-doc /usr/share/doc/libxslt1-dev/gtk-doc/html/libxslt] [--doc /usr/share/doc]
        [--cmake-help /usr/share/cmake-3.25/Help]
        [--rust-docs ~/.rustup/toolchains/TOOLCHAIN/share/doc/rust/html]
        [--npm-docs /usr/lib/node_modules/npm/docs/content] [-v]

Needs ``man`` and ``col`` (Debian: man-db, bsdextrautils), the pages, the Node.js docs
(Debian: nodejs-doc), pip's (Debian: python3-pip), libxslt's (Debian: libxslt1-dev), CMake's
(Debian: cmake-data), npm's (Debian: npm), Valgrind's (Debian: valgrind) and Rust's (rustup's
rust-docs component, or Debian's rust-doc); it says which are missing and exits 2 without
them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # crossval

from crossval.dev_folders import DATA
from crossval.folder_routing import check, expecting, stem

APT = (
    "man5/apt.conf.5 man5/apt_preferences.5 man5/sources.list.5 man8/apt-get.8 man8/apt-cache.8 "
    "man8/apt.8 man8/apt-config.8 man8/apt-key.8 man8/apt-mark.8 man8/apt-secure.8 "
    "man1/dpkg.1 man1/dpkg-query.1 man5/deb-control.5 man5/deb.5 man5/dpkg.cfg.5 "
    "man1/dpkg-deb.1 man1/dpkg-split.1 man8/apt-cdrom.8 man1/dpkg-divert.1 "
    "man1/dpkg-statoverride.1 man1/dpkg-trigger.1 man5/deb-triggers.5"
).split()
GIT = [
    *(
        f"man1/git-{c}.1"
        for c in (
            "add commit rebase merge reset checkout switch restore stash log diff branch tag "
            "fetch pull push remote clone init status cherry-pick revert bisect worktree"
        ).split()
    ),
    "man5/gitignore.5",
    "man5/gitattributes.5",
    "man5/gitmodules.5",
    "man7/gitrevisions.7",
    "man7/gitglossary.7",
    "man7/gitworkflows.7",
    "man7/gittutorial.7",
]
APT_QUESTIONS = (
    ("According to apt.conf(5), where does APT read its configuration fragments from?", "apt.conf"),
    ("What does the apt_preferences man page say about pin priorities?", "apt_preferences"),
    ("In sources.list(5), which options can be given in square brackets?", "sources.list"),
    ("How does apt-get(8) treat the --no-install-recommends option?", "apt-get"),
    ("What does the apt-cache manual say about the policy command?", "apt-cache"),
    ("Which fields does deb-control(5) list as mandatory?", "deb-control"),
    ("What is the dpkg-query format string syntax?", "dpkg-query"),
    ("How does dpkg-divert handle a file that is diverted twice?", "dpkg-divert"),
    ("What does the APT.CONF manual page say about the Dir section?", "apt.conf"),
    ("In the apt-secure manual, how are repository signatures checked?", "apt-secure"),
    ("What does the configuration file for APT say about comments?", "apt.conf"),
    ("Which file format does a binary package use?", None),
    ("How do I pin a package to a specific release?", None),
    ("What exit status does dpkg return on an error?", None),
    ("How can I hold a package so it is not upgraded?", None),
    ("Which commands download package lists from the repositories?", None),
)
GIT_QUESTIONS = (
    ("According to git-rebase(1), what does the --onto option do?", "git-rebase"),
    ("What does the gitignore documentation say about a trailing slash in a pattern?", "gitignore"),
    ("In the git stash manual, how do I stash untracked files?", "git-stash"),
    ("How does git-cherry-pick handle a merge commit?", "git-cherry-pick"),
    ("What does gitrevisions(7) say about the double-dot range notation?", "gitrevisions"),
    ("In the git worktree docs, how do I remove a linked working tree?", "git-worktree"),
    ("What does the git glossary say a detached HEAD is?", "gitglossary"),
    ("How do I undo the last commit but keep its changes?", None),
    ("Which command shows the differences between two branches?", None),
    ("How can I find the commit that introduced a bug?", None),
    ("What happens to untracked files when switching branches?", None),
    ("How do I push a new branch to a remote and set its upstream?", None),
)
PG_SQL = [
    f"man7/{page}.7"
    for page in (
        "CREATE_TABLE CREATE_TABLE_AS CREATE_FOREIGN_TABLE ALTER_TABLE DROP_TABLE "
        "CREATE_INDEX ALTER_INDEX DROP_INDEX SELECT SELECT_INTO INSERT UPDATE DELETE VACUUM "
        "ANALYZE EXPLAIN COPY GRANT REVOKE BEGIN COMMIT ROLLBACK SAVEPOINT CREATE_VIEW "
        "CREATE_MATERIALIZED_VIEW REFRESH_MATERIALIZED_VIEW TRUNCATE CLUSTER REINDEX LOCK "
        "CREATE_TRIGGER CREATE_FUNCTION CREATE_ROLE ALTER_ROLE SET SHOW LISTEN NOTIFY MERGE "
        "CREATE_SEQUENCE CREATE_EXTENSION PREPARE EXECUTE DEALLOCATE"
    ).split()
]
LINUX_MAN7 = [
    f"man7/{page}.7"
    for page in (
        "capabilities cgroups namespaces signal socket tcp udp ip ipv6 epoll inotify pipe "
        "fifo unix netlink packet pthreads sem_overview shm_overview mq_overview futex "
        "credentials user_namespaces pid_namespaces mount_namespaces network_namespaces "
        "cgroup_namespaces path_resolution symlink time vdso environ locale utf-8 unicode "
        "ascii hier man-pages standards feature_test_macros signal-safety fanotify keyrings "
        "sched raw vsock uri glob regex"
    ).split()
]
PG_SQL_QUESTIONS = (
    ("What does the CREATE TABLE AS page say about WITH NO DATA?", "CREATE_TABLE_AS"),
    ("According to the CREATE TABLE page, what does a UNLOGGED table give up?", "CREATE_TABLE"),
    ("Which lock level does ALTER TABLE take when it adds a column?", "ALTER_TABLE"),
    ("how does vacuum full differ from plain vacuum?", "VACUUM"),
    (
        "What does REFRESH MATERIALIZED VIEW CONCURRENTLY require of the view?",
        "REFRESH_MATERIALIZED_VIEW",
    ),
    ("In the COPY reference, which formats can the data be written in?", "COPY"),
    ("What does EXPLAIN ANALYZE do to the statement it explains?", "EXPLAIN"),
    ("Compare SELECT INTO and CREATE TABLE AS.", ("SELECT_INTO", "CREATE_TABLE_AS")),
    ("What does the savepoint page say about rolling back to a savepoint?", "SAVEPOINT"),
    ("Which options does CREATE INDEX CONCURRENTLY have, and what does it cost?", "CREATE_INDEX"),
    ("How does the MERGE command decide between its WHEN MATCHED clauses?", "MERGE"),
    ("How can a table be emptied quickly without scanning it?", None),
    ("Which statement collects statistics about the contents of tables for the planner?", None),
    ("How do I give a user permission to read a table?", None),
    ("How can two sessions send each other messages through the database?", None),
    ("What isolation level do transactions get by default?", None),
)
LINUX_MAN7_QUESTIONS = (
    ("What does capabilities(7) say about the CAP_SYS_ADMIN capability?", "capabilities"),
    (
        "According to the epoll man page, what "
        "is the difference between edge-triggered and level-triggered?",
        "epoll",
    ),
    ("What does the user_namespaces page say about mapping user IDs?", "user_namespaces"),
    ("In signal-safety(7), which functions are async-signal-safe?", "signal-safety"),
    ("How does the pipe(7) page describe the capacity of a pipe?", "pipe"),
    ("What does the inotify overview say about the limits in /proc/sys/fs/inotify?", "inotify"),
    ("What are the mount namespaces' propagation types?", "mount_namespaces"),
    (
        "Compare cgroups(7) and cgroup_namespaces(7) on how a process sees its cgroup.",
        ("cgroups", "cgroup_namespaces"),
    ),
    ("What does the feature_test_macros page say about _GNU_SOURCE?", "feature_test_macros"),
    ("What does the TCP man page say about TCP_NODELAY?", "tcp"),
    ("How does the futex overview describe the fast path in user space?", "futex"),
    ("Which socket option sets the size of the receive buffer?", None),
    ("How does a process become a member of a new PID namespace?", None),
    ("What happens when a signal arrives during a blocking system call?", None),
    ("Which file describes the standard directory hierarchy?", None),
    ("How do I reverse a linked list in Python?", None),
)
PERL = [
    f"man3/{module}.3pm"
    for module in (
        "LWP LWP::UserAgent LWP::Simple LWP::Protocol LWP::RobotUA LWP::ConnCache "
        "LWP::MediaTypes HTTP::Request HTTP::Response HTTP::Headers HTTP::Message "
        "HTTP::Cookies HTTP::Status HTTP::Date HTTP::Daemon HTTP::Request::Common URI "
        "URI::Escape URI::Split URI::URL HTML::Parser HTML::TreeBuilder HTML::Element "
        "HTML::Entities HTML::Form HTML::TokeParser HTML::LinkExtor HTML::HeadParser "
        "lwpcook lwptut Net::HTTP WWW::RobotRules IO::Socket::SSL Try::Tiny JSON"
    ).split()
]
PERL_QUESTIONS = (
    ("What does LWP::UserAgent's timeout method set?", "LWP::UserAgent"),
    (
        "How does HTTP::Request::Common build a POST request with form fields?",
        "HTTP::Request::Common",
    ),
    (
        "In the URI::Escape documentation, which characters does uri_escape leave alone by "
        "default?",
        "URI::Escape",
    ),
    ("What does HTML::Entities decode_entities do with unknown entities?", "HTML::Entities"),
    ("According to the lwpcook page, how do I mirror a document?", "lwpcook"),
    ("What does the HTTP::Status module say about is_success?", "HTTP::Status"),
    ("How does LWP::Simple's getstore report failure?", "LWP::Simple"),
    ("What does Try::Tiny say about the value of $@ inside catch?", "Try::Tiny"),
    (
        "Compare HTML::TokeParser and HTML::Parser on how tokens are delivered.",
        ("HTML::TokeParser", "HTML::Parser"),
    ),
    ("What does the IO::Socket::SSL documentation say about SSL_verify_mode?", "IO::Socket::SSL"),
    ("How does the HTTP::Cookies jar decide whether to save session cookies?", "HTTP::Cookies"),
    ("How do I send a request through a proxy?", None),
    ("How can I parse a date string from an HTTP header into a time value?", None),
    ("Which method follows redirects automatically?", None),
    ("How do I extract all links from an HTML document?", None),
    ("What is the capital of Australia?", None),
)
FOLDERS = {
    "apt": (APT, APT_QUESTIONS),
    "git": (GIT, GIT_QUESTIONS),
    "pg-sql": (PG_SQL, PG_SQL_QUESTIONS),
    "linux-man7": (LINUX_MAN7, LINUX_MAN7_QUESTIONS),
    "perl": (PERL, PERL_QUESTIONS),
}
PIP = [
    *(
        f"cli/pip{c}.rst"
        for c in (
            " _cache _check _config _debug _download _freeze _hash _inspect _install _list "
            "_search _show _uninstall _wheel"
        ).split(" ")
    ),
    *(
        f"development/architecture/{p}.rst"
        for p in (
            "anatomy command-line-interface configuration-files overview package-finding "
            "upgrade-options"
        ).split()
    ),
    "getting-started.md",
    "installation.md",
    "user_guide.rst",
    "reference/build-system/pyproject-toml.md",
    "reference/build-system/setup-py.md",
    *(
        f"reference/{p}.md"
        for p in (
            "inspect-report installation-report requirement-specifiers requirements-file-format"
        ).split()
    ),
    *(
        f"topics/{p}.md"
        for p in (
            "authentication caching configuration dependency-resolution https-certificates "
            "local-project-installs more-dependency-resolution python-option repeatable-installs "
            "secure-installs vcs-support"
        ).split()
    ),
]
PIP_QUESTIONS = (
    ("What does the pip install reference say about the --no-deps option?", "cli/pip_install.rst"),
    ("In the caching topic, how do I disable the HTTP cache?", "topics/caching.md"),
    (
        "What does the requirements file format page say about line continuations?",
        "reference/requirements-file-format.md",
    ),
    (
        "According to pip freeze, which packages are left out of the output by default?",
        "cli/pip_freeze.rst",
    ),
    (
        "What does the repository anatomy page say about the tests directory?",
        "development/architecture/anatomy.rst",
    ),
    (
        "How does the More on Dependency Resolution page explain the order candidates are "
        "tried in?",
        "topics/more-dependency-resolution.md",
    ),
    (
        "What does the pyproject.toml reference say about the build-system table?",
        "reference/build-system/pyproject-toml.md",
    ),
    (
        "In the VCS Support docs, which URL schemes does pip accept for git?",
        "topics/vcs-support.md",
    ),
    (
        "Which fields does the pip inspect JSON output specification describe?",
        "reference/inspect-report.md",
    ),
    (
        "How does the installation report describe the download_info field?",
        "reference/installation-report.md",
    ),
    (
        "What does the secure installs topic recommend about hash-checking mode?",
        "topics/secure-installs.md",
    ),
    ("In pip_wheel.rst, how are build dependencies handled?", "cli/pip_wheel.rst"),
    ("What does the getting started guide show for installing a package?", "getting-started.md"),
    (
        "In the HTTPS certificates topic, how does pip use the system certificate store?",
        "topics/https-certificates.md",
    ),
    (
        "According to the Configuration File Handling page, in which order are files read?",
        "development/architecture/configuration-files.rst",
    ),
    ("How do I install a package from a local directory in editable mode?", None),
    ("Why does pip refuse to install into the system Python on some distributions?", None),
    ("How can I make an install reproducible across machines?", None),
    ("What happens when two packages require conflicting versions of a dependency?", None),
    ("How do I pass credentials for a private package index?", None),
    ("Where are wheels built from source distributions stored between runs?", None),
    ("How do I uninstall a package and all its dependencies?", None),
    ("Which environment variables override configuration options?", None),
    ("Who won the 1998 football World Cup?", None),
    ("How long should sourdough bread be proofed?", None),
)


def render(man: Path, pages: list[str], folder: Path) -> list[str]:
    """Each page rendered into ``folder`` as ``NAME.SECTION.txt``; the file names."""
    env = {**os.environ, "MANWIDTH": "80"}
    files = []
    for page in pages:
        source = man / f"{page}.gz"
        shown = subprocess.run(
            ["man", "-l", str(source)], capture_output=True, env=env, check=True
        ).stdout
        text = subprocess.run(["col", "-bx"], input=shown, capture_output=True, check=True)
        name = f"{Path(page).name}.txt"
        (folder / name).write_bytes(text.stdout)
        files.append(name)
    return files


GTK_DOC_QUESTIONS = (
    (
        "What does the transform module say about xsltApplyStylesheetUser?",
        "libxslt-transform.html",
    ),
    ("In the xsltutils interface, how is a message printed?", "libxslt-xsltutils.html"),
    ("Which functions does the security framework provide?", "libxslt-security.html"),
    ("What does libxslt-keys.html describe?", "libxslt-keys.html"),
    (
        "In the namespaces interface, how are namespace aliases resolved?",
        "libxslt-namespaces.html",
    ),
    (
        "What does the xsltInternals header define for the stylesheet structure?",
        "libxslt-xsltInternals.html",
    ),
    (
        "How does the XSLT attribute handling interface apply attribute sets?",
        "libxslt-attributes.html",
    ),
    ("How do I register an extension function?", None),
    ("Which function frees a compiled stylesheet?", None),
    ("How are XSLT variables looked up?", None),
    ("What is the default maximum recursion depth for templates?", None),
)


READMES = (
    "apt bash bc coreutils cscope e2fsprogs ed fakeroot findutils gdb gettext git gnupg grep "
    "gzip jq make mawk patch sed tmux valgrind wget zstd openssl systemd"
).split()
DEBIAN_CHANGELOGS = (
    "curl openssl zlib1g git bash coreutils tar gzip sqlite3 python3.11 nodejs cmake libxml2 "
    "libxslt1.1 perl openssh-client wget sed grep findutils make gcc-12 tzdata"
).split()
DEBIAN_CHANGELOG_QUESTIONS = (
    (
        "What does the curl changelog say about the memory leak in http_chunks?",
        "curl/changelog.Debian",
    ),
    (
        "Which upload of openssl fixed CVE-2023-5678 according to its Debian changelog?",
        "openssl/changelog.Debian",
    ),
    ("In the tzdata changelog, what changed for Greenland?", "tzdata/changelog.Debian"),
    ("What does the git package's changelog say about CVE-2024-32002?", "git/changelog.Debian"),
    ("When was bash 5.2 first uploaded, according to the bash changelog?", "bash/changelog.Debian"),
    (
        "Compare the gzip and tar changelogs on security fixes.",
        ("gzip/changelog.Debian", "tar/changelog.Debian"),
    ),
    ("Which sqlite3 upload fixed CVE-2022-46908?", "sqlite3/changelog.Debian"),
    (
        "What does the changelog of python3.11 say about the tarfile module?",
        "python3.11/changelog.Debian",
    ),
    (
        "In the libxml2 changelog, which CVEs were fixed in the last upload?",
        "libxml2/changelog.Debian",
    ),
    ("What did the sed changelog record for version 4.9?", "sed/changelog.Debian"),
    ("Which package fixed a buffer overflow in its last security upload?", None),
    ("Who uploaded the most recent security fixes?", None),
    ("Which changelogs mention bookworm-security?", None),
    ("What is a Debian changelog's urgency field?", None),
    ("How do I bake sourdough bread?", None),
)
UTIL_LINUX_QUESTIONS = (
    (
        "What did the util-linux 2.38 release notes say about translated man pages?",
        "releases/v2.38-ReleaseNotes",
    ),
    (
        "According to the v2.34 release notes, which new commands were added?",
        "releases/v2.34-ReleaseNotes",
    ),
    ("What changed in util-linux 2.38.1?", "releases/v2.38.1-ReleaseNotes"),
    (
        "Compare the 2.20 and 2.21 release notes on ddate.",
        ("releases/v2.20-ReleaseNotes", "releases/v2.21-ReleaseNotes"),
    ),
    ("What does howto-debug.txt say about libtool wrapper scripts?", "howto-debug.txt"),
    ("According to the debugging howto, how do I run a program under gdb?", "howto-debug.txt"),
    (
        "What does the release schedule say about how often the minor version is incremented?",
        "release-schedule.txt",
    ),
    ("Which options of column are listed in deprecated.txt?", "deprecated.txt"),
    ("Which specifications does the README for pg say it conforms to?", "pg.txt"),
    ("How does hwclock.txt describe the Real Time Clock?", "hwclock.txt"),
    (
        "What does the util-linux build system document say about Makemodule.am files?",
        "howto-build-sys.txt",
    ),
    ("In the regression tests howto, how is a single test run?", "howto-tests.txt"),
    (
        "What do the notes on using agetty with modems recommend for initializing the modem?",
        "modems-with-agetty.txt",
    ),
    (
        "What does PAM-configuration.txt say about distribution-specific files?",
        "PAM-configuration.txt",
    ),
    ("How do I mount a filesystem read-only?", None),
    ("Which program sets the hardware clock?", None),
    ("How are man pages formatted in the project?", None),
    ("What is the version numbering scheme?", None),
    ("Which utility is the System V equivalent of more?", None),
    ("How do I report a bug?", None),
)
"""Questions about util-linux's own documentation folder, written before it was routed."""
GIT_RELNOTES_QUESTIONS = (
    ("What did the Git 2.39 release notes say about git grep?", "2.39.0.txt"),
    ("Which security fixes are in Git v2.38.1?", "2.38.1.txt"),
    (
        "According to the 1.7.0 release notes, what changed about git push to the current branch?",
        "1.7.0.txt",
    ),
    ("What does the Git 2.0 release notes say about the default of push.default?", "2.0.0.txt"),
    ("In git 2.23, which new commands were introduced?", "2.23.0.txt"),
    ("What did Git v2.35 change in the reftable backend?", "2.35.0.txt"),
    ("Compare the 2.36 and 2.37 release notes on git cat-file.", ("2.36.0.txt", "2.37.0.txt")),
    ("What do the release notes for Git 1.8.0 list as backward compatibility notes?", "1.8.0.txt"),
    ("Which Git release introduced git switch and git restore?", None),
    ("When did the default branch name become configurable?", None),
    ("What are the release notes of a Git maintenance release usually about?", None),
    ("How do I rebase interactively?", None),
    ("Which version of Python is required to build the docs?", None),
)
NPM_QUESTIONS = (
    (
        "What does npm ci do differently from npm install?",
        ("commands/npm-ci.md", "commands/npm-install.md"),
    ),
    (
        "According to the npm-audit page, which exit code does audit use when vulnerabilities "
        "are found?",
        "commands/npm-audit.md",
    ),
    (
        "What does the package.json documentation say about the bin field?",
        "configuring-npm/package-json.md",
    ),
    ("In the npmrc docs, where are the per-user config files?", "configuring-npm/npmrc.md"),
    ("How does npm dedupe simplify the tree?", "commands/npm-dedupe.md"),
    (
        "What does the workspaces page say about running a command in every workspace?",
        "using-npm/workspaces.md",
    ),
    (
        "Which lifecycle scripts does the scripts documentation list for npm publish?",
        "using-npm/scripts.md",
    ),
    (
        "What does npm-shrinkwrap.json contain, according to its page?",
        "configuring-npm/npm-shrinkwrap-json.md",
    ),
    ("What does the npm version command do to the git repository?", "commands/npm-version.md"),
    (
        "In the package-lock.json docs, what is lockfileVersion?",
        "configuring-npm/package-lock-json.md",
    ),
    ("How do I publish a scoped package publicly?", None),
    ("Which command lists outdated packages?", None),
    ("How can I see why a package is installed?", None),
    ("Where does npm store its cache?", None),
    ("What is the speed of light in a vacuum?", None),
)
VALGRIND_QUESTIONS = (
    ("What does the Memcheck manual say about uninitialised values?", "mc-manual.html"),
    ("How does Helgrind detect lock ordering problems?", "hg-manual.html"),
    ("In the Cachegrind chapter, how is cache simulation configured?", "cg-manual.html"),
    ("What does the Massif manual say about --pages-as-heap?", "ms-manual.html"),
    ("According to the Valgrind FAQ, why does Memcheck report errors in libc?", "faq.html"),
    ("What does the quick start guide say about compiling with -g?", "quick-start.html"),
    ("Compare DRD and Helgrind on data race detection.", ("drd-manual.html", "hg-manual.html")),
    ("What does the DHAT manual say about access counts?", "dh-manual.html"),
    ("In the Callgrind format specification, how are cost lines written?", "cl-format.html"),
    ("Which Valgrind tool profiles heap memory usage over time?", None),
    ("How do I suppress errors from a third-party library?", None),
    ("What does --leak-check=full report?", None),
    ("Which platforms does Valgrind support?", None),
    ("What is the chemical symbol for gold?", None),
)
README_QUESTIONS = (
    ("What does the jq README say about installing from source?", "jq"),
    ("According to the tmux README, which libraries does tmux depend on?", "tmux"),
    ("In zstd's README, how fast is decompression?", "zstd"),
    ("What does the README for GNU sed say about reporting bugs?", "sed"),
    ("Which platforms does the valgrind README list as supported?", "valgrind"),
    ("How does the wget README describe recursive downloads?", "wget"),
    ("What does the openssl README say about the FIPS provider?", "openssl"),
    ("In findutils/README, where should bugs be reported?", "findutils"),
    ("What does the GNU make README say about building on Windows?", "make"),
    ("According to the mawk README, how does mawk differ from other awks?", "mawk"),
    ("What does the systemd README list as build requirements?", "systemd"),
    ("In the patch README, how is the program installed?", "patch"),
    ("How do I compress a file with the best ratio?", None),
    ("Which tool searches files for a regular expression?", None),
    ("How do I report a security vulnerability?", None),
    ("What license is the software distributed under?", None),
    ("How do I build the program from a git checkout?", None),
    ("Who won the 1998 football World Cup?", None),
)
README_NAMES = ("README", "README.md")


CONTRIBUTING_QUESTIONS = (
    (
        "What does the collaborator guide say about landing pull requests?",
        "collaborator-guide.md",
    ),
    (
        "According to the security release process, when are pre-announcements sent?",
        "security-release-process.md",
    ),
    ("In the C++ style guide, how should pointers be declared?", "cpp-style-guide.md"),
    ("What does primordials.md say about performance?", "primordials.md"),
    ("How does the commit queue doc describe the request-ci label?", "commit-queue.md"),
    (
        "What does the guide to maintaining OpenSSL say about updating the bundled version?",
        "maintaining/maintaining-openssl.md",
    ),
    ("According to the Writing tests guide, where do test fixtures go?", "writing-tests.md"),
    (
        "In the backporting guide, how is a backport PR labelled?",
        "backporting-to-release-lines.md",
    ),
    ("What does the offboarding doc list as the steps?", "offboarding.md"),
    ("What does the code of conduct say about enforcement?", "code-of-conduct.md"),
    ("How do I build Node.js faster on my machine?", None),
    ("Who can approve a pull request?", None),
    ("How are security vulnerabilities reported?", None),
    ("What is the minimum wait time before a pull request lands?", None),
    ("Which V8 options control garbage collection?", None),
    ("Who won the 1998 football World Cup?", None),
)


SITE_QUESTIONS = (
    ("What does the libxslt FAQ say about memory leaks?", "FAQ.html"),
    ("According to the xsltproc page, which option disables network access?", "xsltproc.html"),
    (
        "How does the Library internals page describe the processing of templates?",
        "internals.html",
    ),
    ("What does the Writing extensions page say about registering a module?", "extensions.html"),
    ("In the Python and bindings page, how is a stylesheet applied?", "python.html"),
    ("What does the DocBook page say about XSLT stylesheets?", "docbook.html"),
    ("How do I report a bug in libxslt?", None),
    ("Which version of libxslt is the latest?", None),
    ("How do I compile libxslt on Windows?", None),
    ("Who won the 1998 football World Cup?", None),
)


CMAKE = {  # folder: the section of CMake's Help it is, its pages
    "cmake-release": ("release", "[0-9]*.rst"),
    "cmake-policy": ("policy", "CMP*.rst"),
    "cmake-command": ("command", "*.rst"),
}
CMAKE_QUESTIONS: dict[str, tuple[tuple[str, str | tuple[str, ...] | None], ...]] = {
    "cmake-release": (
        ("What did the CMake 3.13 release notes say about the -S and -B options?", "3.13.rst"),
        ("Which new loop command do the 3.2 release notes announce?", "3.2.rst"),
        (
            "According to the CMake 3.20 release notes, which C++ standard can CXX_STANDARD now "
            "select?",
            "3.20.rst",
        ),
        ("What did CMake 3.0 change about the format of its documentation?", "3.0.rst"),
        (
            "In the release notes for 3.25, which cmake-presets schema version is introduced?",
            "3.25.rst",
        ),
        ("What do the CMake 3.7 Release Notes say about cross compiling for Android?", "3.7.rst"),
        ("Which Visual Studio generator was added in CMake 3.21?", "3.21.rst"),
        (
            "What changed in FetchContent between CMake 3.11 and CMake 3.14?",
            ("3.11.rst", "3.14.rst"),
        ),
        ("Which release added the Visual Studio 17 2022 generator?", None),
        (
            "When did CMake start supporting Android cross compiling with simple toolchain files?",
            None,
        ),
        ("How do presets specify build and test presets?", None),
        ("What does the FetchContent module do?", None),
        ("Which compilers learned C++23 support?", None),
        ("Who won the 1998 football World Cup?", None),
    ),
    "cmake-policy": (
        ("What does CMP0077 change about the option command?", "CMP0077.rst"),
        (
            "Under policy CMP0048, what does the project command do with VERSION variables?",
            "CMP0048.rst",
        ),
        ("what is the OLD behavior of policy cmp0011?", "CMP0011.rst"),
        ("Which CMake version introduced CMP0091, and what does it abstract?", "CMP0091.rst"),
        ("How does policy CMP0135 treat the timestamps of extracted archives?", "CMP0135.rst"),
        ("What compiler id does CMP0025 give Apple Clang?", "CMP0025.rst"),
        (
            "Compare CMP0054 and CMP0012 on how if() reads its arguments.",
            ("CMP0012.rst", "CMP0054.rst"),
        ),
        ("Which policy controls how MSVC runtime library flags are selected?", None),
        ("What does the OLD behavior of a policy mean?", None),
        ("How do included scripts push and pop policy settings?", None),
        ("Which policy makes the option command honor normal variables?", None),
        ("Who won the 1998 football World Cup?", None),
    ),
    "cmake-command": (
        (
            "What does the add_custom_command documentation say about BYPRODUCTS?",
            "add_custom_command.rst",
        ),
        ("How does target_link_libraries treat the PRIVATE keyword?", "target_link_libraries.rst"),
        (
            "In the cmake_minimum_required page, what does the ...<max> syntax do?",
            "cmake_minimum_required.rst",
        ),
        (
            "What does the option command do when a normal variable of the same name exists?",
            "option.rst",
        ),
        ("Which signatures does the file() command's GLOB_RECURSE take?", "file.rst"),
        ("What arguments does find_package accept in its config mode?", "find_package.rst"),
        ("How is the execute_process command's RESULT_VARIABLE set?", "execute_process.rst"),
        ("How do I add an executable target?", None),
        ("How do I link a library to a target?", None),
        ("Which command sets a variable in the parent scope?", None),
        ("How can a build run a custom step after linking?", None),
        ("Who won the 1998 football World Cup?", None),
    ),
}


RUST_QUESTIONS: dict[str, tuple[tuple[str, str | tuple[str, ...] | None], ...]] = {
    "rust-book": (
        (
            "What does the Understanding Ownership chapter say about the stack and the heap?",
            "ch04-00-understanding-ownership.html",
        ),
        (
            "In the references and borrowing section, how many mutable references can exist at "
            "once?",
            "ch04-02-references-and-borrowing.html",
        ),
        ("According to the slice type page, what is a string slice?", "ch04-03-slices.html"),
        (
            "What does the chapter on Fearless Concurrency say about data races?",
            "ch16-00-concurrency.html",
        ),
        (
            "In the Cargo Workspaces section, how do crates share a Cargo.lock?",
            "ch14-03-cargo-workspaces.html",
        ),
        (
            "What does the guessing game tutorial use to generate a random number?",
            "ch02-00-guessing-game-tutorial.html",
        ),
        ("How does the hello cargo page create a new project?", "ch01-03-hello-cargo.html"),
        (
            "What does the Rc<T> page say about reference counting across threads?",
            "ch15-04-rc.html",
        ),
        (
            "In the Smart Pointers chapter, which traits make a struct a smart pointer?",
            "ch15-00-smart-pointers.html",
        ),
        (
            "What does the book's Unsafe Rust section list as unsafe superpowers?",
            "ch20-01-unsafe-rust.html",
        ),
        (
            "What does the installation page say about rustup on Windows?",
            "ch01-01-installation.html",
        ),
        (
            "Compare the Closures page and the Iterators page on capturing the environment.",
            ("ch13-01-closures.html", "ch13-02-iterators.html"),
        ),
        ("How do I declare a mutable variable?", None),
        ("What is the difference between a String and a &str?", None),
        ("How does Rust prevent data races at compile time?", None),
        ("How do I run only the tests whose names match a filter?", None),
        ("Who won the 1998 football World Cup?", None),
    ),
    "rust-errors": (
        ("What does error E0382 mean?", "E0382.html"),
        ("How do I fix rustc error E0499?", "E0499.html"),
        ("what causes e0308?", "E0308.html"),
        ("Compare E0502 and E0499.", ("E0499.html", "E0502.html")),
        ("In the E0277 page, which trait bound is missing?", "E0277.html"),
        ("What does the compiler mean by error code E0106?", "E0106.html"),
        ("Why can't I borrow a value mutably twice?", None),
        ("What does 'use of moved value' mean?", None),
        ("How do I add a lifetime to a struct field?", None),
        ("Who won the 1998 football World Cup?", None),
    ),
}


CHANGELOG_QUESTIONS = (
    ("What does the Node.js 18 changelog list for the 18.15.0 release?", "CHANGELOG_V18.md"),
    ("In the v20 changelog, which release is the first LTS?", "CHANGELOG_V20.md"),
    ("What changed in Node.js 12 according to its changelog?", "CHANGELOG_V12.md"),
    (
        "Compare the Node 4 and Node 6 changelogs on npm versions.",
        ("CHANGELOG_V4.md", "CHANGELOG_V6.md"),
    ),
    ("What does the io.js changelog say about the 3.0.0 release?", "CHANGELOG_IOJS.md"),
    ("What does the 0.12 changelog say about the first release?", "CHANGELOG_V012.md"),
    ("Which Node.js release first shipped npm 7?", None),
    ("When did Node.js drop support for Windows XP?", None),
    ("What is an LTS release?", None),
    ("Who won the 1998 football World Cup?", None),
)


def readme(doc: Path, package: str) -> Path | None:
    """The package's README in ``doc`` (plain or gzipped), or ``None``."""
    found = [doc / package / f"{n}{z}" for n in README_NAMES for z in ("", ".gz")]
    return next((f for f in found if f.is_file()), None)


def unpack(docs: Path, pages: list[str], folder: Path) -> None:
    """Each of ``pages`` copied from ``docs`` into ``folder`` at its path, unpacked where
    Debian gzipped it (``caching.md.gz``)."""
    for page in pages:
        source, target = docs / page, folder / page
        target.parent.mkdir(parents=True, exist_ok=True)
        packed = source.with_name(source.name + ".gz")
        target.write_bytes(
            gzip.decompress(packed.read_bytes()) if packed.is_file() else source.read_bytes()
        )


def node_questions() -> list[tuple[str, tuple[str, ...]]]:
    """The DEV Node.js folder's questions and off-topic ones, each with the pages it names."""
    spec = json.loads((DATA / "nodejs_api_docs.json").read_text(encoding="utf-8"))
    asked = [*spec["questions"], *spec.get("off_topic", [])]
    return [(q["question"], tuple(sorted(stem(n) for n in q.get("names", [])))) for q in asked]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--man", type=Path, default=Path("/usr/share/man"))
    parser.add_argument("--node-html", type=Path, default=Path("/usr/share/doc/nodejs/api"))
    parser.add_argument("--pip-docs", type=Path, default=Path("/usr/share/doc/python3-pip/html"))
    parser.add_argument(
        "--gtk-doc", type=Path, default=Path("/usr/share/doc/libxslt1-dev/gtk-doc/html/libxslt")
    )
    parser.add_argument("--doc", type=Path, default=Path("/usr/share/doc"))
    rust_dirs = sorted(Path.home().glob(".rustup/toolchains/*/share/doc/rust/html"))
    parser.add_argument(
        "--rust-docs",
        type=Path,
        default=rust_dirs[0] if rust_dirs else Path("/usr/share/doc/rust-doc/html"),
    )
    help_dirs = sorted(Path("/usr/share").glob("cmake-*/Help"))
    parser.add_argument(
        "--cmake-help", type=Path, default=help_dirs[-1] if help_dirs else Path("/usr/share/cmake")
    )
    parser.add_argument(
        "--npm-docs", type=Path, default=Path("/usr/lib/node_modules/npm/docs/content")
    )
    parser.add_argument("-v", action="store_true", help="print every document's title")
    args = parser.parse_args()
    missing = [tool for tool in ("man", "col") if shutil.which(tool) is None]
    pages = [p for pages, _ in FOLDERS.values() for p in pages]
    missing += [p for p in pages if not (args.man / f"{p}.gz").is_file()]
    node = sorted(p.name for p in args.node_html.glob("*.html"))
    missing += [] if node else [f"{args.node_html}/*.html"]
    missing += [
        page
        for page in PIP
        if not any((args.pip_docs / f"{page}{packed}").is_file() for packed in ("", ".gz"))
    ]
    gtk_doc = sorted(p.name for p in args.gtk_doc.glob("libxslt-*.html"))
    site_dir = args.doc / "libxslt1-dev" / "html"
    site = sorted(p.name for p in site_dir.glob("*.html"))
    missing += [] if site else [f"{site_dir}/*.html"]
    missing += [] if gtk_doc else [f"{args.gtk_doc}/libxslt-*.html"]
    readmes = {p: readme(args.doc, p) for p in READMES}
    missing += [f"{args.doc}/{p}/README" for p, found in readmes.items() if found is None]
    linux_found = (args.doc / "util-linux" / "howto-debug.txt").is_file()
    missing += [] if linux_found else [f"{args.doc}/util-linux/howto-debug.txt"]
    vg_found = (args.doc / "valgrind" / "html" / "hg-manual.html").is_file()
    missing += [] if vg_found else [f"{args.doc}/valgrind/html/hg-manual.html"]
    npm_found = (args.npm_docs / "commands" / "npm-ci.md").is_file()
    missing += [] if npm_found else [f"{args.npm_docs}/commands/npm-ci.md"]
    missing += (
        []
        if (args.doc / "git" / "RelNotes" / "2.39.0.txt").is_file()
        else [f"{args.doc}/git/RelNotes/2.39.0.txt"]
    )
    missing += [
        f"{args.doc}/{p}/changelog.Debian.gz"
        for p in DEBIAN_CHANGELOGS
        if not (args.doc / p / "changelog.Debian.gz").is_file()
    ]
    logs = args.doc / "nodejs" / "changelogs"
    changelogs = sorted(p.name.removesuffix(".gz") for p in logs.glob("CHANGELOG_*.md*"))
    missing += [] if changelogs else [f"{logs}/CHANGELOG_*.md"]
    guides = args.doc / "nodejs" / "contributing"
    contributing = sorted(str(p.relative_to(guides)) for p in guides.rglob("*.md"))
    missing += [] if contributing else [f"{guides}/*.md"]
    cmake = {
        name: (
            args.cmake_help / section,
            sorted(p.name for p in (args.cmake_help / section).glob(g)),
        )
        for name, (section, g) in CMAKE.items()
    }
    missing += [f"{d}/{CMAKE[n][1]}" for n, (d, pages) in cmake.items() if not pages]
    book, errors = args.rust_docs / "book", args.rust_docs / "error_codes"
    chapters = [p.name for p in sorted(book.glob("*.html")) if p.name.startswith(("ch", "app"))]
    chapters = [c for c in chapters if not _redirect(book / c)]
    codes = sorted(p.name for p in errors.glob("E*.html"))
    missing += [f"{d}/*.html" for d, found in ((book, chapters), (errors, codes)) if not found]
    if missing:
        print(f"missing: {', '.join(missing)}", file=sys.stderr)
        return 2
    for name, (pages, questions) in FOLDERS.items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            files = render(args.man, pages, folder)
            check(name, folder, files, expecting(questions), args.v)
    check("nodejs-html", args.node_html, node, node_questions(), args.v)
    with tempfile.TemporaryDirectory() as tmp:
        unpack(args.pip_docs, PIP, Path(tmp))
        check("pip", Path(tmp), PIP, expecting(PIP_QUESTIONS), args.v, by_path=True)
    check("libxslt-site", site_dir, site, expecting(SITE_QUESTIONS), args.v, by_path=True)
    check("libxslt", args.gtk_doc, gtk_doc, expecting(GTK_DOC_QUESTIONS), args.v, by_path=True)
    with tempfile.TemporaryDirectory() as tmp:
        by_package = {p: f"{p}/{f.name.removesuffix('.gz')}" for p, f in readmes.items() if f}
        files = list(by_package.values())
        unpack(args.doc, files, Path(tmp))
        expected = expecting(README_QUESTIONS, by_package)
        check("readmes", Path(tmp), files, expected, args.v, by_path=True)
    with tempfile.TemporaryDirectory() as tmp:
        logs_of = [f"{p}/changelog.Debian" for p in DEBIAN_CHANGELOGS]
        unpack(args.doc, logs_of, Path(tmp))
        expected = expecting(DEBIAN_CHANGELOG_QUESTIONS)
        check("debian-changelogs", Path(tmp), logs_of, expected, args.v, by_path=True)
    linux_docs = args.doc / "util-linux"
    linux_notes = sorted(
        str(p.relative_to(linux_docs)).removesuffix(".gz")
        for p in [*linux_docs.glob("*.txt*"), *linux_docs.glob("releases/*-ReleaseNotes*")]
    ) + ["README.Debian"]
    with tempfile.TemporaryDirectory() as tmp:
        unpack(linux_docs, linux_notes, Path(tmp))
        expected = expecting(UTIL_LINUX_QUESTIONS)
        check("util-linux", Path(tmp), linux_notes, expected, args.v, by_path=True)
    valgrind_dir = args.doc / "valgrind" / "html"
    valgrind = sorted(p.name for p in valgrind_dir.glob("*.html"))
    check("valgrind", valgrind_dir, valgrind, expecting(VALGRIND_QUESTIONS), args.v, by_path=True)
    npm = sorted(str(p.relative_to(args.npm_docs)) for p in args.npm_docs.rglob("*.md"))
    check("npm-docs", args.npm_docs, npm, expecting(NPM_QUESTIONS), args.v, by_path=True)
    relnotes = args.doc / "git" / "RelNotes"
    notes = sorted(p.name for p in relnotes.glob("*.txt"))
    check("git-relnotes", relnotes, notes, expecting(GIT_RELNOTES_QUESTIONS), args.v, by_path=True)
    expected = expecting(CONTRIBUTING_QUESTIONS)
    check("nodejs-contributing", guides, contributing, expected, args.v, by_path=True)
    with tempfile.TemporaryDirectory() as tmp:
        unpack(logs, changelogs, Path(tmp))
        expected = expecting(CHANGELOG_QUESTIONS)
        check("node-changelogs", Path(tmp), changelogs, expected, args.v, by_path=True)
    for name, (folder, pages) in cmake.items():
        check(name, folder, pages, expecting(CMAKE_QUESTIONS[name]), args.v, by_path=True)
    for name, folder, pages in (("rust-book", book, chapters), ("rust-errors", errors, codes)):
        check(name, folder, pages, expecting(RUST_QUESTIONS[name]), args.v, by_path=True)
    return 0


def _redirect(page: Path) -> bool:
    """Whether ``page`` is an mdBook redirect stub ("Redirecting..."), no chapter."""
    return "<title>Redirecting" in page.read_text(encoding="utf-8", errors="replace")[:2000]


if __name__ == "__main__":
    raise SystemExit(main())
