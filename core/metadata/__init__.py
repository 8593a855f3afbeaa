"""Typed metadata fields per knowledge base (text, number, date, tags), their values per file,
and the filters over them that search and answering apply inside the vector store."""
