"""Routing's step 1c: the documents whose title a question writes, in any case
(:func:`titles_written`; the steps: :mod:`cage_core.expansion.routing`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from cage_core.expansion import versions
from cage_core.expansion.document_names import DocumentNames, held_by_all, words_held
from cage_core.expansion.documents import (
    DocumentRecord,
    marks_its_name,
    name_words,
    title_word,
)
from cage_core.expansion.question_text import (
    title_tokens,
    within,
    without_words,
    written_names,
)
from cage_core.expansion.routing_bounds import (
    MAX_NAMING_DOCUMENTS,
    MAX_TITLE_CANDIDATES,
    OTHER_NAME_SHARE,
    RoutingSettings,
    held_by,
    idf,
)
from cage_core.expansion.title_forms import (
    code_parts,
    names_alone,
    spelled_out,
    title_forms,
    written_acronyms,
)
from cage_core.expansion.title_parts import (
    COMMON_TITLE_SHARE,
    MAX_TITLE_HOLDERS,
    Match,
    capital_runs,
    code_words,
    longest_matches,
    named_at,
    position,
    written_as_code,
)
from cage_core.lang.en import INTERROGATIVE_DETERMINERS
from cage_core.names.forms import MAX_NAME_WORDS
from cage_core.names.routes import DocumentRoute, NamedDocument

__all__ = ["titles_written"]


def titles_written(
    question: str,
    names: DocumentNames,
    frequencies: Mapping[str, int],
    total: int,
    settings: RoutingSettings,
    *,
    definite: bool = False,
) -> DocumentRoute | None:
    """The documents whose title the question writes, in any case (step 1c): a part
    (:func:`~cage_core.expansion.title_forms.title_forms`) of a document's short name (at
    most ``MAX_NAME_WORDS``) but its identifiers, of at least ``min_title_words`` words, one
    of them in at most ``MAX_TITLE_HOLDERS`` documents' names (a one-word name: in no other
    name, after "the"), as consecutive words of the question (an acronym read as the words it
    spells: :func:`~cage_core.expansion.title_forms.spelled_out`), not right after a word
    that asks which of a kind (``INTERROGATIVE_DETERMINERS``: "which exit status does it
    return" names no page "Exit status"), not within a name the
    question writes (step 1b reads names: "Domain Name and Content License Agreement" is not
    "Content License Agreement"; but the title of a version it writes, and a title it writes
    as a name after "the": "the Configuration File Handling page"; and a title that starts
    a run of words in capitals alone, :func:`~cage_core.expansion.title_parts.capital_runs`:
    "Which lock level does ALTER TABLE take"), and not when the
    names the question writes beside it, less the words the document holds, score
    ``OTHER_NAME_SHARE`` of ``min_score`` and the title's own score for another document
    ("the franchise agreement between Pretzel Time" names Pretzel Time's). Of overlapping
    titles the longer names the document; two with one title name neither, unless a version
    tells them apart (:mod:`~cage_core.expansion.versions`). Reads the records of the
    :data:`MAX_TITLE_CANDIDATES` documents whose titles hold most of the question's words
    (a word too many documents hold counted where few titles do: "Common options" of a manual
    whose every node writes its parent's name), then holding most of them; ``definite``:
    every title stands after "the" (a second document's, where another step named the
    first)."""
    tokens = title_tokens(question, frequencies)  # "Node.js 12": words, where no file is it
    parts = sorted(set(code_parts(tokens)) - set(frequencies))  # feature_test_macros: its words
    frequencies = {**frequencies, **names.document_frequencies(parts)} if parts else frequencies
    looked_up = dict.fromkeys([*tokens, *parts])
    asked = [w for w in looked_up if 0 < frequencies.get(w, 0) <= MAX_NAMING_DOCUMENTS]
    count = words_held(names, asked)  # below: a short page's title, not a long page's words
    frequent = [title_word(w) for w in looked_up if frequencies.get(w, 0) > MAX_NAMING_DOCUMENTS]
    frequent_held = names.document_frequencies(frequent) if frequent else {}  # "Common options"
    titled_words = [w for w in frequent if 0 < frequent_held.get(w, 0) <= MAX_NAMING_DOCUMENTS]
    in_title = words_held(names, [title_word(w) for w in asked] + titled_words)
    least = settings.min_title_words
    candidates = sorted(count.keys() | in_title.keys(), key=lambda d: (-in_title[d], -count[d], d))
    titles: dict[str, list[str]] = {}
    records: dict[str, DocumentRecord] = {}
    marked: set[str] = set()  # records that mark their name's words (title_word)
    stored = names.documents(leading := candidates[:MAX_TITLE_CANDIDATES])  # one read for all
    for doc_id, record in ((d, stored[d]) for d in leading if d in stored):
        title = name_words(record.name)
        if 0 < len(title) <= MAX_NAME_WORDS:
            titles[doc_id], records[doc_id] = title, record
            if marks_its_name(record, title):
                marked.add(doc_id)
    unknown = {w for title in titles.values() for w in title if w not in frequencies}
    known = {**frequencies, **names.document_frequencies(unknown)}
    in_titles = names.document_frequencies({title_word(w) for t in titles.values() for w in t})
    titled = {w: in_titles.get(title_word(w), 0) for t in titles.values() for w in t}
    common = {w for w in tokens if known.get(w, 0) > COMMON_TITLE_SHARE * total}  # its site
    written, numbers = written_names(question), versions.version_numbers(question)
    capitals, code = written_acronyms(question), code_words(question)
    runs = capital_runs(question)
    found: list[Match] = []
    holders: dict[str, Collection[str]] = {}  # each word's documents, read once (held_by_all)
    for doc_id, title in titles.items():
        read, origin = spelled_out(tokens, capitals, title)  # "GPL": general public license
        counts = titled if doc_id in marked else known  # a store written before title marks
        for phrase in title_forms(record := records[doc_id], title, counts, total):
            common_words = min(counts.get(w, 0) for w in phrase) > MAX_TITLE_HOLDERS
            within_names = [n for n in written if within(phrase, n)]
            coded = len(phrase) == 1 and (written_as_code(phrase[0]) or phrase[0] in code)
            as_name = coded or phrase in within_names  # "the HashMap page", "fs::read_dir"
            one_word = doc_id in marked and names_alone(
                phrase, title, counts, record, as_name=as_name
            )
            exact = one_word or versions.holds_a_version(record, numbers)
            in_capitals = not definite and any(run[: len(phrase)] == phrase for run in runs)
            if any(n != phrase for n in within_names) and not in_capitals:
                continue  # within a name the question writes: step 1b reads names
            as_a_name = bool(within_names) and not exact  # the title, written as a name
            if in_capitals:  # "Which lock level does ALTER TABLE take", "EXPLAIN ANALYZE"
                start = position(read, phrase)
            elif len(phrase) >= least and not (definite or as_a_name):
                start = position(read, phrase)
                if start and read[start - 1] in INTERROGATIVE_DETERMINERS:
                    start = None  # "which exit status": a kind of thing, not "Exit status"
            elif len(phrase) >= least or one_word:
                start = named_at(read, phrase, common, code)  # "the FAQ", "does find_package …"
                if start is None and one_word and as_name and phrase[0] not in capitals:
                    df = known.get(phrase[0], 0)  # not "FastAPI" of 8 pages, "Tidewater" of 2/4
                    if df <= MAX_TITLE_HOLDERS and df < COMMON_TITLE_SHARE * total:
                        start = position(read, phrase)  # "how does Helgrind detect …"
            else:
                continue
            if start is not None and common_words:  # read only for a phrase the question holds
                words = [title_word(w) for w in phrase] if doc_id in marked else phrase
                together = len(held_by_all(names, words, holders))
                start = None if together > MAX_TITLE_HOLDERS else start  # a kind of document
            if start is not None:  # the span of the question's words, acronyms one each
                first, last = origin[start], origin[start + len(phrase) - 1]
                found.append((first - last - 1, first, doc_id, phrase))
                break
    chosen, shared = longest_matches(versions.told_apart(found, numbers, records))
    if shared:
        return None  # two documents with one title, no version told apart: ambiguous
    if not 0 < len(chosen) <= settings.max_documents:
        return None
    unit = idf(1, total)
    naming_limit = max(1.0, min(settings.naming_share * total, MAX_NAMING_DOCUMENTS))
    documents = []
    chosen_ids = {doc_id for _, _, doc_id, _ in chosen}
    for _, _, doc_id, phrase in sorted(chosen, key=lambda c: c[1]):
        record = records[doc_id]
        held = set(record.words) if record is not None else set()
        beside = (w for name in written for w in name if w not in held and w not in phrase)
        other = {w for w in beside if 0 < known.get(w, 0) <= naming_limit}
        holding = held_by(names, {w: idf(known[w], total) / unit for w in sorted(other)})
        others = [sum(w.values()) for d, w in holding.items() if d not in chosen_ids]
        score = sum(idf(max(known.get(w, 1), 1), total) / unit for w in phrase)
        if others and max(others) >= max(OTHER_NAME_SHARE * settings.min_score, score):
            return None  # the question also names another document, as fully
        documents.append(NamedDocument(doc_id, record.name if record else "", score, phrase))
    dropped = {w for document in documents for w in document.naming_words}
    as_code = {t: set(code_parts([t])) for t in tokens if "_" in t}  # "feature_test_macros"
    dropped |= {t for t, words in as_code.items() if words and words <= dropped}
    return DocumentRoute(tuple(documents), without_words(question, dropped))
