"""Query terms marked in a passage (the retrieval test), as escaped HTML.

Terms are the query's words, marked as whole words (a word inside a longer one is another
word: "cap" is not in "capital"); a Chinese run is also matched by its two-character pieces,
since Chinese text has no spaces and a question rarely repeats the passage's exact phrase.
"""

from __future__ import annotations

import html
import re

_WORD = re.compile(r"[\w\u00c0-\u024f]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Common Chinese question words and particles: marking them would mark half of every passage.
_CJK_STOP = {"什么", "怎么", "怎样", "哪些", "多少", "是否", "可以", "如何", "为什么", "的是", "是什", "么情", "情况", "几天"}
_EN_STOP = {"the", "a", "an", "of", "to", "in", "is", "are", "do", "does", "how", "what", "who", "when", "where",
            "which", "for", "and", "or", "can", "i", "my", "many", "much"}


def query_terms(query: str) -> list[str]:
    terms: set[str] = set()
    for run in _CJK.findall(query):
        terms.add(run)
        terms.update(run[i:i + 2] for i in range(len(run) - 1))
    for word in _WORD.findall(_CJK.sub(" ", query)):
        if len(word) > 1 and word.lower() not in _EN_STOP:
            terms.add(word)
    return sorted((x for x in terms if x not in _CJK_STOP), key=len, reverse=True)


def _whole_word(term: str) -> re.Pattern:
    """The term as a whole word (its English plural too), in any case."""
    return re.compile(r"(?<![\w\u00c0-\u024f])%s(?:e?s)?(?![\w\u00c0-\u024f])" % re.escape(term), re.IGNORECASE)


def highlight_html(text: str, query: str) -> str:
    """``text`` escaped, with each occurrence of a query term inside <mark>."""
    terms = query_terms(query)
    if not terms:
        return html.escape(text)
    # every occurrence of every term, overlaps included, then one <mark> per marked stretch
    marked = [False] * len(text)
    lower = text.lower()
    for term in terms:
        if _CJK.fullmatch(term):  # Chinese has no spaces: any occurrence
            needle, start = term.lower(), 0
            while (i := lower.find(needle, start)) >= 0:
                marked[i:i + len(needle)] = [True] * len(needle)
                start = i + 1
            continue
        for m in _whole_word(term).finditer(text):  # "cap" marks "caps", never "capital"
            marked[m.start():m.end()] = [True] * (m.end() - m.start())
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and marked[j] == marked[i]:
            j += 1
        piece = html.escape(text[i:j])
        out.append(f"<mark>{piece}</mark>" if marked[i] else piece)
        i = j
    return "".join(out)
