"""Curated answers: approved question/answer pairs per knowledge base, answered verbatim."""
