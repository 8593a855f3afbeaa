"""Mode-aware answering: normal and strict modes, prompts, context budget, references,
builtin tools, chats. ``Engine.ask`` / ``compare`` are the entry points; they build the typed context (context.py) answering receives."""
