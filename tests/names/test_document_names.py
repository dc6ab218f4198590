"""How a document names itself (:mod:`cage_core.names.documents`): its title in the forms its
format writes it, its identifiers in every written form, and the folded form names meet in."""

from __future__ import annotations

import pytest

from cage_core.names.documents import (
    dates,
    document_title,
    file_names,
    file_stem,
    fold,
    identifiers,
    own_identifiers,
    references,
    text_lines,
)

PEP_HEADER = """PEP: 636
Title: Structural Pattern Matching:
  Tutorial
Author: Daniel F Moisset <dfmoisset@gmail.com>
Status: Final
Replaces: 622

Abstract
========
"""


MAN_SOURCE = (
    '.\\" Manual page for tidewater.\n.TH TIDEWATER 1 "2024-03-01" "tidewater 2.0"\n'
    ".SH NAME\ntidewater \\- predict the \\fBtide\\fR at a station\n.SH SYNOPSIS\n.B tidewater\n"
)
MDOC_SOURCE = (
    ".Dd March 1, 2024\n.Dt TIDEWATER 1\n.Os\n.Sh NAME\n.Nm tidewater\n"
    ".Nd predict the tide at a station\n.Sh SYNOPSIS\n"
)


@pytest.mark.parametrize(
    ("opening", "title"),
    [
        (PEP_HEADER, "Structural Pattern Matching: Tutorial"),
        (
            "---\neip: 1559\ntitle: 'Fee market change for ETH 1.0 chain'\n---\n## Summary",
            ("Fee market change for ETH 1.0 chain"),
        ),
        (
            "<html><head><title>Git - git-commit Documentation</title></head>",
            ("Git - git-commit Documentation"),
        ),
        ("<body><h1>Release <em>notes</em> &amp; news</h1><p>…</p>", "Release notes & news"),
        ("Some words first.\n\n# Installing the server\n\ntext", "Installing the server"),
        ("=======\nRestore\n=======\n\nTo restore a snapshot", "Restore"),
        ("Backups\n-------\n\ntext", "Backups"),
        ("jq\n==\n\njq is a JSON processor.", "jq"),  # a two-letter setext title
        ("= The AsciiDoc Guide\n:toc:\n", "The AsciiDoc Guide"),
        (
            '+++\ntitle = "Backing up a cluster"\nweight = 3\n+++\n\n## Before you start',
            ("Backing up a cluster"),
        ),  # Hugo's TOML front matter: the page's own title, not its first heading
        (
            "#+TITLE: Backing up a cluster\n#+AUTHOR: Ops\n\n* Before you start",
            ("Backing up a cluster"),
        ),  # Org-mode's keyword lines
        ("+++\ntitle = '\"Artistic\" licences'\n+++\n", '"Artistic" licences'),  # as parsed
        ("---\ntitle: '\"Artistic\" licences'\n---\n", 'Artistic" licences'),  # YAML: as before
        ('+++\ntitle = "unclosed\n+++\n\n# Restoring a cluster', "Restoring a cluster"),
        (
            "From: Mara <mara@example.org>\nSubject: Travel grants: the next round\n\nHi all,",
            "Travel grants: the next round",
        ),  # an e-mail's title is its subject
        ("Subject: the list's topic\nTitle: The page\n\ntext", "The page"),  # a title first
        (
            "% main.tex\n\\documentclass{article}\n\\title[Tides]{Tidal \\emph{Currents}\\\\"
            " in Brest\\thanks{Funded by X.}}\n\\begin{document}\n\\section{Introduction}",
            "Tidal Currents in Brest",
        ),  # a LaTeX source's \title, as it typesets
        ("\\section{Related Work}\\label{sec:rw}\nPrior work.", "Related Work"),  # a chapter file
        ("# Writing papers\n\n    \\title{My Paper}\n", "Writing papers"),  # a page about LaTeX
        (MAN_SOURCE, "tidewater - predict the tide at a station"),  # man(7), as it renders
        (MDOC_SOURCE, "tidewater - predict the tide at a station"),  # mdoc(7)
        (
            "# -*- perl -*-\n\n=encoding utf-8\n\n=head1 NAME\n\nFile::FcntlLock - File locking"
            " with L<fcntl(2)>\n\n=head1 SYNOPSIS\n",
            "File::FcntlLock - File locking with fcntl(2)",
        ),  # POD, its formatting codes as they render
        (
            "\\input texinfo   @c -*-texinfo-*-\n@c %**start of header\n@set VERSION 3.5\n"
            "@setfilename tides.info\n@settitle Tidewater @value{VERSION}: @code{tide} and"
            " currents\n@titlepage\n@title The Tidewater Manual\n",
            "Tidewater 3.5: tide and currents",
        ),  # Texinfo: its @settitle, as the rendered pages' <title> writes it
        ("@titlepage\n@title The @sc{Tidewater} Manual\n", "The Tidewater Manual"),
        ("@node Stations\n@chapter Stations @dots{} and ports\n", "Stations ... and ports"),
        ("@alice thanks for the fix\n\n@chapter is a word here\n", ""),  # not Texinfo
    ],
)
def test_the_title_is_read_where_the_format_writes_it(opening: str, title: str) -> None:
    assert document_title(opening) == title


RFC_HEAD = """Internet Engineering Task Force (IETF)                          A. Barth
Request for Comments: 6265                                 U.C. Berkeley
Obsoletes: 2965                                               April 2011
Category: Standards Track


                    HTTP State Management Mechanism

Abstract

   This document defines the HTTP Cookie and Set-Cookie header fields.
"""


def test_plain_text_in_columns_is_titled_by_its_first_centered_lines() -> None:
    assert document_title(RFC_HEAD) == "HTTP State Management Mechanism"
    two_lines = RFC_HEAD.replace(
        "                    HTTP State Management Mechanism",
        "                 Hypertext Transfer Protocol Version 2\n"
        "                              (HTTP/2)",
    )
    assert document_title(two_lines) == "Hypertext Transfer Protocol Version 2 (HTTP/2)"
    wide_body = RFC_HEAD.replace(
        "Set-Cookie header fields.", "Set-Cookie header fields " + "x" * 30
    )
    assert (
        document_title(wide_body) == "HTTP State Management Mechanism"
    )  # centered under the header


def test_one_line_longer_than_the_text_sets_no_width() -> None:
    """A page footer or a URL wider than the text: the title stays centered in the text."""
    gfdl = (
        "\n                GNU Free Documentation License\n"
        "                 Version 1.3, 3 November 2008\n\n\n"
        " Copyright (C) 2000, 2001, 2002, 2007, 2008 Free Software Foundation, Inc.\n"
        "     <https://fsf.org/>\n"
        " Everyone is permitted to copy and distribute verbatim copies\n"
        " of this license document, but changing it is not allowed.\n\n"
        "0. PREAMBLE\n\n"
        "The purpose of this License is to make a manual, textbook, or other\n"
        "functional and useful document free in the sense of freedom: to assure\n"
    )
    assert document_title(gfdl) == "GNU Free Documentation License Version 1.3, 3 November 2008"


def test_a_running_head_footer_and_copyright_line_wider_than_the_text_set_no_width() -> None:
    """A printed page's head and foot, and GFDL-1.3's copyright line, are wider than its
    text: three lines, out of a quarter of the opening's lines, set no width."""
    body = [
        "The purpose of this License is to make a manual, textbook, or other",
        "functional and useful document free in the sense of freedom: to assure",
        "everyone the effective freedom to copy and redistribute it, with or",
        "without modifying it, either commercially or noncommercially. This",
    ] * 3
    page = [
        "GNU FDL 1.3" + " " * 64 + "page 1",
        "",
        "                GNU Free Documentation License",
        "                 Version 1.3, 3 November 2008",
        "",
        " Copyright (C) 2000, 2001, 2002, 2007, 2008 Free Software Foundation, Inc.",
        "",
        "0. PREAMBLE",
        "",
        *body,
        "",
        "Printed 2024-01-01" + " " * 60 + "Copy 1 of 1",
    ]
    title = "GNU Free Documentation License Version 1.3, 3 November 2008"
    assert document_title("\n".join(page)) == title


def test_a_url_under_centered_title_lines_ends_the_title() -> None:
    apache = (
        "\n                                 Apache License\n"
        "                           Version 2.0, January 2004\n"
        "                        http://www.apache.org/licenses/\n\n"
        "   TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION\n\n"
        "   1. Definitions.\n\n"
        '      "License" shall mean the terms and conditions for use, reproduction,\n'
        "      and distribution as defined by Sections 1 through 9 of this document.\n"
    )
    assert document_title(apache) == "Apache License Version 2.0, January 2004"


def test_a_long_title_set_in_by_less_than_the_usual_margin_is_read_when_exactly_centered() -> None:
    title = "Hypertext Transfer Protocol (HTTP/1.1): Message Syntax and Routing"
    long_title = RFC_HEAD.replace(
        "                    HTTP State Management Mechanism", title.center(72).rstrip()
    )
    assert document_title(long_title) == title  # set in by 3, as RFC 7230 sets it
    body = RFC_HEAD.replace("                    HTTP State Management Mechanism\n\n", "")
    assert document_title(body) == ""  # a paragraph set in by 3 is no title
    off_center = RFC_HEAD.replace(
        "                    HTTP State Management Mechanism", "     " + title
    )
    assert document_title(off_center) == ""  # margins of 5 and 1: no title


@pytest.mark.parametrize(
    "text",
    [
        # a paragraph per line: no page columns
        "                    THIS AGREEMENT                    \n\n" + "word " * 40,
        # a centered line right under text is no title
        "Header of a table with a few columns in it, wide\n          Second cell line here     \n",
        # markup
        "<p>\n\n                    Centered words in markup                    \n</p>\n",
    ],
)
def test_a_centered_line_titles_only_plain_text_in_columns(text: str) -> None:
    assert document_title(text) == ""


@pytest.mark.parametrize(
    "code",
    [
        "self.button = btn\n-----------------\n",
        "def get_requires_for_build_editable(config_settings=None):\n=====================\n",
        "# x = compute(y)\n",
    ],
)
def test_a_code_line_is_never_a_title(code: str) -> None:
    assert document_title(code) == ""


def test_every_written_form_of_an_identifier_is_one_word() -> None:
    written = "RFC 9110, rfc-9110, Rfc9110, rfc_09110 and RFC#9110; also PEP 634 and EIP-1559"
    assert [(i.word, i.shown) for i in identifiers(written)] == [
        ("rfc 9110", "RFC 9110"),
        ("pep 634", "PEP 634"),
        ("eip 1559", "EIP 1559"),
    ]


def test_a_second_number_after_a_hyphen_is_part_of_the_identifier() -> None:
    """Two advisories of one year share no identifier: "CVE 2022" is no name of either."""
    written = "CVE-2022-46908 and cve 2022-0778 of NIST SP 800-53; RFC 9110-style"
    assert [(i.word, i.shown) for i in identifiers(written)] == [
        ("cve 2022-46908", "CVE 2022-46908"),
        ("cve 2022-0778", "CVE 2022-0778"),
        ("sp 800-53", "SP 800-53"),
        ("rfc 9110", "RFC 9110"),
    ]


def test_a_markup_role_with_a_number_is_an_identifier() -> None:
    written = "As :pep:`634` and {rfc}`9110#section-3` say (:pep:`the tutorial <636>`)"
    assert [(i.word, i.shown) for i in identifiers(written)] == [
        ("pep 634", "PEP 634"),
        ("rfc 9110", "RFC 9110"),
        ("pep 636", "PEP 636"),
    ]
    assert [written[i.start : i.end] for i in identifiers(written)][:2] == [
        ":pep:`634`",
        "{rfc}`9110#section-3`",
    ]


def test_one_letter_before_three_digits_or_more_is_an_identifier_as_written() -> None:
    """A compiler's error code ("E0382"), in any case; one or two digits after one letter are
    none ("Q3", "B12", "X11": a quarter, a vitamin, a window system)."""
    written = "Compare E0502 with e0499; not Q3, B12 or X11."
    assert [(i.word, i.shown) for i in identifiers(written)] == [
        ("e 502", "E0502"),
        ("e 499", "E0499"),
    ]
    assert [
        i.word for i in own_identifiers("<title>E0382 - Error codes index</title>", "E0382")
    ] == ["e 382"]


@pytest.mark.parametrize("text", ["Python 3.11", "TLS 1.3 handshake", "v2ray", "abc12345678"])
def test_versions_decimals_and_glued_numbers_are_no_identifiers(text: str) -> None:
    assert identifiers(text) == []


def test_an_identifier_keeps_where_it_stands_and_its_zero_padding_for_display() -> None:
    (found,) = identifiers("See XEP-0045 now")
    assert (found.word, found.shown, "See XEP-0045 now"[found.start : found.end]) == (
        "xep 45",
        "XEP 0045",
        "XEP-0045",
    )


def test_a_document_owns_the_identifiers_of_its_header_and_file_name_not_those_it_cites() -> None:
    own = own_identifiers(PEP_HEADER + "This PEP replaces PEP 622 and cites RFC 9110.", "pep-0636")
    assert [i.word for i in own] == ["pep 636"]
    assert [i.word for i in own_identifiers("Hello", "rfc-9110")] == ["rfc 9110"]


@pytest.mark.parametrize(
    ("opening", "own"),
    [
        ("---\neip: 1559\ntitle: Fee market change\n---\n", ["eip 1559"]),
        ("---\ntitle: npm-install\nsection: 1\n---\n", []),
        ("---\ntitle: Installing\nweight: 10\n---\n", []),
        ('+++\neip = 1559\ntitle = "Fee market change"\n+++\n', ["eip 1559"]),
        ('+++\ntitle = "Installing"\nweight = 10\ndraft = true\n+++\n', []),
        (MAN_SOURCE, ["tidewater(1)"]),  # a manual page's source: its head's name(section)
        (MDOC_SOURCE, ["tidewater(1)"]),
    ],
)
def test_only_a_header_that_opens_with_a_number_gives_its_document_one(
    opening: str, own: list[str]
) -> None:
    """A series leads its header ("eip: 1559"); a number under a title orders pages (npm's
    manual ``section``, a static site's ``weight``), many pages the same one."""
    assert [i.word for i in own_identifiers(opening)] == own


def test_file_names_and_dates_in_every_written_form() -> None:
    text = "See compatibility.md, 080_examples.rst and the 2024-12-06 / 6 December 2024 notes."
    assert [i.word for i in file_names(text)] == ["compatibility.md", "080_examples.rst"]
    assert [i.word for i in dates(text + " Or Dec. 6, 2024.")] == ["2024-12-06"]
    assert {"compatibility.md", "080_examples.rst", "2024-12-06"} <= {
        i.word for i in references(text)
    }


@pytest.mark.parametrize(
    ("file_name", "stem", "own"),
    [
        ("rfc-9110.txt", "rfc-9110", ["rfc 9110", "rfc-9110.txt"]),
        ("LGPL-2", "LGPL-2", ["lgpl 2"]),
        ("LGPL-2.1", "LGPL-2.1", ["lgpl-2.1"]),
        ("MPL-2.0.txt", "MPL-2.0", ["mpl-2.0", "mpl-2.0.txt"]),
        ("index.en.html", "index", ["index.en.html", "index.en"]),
        ("sources.list.5.txt", "sources", ["sources.list.5.txt", "sources.list"]),  # man page
        ("apt.conf.5.gz", "apt", ["apt.conf.5.gz", "apt.conf"]),
    ],
)
def test_a_versioned_file_name_keeps_its_version(file_name: str, stem: str, own: list[str]) -> None:
    assert file_stem(file_name) == stem
    assert [i.word for i in own_identifiers("", file_name)] == own


def test_a_versioned_file_name_is_read_in_a_text_and_a_version_is_not() -> None:
    text = "Under MPL-2.0, LGPL-2.1. and GPL-3, as in Python 3.11 or TLS 1.3."
    assert [(i.word, i.shown) for i in file_names(text)] == [
        ("mpl-2.0", "MPL-2.0"),
        ("lgpl-2.1", "LGPL-2.1"),
    ]
    assert [i.word for i in identifiers(text)] == ["gpl 3"]


def test_a_title_a_splitter_stripped_of_its_margin_is_read() -> None:
    chunk = (
        "Apache License\n"
        "                           Version 2.0, January 2004\n"
        "                        http://www.apache.org/licenses/\n"
        "\n"
        "   TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION\n"
    )
    assert document_title(chunk) == "Apache License Version 2.0, January 2004"
    assert document_title("Dear reader,\n   welcome to the notes.\n\nMore text.\n") == ""


def test_a_stripped_title_a_blank_line_parts_from_a_centered_heading_is_read_alone() -> None:
    # The Artistic License 1.0 as published: its title and "Preamble" both centred with tabs;
    # a splitter strips the title's margin and "Preamble" was read as the title.
    chunk = (
        'The "Artistic License"\n'
        "\n"
        "\t\t\t\tPreamble\n"
        "\n"
        "The intent of this document is to state the conditions under which a\n"
        "Package may be copied, such that the Copyright Holder maintains some\n"
    )
    assert document_title(chunk) == 'The "Artistic License"'
    command = (
        "Usage:\n\n\t\trestic backup\n\nThe backup command reads the files and writes a snapshot.\n"
    )
    assert document_title(command) == ""  # a line ending in ":" is no title


def test_a_document_owns_its_file_name_and_the_date_in_it() -> None:
    assert [i.word for i in own_identifiers("# Council meeting", "2024-12-06.md")] == [
        "2024-12-06",
        "2024-12-06.md",
    ]


def test_an_rst_comment_is_no_title_and_markup_is_no_text() -> None:
    opening = "..\n  # with overline, for parts\n  * for chapters\n\n#######\nRestore\n#######\n"
    assert document_title(opening) == "Restore"
    assert text_lines("<!DOCTYPE html>\n<!-- (c) 2024 -->\n<p>Hello &amp; bye</p>") == [
        " ",
        " ",
        " Hello & bye ",
    ]


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("Straße", "strasse"),
        ("STRASSE", "strasse"),
        ("İstanbul", "istanbul"),
        ("Cafe\u0301", "cafe"),
        ("Café", "cafe"),
        ("ﬁle", "file"),
        ("Plain ASCII", "plain ascii"),
    ],
)
def test_names_are_compared_folded(written: str, folded: str) -> None:
    assert fold(written) == folded


def test_a_line_set_in_under_the_body_is_no_centered_title() -> None:
    # a manual page without its running head: a note set in by 11 under the description's
    # paragraph is centered in 78 columns, but the body has begun (apt-cdrom(8) was titled
    # "APT uses a CD-ROM ID to track which disc is currently in the drive ...")
    text = (
        "DESCRIPTION\n"
        "       apt-cdrom is used to add a new CD-ROM to the list of available sources.\n"
        "       It takes care of determining the structure of the disc as well as\n"
        "       correcting for several possible mis-burns and verifying the files.\n\n"
        "           APT uses a CD-ROM ID to track which disc is currently in the drive\n"
        "           and maintains a database of these IDs in /var/lib/apt/cdroms.list\n\n"
        "       A disc is added once; apt-cdrom ident prints its identity.\n"
    )
    assert document_title(text) == ""


@pytest.mark.parametrize(
    ("opening", "title"),
    [
        ("# `pyproject.toml`\n\ntext", "pyproject.toml"),
        ("``setup.py`` (legacy)\n=====================\n", "setup.py (legacy)"),
        (
            ":mod:`!asyncio` --- Asynchronous I/O\n=====================================\n",
            "asyncio --- Asynchronous I/O",
        ),
        ("# The {ref}`cache <caching>` and `pip wheel`\n", "The cache and pip wheel"),
    ],
)
def test_a_headings_inline_code_is_read_as_it_renders(opening: str, title: str) -> None:
    assert document_title(opening) == title


@pytest.mark.parametrize("title", ["pyproject.toml", "setup.py (legacy)"])
def test_a_document_titled_by_a_file_name_owns_it(title: str) -> None:
    file_name = title.split()[0]
    own = own_identifiers("", "build-system-page.md", title)
    assert file_name in [i.word for i in own]
    assert [i.word for i in own_identifiers("", "page.md", f"Why {file_name} matters")] == [
        "page.md"
    ]


def test_a_file_name_is_read_at_the_end_of_its_path() -> None:
    text = (
        "See [Clients](advanced/clients.md), ../api/fs.html#fs_readfile, ./eip-1559.md, "
        "docs\\usage.rst and https://pip.pypa.io/en/stable/topics/caching.md"
    )
    assert [i.word for i in file_names(text)] == [
        "clients.md",
        "fs.html",
        "eip-1559.md",
        "usage.rst",
        "caching.md",
    ]
    linked = "In ../api/fs.html, see"
    assert [linked[i.start : i.end] for i in file_names(linked)] == ["../api/fs.html"]
