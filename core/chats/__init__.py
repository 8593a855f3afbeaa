"""Chats: their persistence, titles and Markdown export, feedback, and files attached to a chat."""
