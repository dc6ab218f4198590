"""Stage 1½, names: the rules for names that ingest (``expansion/``) and query time
(``ranking/``) share, below both, so that both read a name the same way.

Modules: ``forms`` (the words of a text, a title's qualifier dropped, the normal form of a
name), ``may_link`` (which strings are names that may link passages, and which are debris),
``sources`` (the names a chunk's metadata gives its document: its heading without markup,
what its path names, never a generic file name such as ``README``), ``subjects`` (what a
passage is about), ``documents`` (how a document names itself: its title, its identifiers,
file name and date, and the folded form names are compared in), ``centered_titles`` (the
title a plain-text document centers in its columns), ``numbers`` (the numbers a name or a
question writes: a release's version), ``routes`` (what routing found
for a question: the documents it names, as the ranking reads them).

One word per meaning:

* a *name* is any string that may denote an entity (a title, a subject, an entity label);
* its *normal form* (:func:`~cage_core.names.forms.normal_name`) is the form names are
  compared in by the link index and the document links; a stored name must already be in it
  (:func:`~cage_core.names.forms.is_normal_name`);
* a string is *debris* (:func:`~cage_core.names.may_link.is_debris`) when it is a literal,
  a code fragment, a user handle, a path or a URL: never a subject, a link or a ``via``;
* a name *may link* (:func:`~cage_core.names.may_link.may_link`) when it is no debris,
  amount, number or generic word.
"""
