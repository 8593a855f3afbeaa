"""The normal-mode intent gate: greetings, thanks, chit-chat and near-empty messages skip
retrieval (searching the knowledge base for "你好" only injects noise). Strict mode never
uses this gate: there every message is retrieved for.
"""

from __future__ import annotations

import re
import unicodedata

# Whole-message patterns (after normalising); a question that merely starts with a greeting
# ("你好，年假有几天？") still has content and is retrieved for.
_CHITCHAT = [
    r"(你好|您好|嗨|哈喽|哈啰|喂|在吗|在不在|早|早上好|上午好|中午好|下午好|晚上好|晚安)(啊|呀|呢|哦|哇)?",
    r"(大家好|你们好|hello|hi|hey|hiya|yo|howdy|greetings)( there| all| everyone)?",
    r"good (morning|afternoon|evening|night|day)",
    r"(谢谢|多谢|感谢|谢了|谢谢你|谢谢您|辛苦了|太好了|好的|好|嗯|嗯嗯|哦|噢|收到|明白了|知道了|了解|行|可以|没问题|对|是的|不是|不用了)(啊|呀|哈|哦|了)?",
    r"(thanks|thank you|thank you very much|thanks a lot|thx|ty|ok|okay|k|cool|great|nice|got it|sure|yes|no|yep|nope|fine|alright|perfect)",
    r"(再见|拜拜|回头见|下次见|bye|goodbye|bye bye|see you|see ya|later|cya)",
    r"(你是谁|你叫什么|你叫什么名字|你是什么|你会什么|你能做什么|who are you|what are you|what can you do|how are you|how r u|what'?s up|sup)",
    r"(哈+|呵+|嘿+|lol|lmao|haha+|hehe+|😀|😊|👍)",
]
_CHITCHAT_RE = re.compile(r"^(?:%s)$" % "|".join(_CHITCHAT), re.IGNORECASE)
_STRIP = re.compile(r"[\s\W_]+", re.UNICODE)


def _normalise(message: str) -> str:
    text = unicodedata.normalize("NFKC", message).strip().lower()
    text = re.sub(r"[!！?？。.,，~～…、;；:：'\"“”‘’()（）\[\]【】]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def skip_reason(message: str) -> str | None:
    """Why retrieval is skipped for this message in normal mode, or None to retrieve."""
    text = _normalise(message)
    meaningful = _STRIP.sub("", text)
    if len(meaningful) <= 1:
        return "very short message"
    if _CHITCHAT_RE.match(text) or _CHITCHAT_RE.match(meaningful):
        return "greeting or chit-chat"
    return None
