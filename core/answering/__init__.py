"""Mode-aware answering: normal and strict modes, prompts, context budget, references,
builtin tools, chats. ``core.engine.Engine.ask`` / ``compare`` are the entry points."""
