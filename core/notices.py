"""What the engine says beside an answer (a notice), in the language of the question.

Notices follow the question's language, as strict mode's fixed replies do
(core/answering/replies.py): Chinese characters → Chinese, Latin letters → English, neither →
Chinese. So the chat, the API, the CLI and a stored chat show the same words, and a Chinese
answer never carries English notices. A notice is made as a key and its values (``Notice``);
the answer run renders it in its question's language (``AnswerRun.notice``); code that has the
question at hand renders it at once (``notice_text``). Values are inserted as they are: a
provider's own error message stays in its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Language = Literal["zh", "en"]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")

_STRICT_ONLY = {"en": "strict mode answers from the knowledge base only: ", "zh": "严格模式只依据知识库作答："}

NOTICES: dict[str, dict[Language, str]] = {
    # who may see a normal answer (core/answering/policy.py)
    "policy.override_refused": {
        "en": ("strict mode is on: this answer comes from the knowledge base only "
               "(normal-mode answers are for admins while strict mode is on)"),
        "zh": "严格模式已开启：此回答只依据知识库（严格模式开启时，普通模式回答仅供管理员使用）"},
    # what strict mode leaves out (core/answering/service.py, web.py)
    "strict.history": {"en": "strict mode answers each question on its own: the earlier messages were not used",
                       "zh": "严格模式逐条独立作答：未使用之前的消息"},
    "strict.url": {"en": _STRICT_ONLY["en"] + "{url} was not fetched", "zh": _STRICT_ONLY["zh"] + "未抓取 {url}"},
    "strict.chat_files": {"en": _STRICT_ONLY["en"] + "the files attached to this chat are not used",
                          "zh": _STRICT_ONLY["zh"] + "未使用此对话的附件"},
    "strict.provider": {"en": _STRICT_ONLY["en"] + "{provider} is not used", "zh": _STRICT_ONLY["zh"] + "未使用 {provider}"},
    "strict.web": {"en": _STRICT_ONLY["en"] + "web search is off", "zh": _STRICT_ONLY["zh"] + "联网搜索已关闭"},
    # strict mode's judgement of whether the passages answer (core/answering/strict.py, answerable.py)
    "normal.not_mentioned": {
        "en": "the passages found do not mention {terms}: they may be about something else than what was asked",
        "zh": "检索到的内容未提及「{terms}」：可能与所问的不是一回事"},
    "normal.unsaid": {
        "en": "the passage quoted does not use the word {terms}; it says everything else the question names — check that it answers what you meant",
        "zh": "引用的段落未使用「{terms}」一词，但问题提及的其他内容都有——请核对是否切题"},
    "strict.unsaid": {
        "en": "strict mode: the passage quoted does not use the word {terms}; it says everything else the question names, so it is answered from it — check that it answers what you meant",
        "zh": "严格模式：引用的段落未使用「{terms}」一词，但问题提及的其他内容都有，因此据此作答——请核对是否切题"},
    "strict.unsupported": {
        "en": "strict mode: the language model's answer stated {terms}, which the passages do not; the passages are quoted instead",
        "zh": "严格模式：语言模型的回答提到了「{terms}」，检索到的内容并未提及；改为直接摘录原文"},
    "strict.model_judged": {
        "en": "strict mode: the passages do not use the words {terms}; the language model judged that one answers in other words, and quoted it",
        "zh": "严格模式：检索到的内容未直接提及「{terms}」；语言模型判断其中一段以其他说法作答，并给出了原文摘录"},
    "strict.not_mentioned": {
        "en": "strict mode: the passages found do not mention {terms}, so the question is not answered from them",
        "zh": "严格模式：检索到的内容未提及「{terms}」，因此不据此作答"},
    **{f"strict.no_value.{kind}": {
        "en": f"strict mode: the passages found do not state {en} asked for, so the question is not answered from them",
        "zh": f"严格模式：检索到的内容没有给出所问的{zh}，因此不据此作答"}
       for kind, en, zh in (("quantity", "the number", "数值"), ("money", "the amount", "金额"),
                            ("duration", "the time", "时间"), ("length", "the size", "尺寸"),
                            ("weight", "the weight", "重量"), ("percentage", "the percentage", "比例"),
                            ("date", "the date", "日期"), ("place", "the place", "地点"))},
    "strict.no_ask_back": {"en": "strict mode does not ask back, so nothing was searched: {question}",
                           "zh": "严格模式不会反问，因此没有检索：{question}"},
    # an assistant's scope for its caller (core/assistants/preset.py): empty, never widened
    "assistant.left_out": {
        "en": "{n} of this assistant's knowledge bases {is_are} not readable by you and {was_were} not searched",
        "zh": "此助手有 {n} 个知识库你无权访问，未被检索"},
    "assistant.no_readable_kb": {
        "en": "none of this assistant's knowledge bases is readable by you, so no knowledge base was searched",
        "zh": "此助手的知识库你都无权访问，因此没有检索任何知识库"},
    "assistant.no_filter_field": {
        "en": ("none of this assistant's knowledge bases you may read has the field of its filter ({fields}), "
               "so no knowledge base was searched"),
        "zh": "此助手中你可访问的知识库都没有其过滤条件的字段（{fields}），因此没有检索任何知识库"},
    # #mentions (core/answering/references.py)
    "mention.unknown": {"en": "no knowledge base or file named '{token}'; '#{token}' was read as plain text",
                        "zh": "没有名为「{token}」的知识库或文件；「#{token}」按普通文字处理"},
    # search (core/answering/steps.py, core/retrieval/search.py)
    "search.unavailable": {"en": "knowledge-base search is unavailable, so no passage was used: {error}",
                           "zh": "知识库检索暂不可用，因此未使用任何段落：{error}"},
    "search.english_only": {"en": "{embedder} understands English only: this query was ranked by keywords",
                            "zh": "{embedder} 只理解英文：此查询按关键词排序"},
    "search.no_reranker": {"en": "no reranker is configured; ranked by the hybrid score",
                           "zh": "未配置重排模型；按混合得分排序"},
    "followup.no_query": {
        "en": "the search query could not be generated from the conversation; it was built from the previous question",
        "zh": "无法根据对话生成检索语句；已结合上一个问题检索"},
    # normal mode (core/answering/normal.py)
    "url.unusable": {"en": "could not use {url}: {error}", "zh": "无法使用 {url}：{error}"},
    "url.file_context_off": {"en": "file context is off: {url} was not fetched", "zh": "文件上下文已关闭：未抓取 {url}"},
    "url.fetching": {"en": "fetching {url}", "zh": "正在抓取 {url}"},
    "normal.nothing_injected": {"en": "file context is off: nothing is injected",
                                "zh": "文件上下文已关闭：不注入任何内容"},
    "normal.nothing_injected_tools": {"en": "file context is off: nothing is injected (the model may use tools)",
                                      "zh": "文件上下文已关闭：不注入任何内容（模型可调用工具）"},
    "normal.retrieval_skipped": {"en": "retrieval skipped: {reason}", "zh": "跳过检索：{reason}"},
    "normal.flagged": {"en": "flagged for a human: nothing passed the similarity threshold",
                       "zh": "已转交人工：没有内容达到相似度阈值"},
    "provider.unused": {"en": "{provider} was not used: {error}", "zh": "未使用 {provider}：{error}"},
    "chat.stale_files": {"en": ("files attached to this chat were embedded with another model and are not searched; "
                                "upload them again: {names}"),
                         "zh": "此对话的附件是用另一个向量模型处理的，不会被检索；请重新上传：{names}"},
    "generate.tool_limit": {"en": "the model asked for tools after the tool-round limit; its request was ignored",
                            "zh": "模型在工具调用轮数用完后仍请求调用工具；该请求已忽略"},
    # the context budget (core/answering/budget.py)
    "budget.dropped": {"en": "Context trimmed to fit the model's context window: {n} less relevant {passages} left out ({names}).",
                       "zh": "为适应模型的上下文窗口已裁剪内容：省略了 {n} 段相关性较低的内容（{names}）。"},
    "budget.cut": {"en": "Context trimmed to fit the model's context window: shortened: {names}.",
                   "zh": "为适应模型的上下文窗口已裁剪内容：缩短了 {names}。"},
    "budget.dropped_and_cut": {
        "en": ("Context trimmed to fit the model's context window: {n} less relevant {passages} left out ({names}); "
               "shortened: {cut}."),
        "zh": "为适应模型的上下文窗口已裁剪内容：省略了 {n} 段相关性较低的内容（{names}）；缩短了 {cut}。"},
    # Ollama's small default context (core/llm/ollama_chat.py)
    "ollama.web_context": {
        "en": ("Ollama's context length (num_ctx) is {n} tokens while web search content is injected: "
               "a web page is often 4,000-8,000+ tokens even after extraction, so pages may be cut off or ignored. "
               "Raise the context length in the LLM settings to 8192 or more (16000+ for several pages)."),
        "zh": ("Ollama 的上下文长度（num_ctx）为 {n} 个 token，而对话中注入了联网搜索内容：一个网页提取后常有 "
               "4,000–8,000 个以上 token，可能被截断或忽略。请在大模型设置中把上下文长度调到 8192 或以上"
               "（多个网页需 16000 以上）。")},
    "ollama.small_context": {
        "en": ("Ollama's context length (num_ctx) is {n} tokens, Ollama's 2048-token default or less. "
               "Retrieved knowledge-base or web content may be cut off or ignored: even after extraction a web page "
               "is often 4,000-8,000+ tokens, so less than half of it fits, and 4096 is often not enough either. "
               "Raise the context length in the LLM settings to 8192 or more (16000+ for web pages)."),
        "zh": ("Ollama 的上下文长度（num_ctx）为 {n} 个 token，即 Ollama 默认的 2048 或更小。检索到的知识库或网页内容"
               "可能被截断或忽略：一个网页提取后常有 4,000–8,000 个以上 token，能放下的不到一半，4096 往往也不够。"
               "请在大模型设置中把上下文长度调到 8192 或以上（网页需 16000 以上）。")},
    # web search (core/answering/web.py, core/websearch/flow.py)
    "web.disabled": {"en": "web search is turned off in the settings (web_search.enable_web_search): answered without it",
                     "zh": "设置中已关闭联网搜索（web_search.enable_web_search）：未联网作答"},
    "web.switches_off": {"en": "web search needs File Context or Builtin Tools on: nothing was searched",
                         "zh": "联网搜索需要开启“文件上下文”或“内置工具”：未进行搜索"},
    "web.no_query": {"en": "the search query could not be generated; the message itself was searched",
                     "zh": "无法生成搜索语句；已直接搜索原消息"},
    "web.failed": {"en": "web search failed: {error}", "zh": "联网搜索失败：{error}"},
    "web.query_failed": {"en": "the web search for '{query}' failed: {error}", "zh": "联网搜索「{query}」失败：{error}"},
    "web.dropped": {"en": "{n} {results} outside the domain filter were dropped",
                    "zh": "已丢弃 {n} 条域名过滤范围之外的结果"},
    "web.skipped": {"en": "skipped {url}: {reason}", "zh": "已跳过 {url}：{reason}"},
    "web.refused": {"en": "skipped {url}: refused, {reason}", "zh": "已跳过 {url}：被拒绝，{reason}"},
}

# English plurals and verb agreement a notice needs (Chinese has none): {passages}, {is_are}… from the value n
ENGLISH_PLURALS = {"passages": ("passage", "passages"), "results": ("result", "results"), "is_are": ("is", "are"),
            "was_were": ("was", "were")}


def language(text: str) -> Language:
    """The language of a question: Chinese characters → zh, Latin letters → en, neither → zh."""
    if _CJK.search(text or ""):
        return "zh"
    return "en" if _LATIN.search(text or "") else "zh"


def notice_text(key: str, lang: Language, **params: object) -> str:
    texts = NOTICES[key]
    if lang == "en" and "n" in params:
        for word, (one, many) in ENGLISH_PLURALS.items():
            params.setdefault(word, one if params["n"] == 1 else many)
    return (texts.get(lang) or texts["en"]).format(**params)


@dataclass(frozen=True)
class Notice:
    """A notice as its key and values, rendered in a language when it is said."""

    key: str
    params: dict = field(default_factory=dict)

    def text(self, lang: Language = "en") -> str:
        return notice_text(self.key, lang, **self.params)

    def __str__(self) -> str:
        return self.text("en")


def notice(key: str, **params: object) -> Notice:
    if key not in NOTICES:
        raise KeyError(f"unknown notice key {key!r}")
    return Notice(key, params)
