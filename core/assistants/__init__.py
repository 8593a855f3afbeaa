"""Assistants: named presets of knowledge bases, mode, thresholds, top-k, prompt and refusal text,
owned and shared like a knowledge base (issue 35, item 3). The service is core/services/assistants.py."""
