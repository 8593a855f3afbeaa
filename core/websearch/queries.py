"""Search-query generation: what the chat model is asked, and how its reply is read.

The reply should hold ``{"queries": [...]}``; the text between its first ``{`` and last ``}`` is
parsed. Any failure (no JSON, bad JSON, no list) → the user's message is the one query; an
empty string (or only blank strings) → the message; an empty list → no query at all (the answer
goes on without the web).
"""

from __future__ import annotations

import json

MAX_QUERIES = 3  # each query is an engine call and up to web_search_result_count page loads

QUERY_PROMPT = """Write web search queries that would find the information needed to answer the user's \
latest message. Use the conversation for context. Write the queries in the language of the message. \
If the message needs no web search at all (a greeting, small talk), return an empty list.
Reply with JSON only, exactly in this form: {{"queries": ["query one", "query two"]}} \
(at most {max_queries} queries).

Conversation:
{history}

Latest message:
{message}"""


def query_prompt(message: str, history: str = "") -> str:
    return QUERY_PROMPT.format(max_queries=MAX_QUERIES, history=history.strip() or "(none)", message=message)


def parse_queries(reply: str, message: str) -> list[str]:
    start, end = reply.find("{"), reply.rfind("}")
    if start == -1 or end < start:
        return [message]
    try:
        data = json.loads(reply[start:end + 1])
    except json.JSONDecodeError:
        return [message]
    queries = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(queries, list):
        return [message]
    if not queries:
        return []
    cleaned = list(dict.fromkeys(q.strip() for q in queries if isinstance(q, str) and q.strip()))
    return cleaned[:MAX_QUERIES] if cleaned else [message]
