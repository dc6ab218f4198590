"""RFC 9110's opening as its text file sets it: a header of eight lines in two columns of 72
characters, then its title centred under it; long enough that a 500-character chunk (or a
128-token node) ends before the title, so a splitter starts the next chunk with the title,
its margin stripped."""

from __future__ import annotations


def _columns(left: str, right: str) -> str:
    return left + right.rjust(72 - len(left))


HEADER = [
    _columns("Internet Engineering Task Force (IETF)", "R. Fielding, Ed."),
    _columns("Request for Comments: 9110", "Adobe"),
    _columns("STD: 97", "M. Nottingham, Ed."),
    _columns("Obsoletes: 2818, 7230, 7231, 7232, 7233, 7235,", "Fastly"),
    _columns("           7538, 7615, 7694", "J. Reschke, Ed."),
    _columns("Updates: 3864", "greenbytes"),
    _columns("Category: Standards Track", "June 2022"),
    "ISSN: 2070-1721",
]
RFC_9110 = (
    "\n".join(HEADER)
    + "\n\n\n"
    + "HTTP Semantics".center(72).rstrip()
    + "\n\nAbstract\n\n   The Hypertext Transfer Protocol (HTTP) is a stateless application-"
    + "level\n   protocol for distributed, collaborative, hypertext information systems.\n"
)
