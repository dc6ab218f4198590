"""An e-mail saved as a file (``.eml``, RFC 5322) as a small HTML page, for the example folders
(``folder_docs.read_file`` reads it then as an HTML file: its title and one section).

    message.eml
      → Python's ``email`` parser (``policy.default``: encoded headers decoded, "=?utf-8?q?…?="
        as the text it stands for)
      → a page titled by its ``Subject``, with one heading, the subject, over a line that says
        who wrote to whom and when ("From Mara <mara@example.org> to council@example.org,
        Fri, 22 Nov 2024 10:00:00 +0000"), then its text: the plain body's paragraphs, or, for
        a message with an HTML body only, that body; attachments left out

The people a message names in its head are what a question about it asks after ("What did
Mara propose …"), so they stay in its text.
"""

from __future__ import annotations

import email
import html
from email import policy
from email.message import EmailMessage

__all__ = ["email_html"]


def email_html(text: str) -> str:
    """The page of the e-mail ``text`` (module docstring).

    Raises:
        ValueError: ``text`` has no text body (no header block, or only attachments).
    """
    message = email.message_from_string(text, policy=policy.default)
    if not isinstance(message, EmailMessage) or not message.keys():
        raise ValueError("not an e-mail: no header fields")
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        raise ValueError("an e-mail with no text body")
    subject = html.escape(" ".join(str(message.get("subject", "")).split()))
    who = " ".join(f"{w} {message[k]}" for w, k in (("From", "from"), ("to", "to")) if message[k])
    sent = ", ".join(part for part in (who, str(message["date"] or "")) if part)
    content = body.get_content()
    if body.get_content_subtype() == "html":
        text_part = content
    else:
        blocks = (" ".join(block.split()) for block in content.split("\n\n"))
        text_part = "".join(f"<p>{html.escape(block)}</p>" for block in blocks if block)
    head = f"<p>{html.escape(sent)}</p>" if sent else ""
    return (
        f"<html><head><title>{subject}</title></head><body>"
        f"<h1>{subject}</h1>{head}{text_part}</body></html>"
    )
