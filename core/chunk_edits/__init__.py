"""Chunks edited by hand: a file's chunks viewed, edited, disabled, enabled, added, with keywords
the lexical channel sees, an edit history, and the edits carried across a reindex.

``models`` the two tables, ``types`` what the operations return, ``points`` how an edited chunk
becomes a point in the vector store, ``edits`` the operations' work, ``carry`` the edits across a
reindex (kept where the passage is still in the file, dropped and told otherwise). The service over
them is core/services/chunk_edits.py.
"""
