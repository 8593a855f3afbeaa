"""The chat model for the LLM settings in force, built once per distinct settings.

Building a client per message would also open a new connection per message; a cached one
keeps its connection pool (and the server's keep-alive) across messages. A settings change
gives a new key, so hot reload still applies on the next message.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from core.llm.base import ChatModel
from core.llm.factory import make_chat_model
from core.settings.fields import plain_dump
from core.settings.model import LLMSettings

_CACHE_SIZE = 4
_cache: OrderedDict[str, ChatModel] = OrderedDict()
_lock = threading.Lock()


def chat_model(settings: LLMSettings) -> ChatModel:
    key = json.dumps(plain_dump(settings), sort_keys=True)
    with _lock:
        model = _cache.get(key)
        if model is not None:
            _cache.move_to_end(key)
            return model
    model = make_chat_model(settings)  # may raise InvalidSettings: nothing is cached then
    with _lock:
        _cache[key] = model
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)  # dropped, not closed: a running answer may still hold it
    return model
