"""Words of the pages that people read instead of raw keys and values (option labels, audit
checks, file types, placeholders), in both languages. Merged into en.STRINGS / zh.STRINGS
(their own keys win)."""

EN: dict[str, str] = {
    "settings.saved_fields": "Saved {section} — {fields}: applies from the next request, no restart.",
    "settings.nothing_changed": "Nothing to save: every value is the one already saved.",
    "common.choose": "Choose…", "common.choose_many": "Choose one or more…",
    # the values of the settings' select boxes (opt.<section>.<field>.<value>)
    "opt.chunking.size_unit.characters": "Characters", "opt.chunking.size_unit.tokens": "Tokens",
    "opt.embedding.provider.local": "Bundled local model", "opt.embedding.provider.openai": "OpenAI-compatible API",
    "opt.embedding.provider.ollama": "Ollama",
    "opt.retrieval.mode.dense": "Meaning (dense vectors)", "opt.retrieval.mode.bm25": "Keywords (BM25)",
    "opt.retrieval.mode.hybrid": "Hybrid (meaning + keywords)", "opt.retrieval.mode.hybrid+rerank": "Hybrid, then reranked",
    "opt.retrieval.reranker.kind.none": "None", "opt.retrieval.reranker.kind.cross-encoder": "Local cross-encoder",
    "opt.retrieval.reranker.kind.http": "Reranking service (HTTP)",
    "opt.retrieval.reranker.scores.logits": "Raw scores (logits)", "opt.retrieval.reranker.scores.probabilities": "Probabilities (0–1)",
    "opt.llm.provider.extractive": "Offline extractive answerer (no model)", "opt.llm.provider.openai": "OpenAI-compatible API",
    "opt.llm.provider.ollama": "Ollama",
    "opt.answering.low_similarity_action.general_knowledge": "Answer from general knowledge, marked as such",
    "opt.answering.low_similarity_action.flag_for_human": "Flag the question for a person",
    "opt.web_search.web_search_engine.searxng": "SearXNG", "opt.web_search.web_search_engine.tavily": "Tavily",
    "opt.web_search.web_search_engine.brave": "Brave Search", "opt.web_search.web_search_engine.google_pse": "Google Programmable Search",
    "opt.web_search.web_search_engine.serper": "Serper", "opt.web_search.web_search_engine.external": "Your own search service",
    "opt.web_search.web_search_engine.duckduckgo": "DuckDuckGo (unofficial)",
    # storage audit checks added after the first audit
    "audit.expired_web_collections": "Expired web-search collections (removed)",
    "audit.retry_originals": "Originals kept for Retry",
    # file types people name in words (proper names such as PDF or Word stay as they are)
    "type.text": "Text", "type.web_page": "Web page", "type.email": "E-mail", "type.folder": "Folder",
    "type.shortcut": "Shortcut", "type.gdoc": "Google Docs", "type.gsheet": "Google Sheets",
    "type.gslides": "Google Slides", "type.gdrawing": "Google Drawings", "type.gform": "Google Forms",
    "type.gnative": "Google file",
    # the retrieval test's summary: what is shown, and what passes the minimum score
    "rtest.shown": ("Showing {shown} passage(s): {n} reach the minimum score {min} (what chat would use), "
                    "{below} below it, for comparison · {timing}"),
    "rtest.shown_all_pass": "Showing {shown} passage(s), all reaching the minimum score {min} (what chat would use) · {timing}",
    # upload results: each file not indexed is said once
    "jobs.not_indexed_below": "Not indexed: {names} — each is listed below with its reason.",
    "jobs.not_indexed": "Not indexed: {names}.",
    "status.refused": "refused",
}

ZH: dict[str, str] = {
    "settings.saved_fields": "已保存 {section}（{fields}）：下一次请求即生效，无需重启。",
    "settings.nothing_changed": "没有需要保存的修改：所有值都与已保存的相同。",
    "common.choose": "请选择…", "common.choose_many": "可选择一项或多项…",
    "opt.chunking.size_unit.characters": "字符", "opt.chunking.size_unit.tokens": "词元（token）",
    "opt.embedding.provider.local": "内置本地模型", "opt.embedding.provider.openai": "OpenAI 兼容接口",
    "opt.embedding.provider.ollama": "Ollama（本地模型服务）",
    "opt.retrieval.mode.dense": "语义（稠密向量）", "opt.retrieval.mode.bm25": "关键词（BM25）",
    "opt.retrieval.mode.hybrid": "混合（语义 + 关键词）", "opt.retrieval.mode.hybrid+rerank": "混合后重排序",
    "opt.retrieval.reranker.kind.none": "不使用", "opt.retrieval.reranker.kind.cross-encoder": "本地交叉编码器",
    "opt.retrieval.reranker.kind.http": "重排序服务（HTTP）",
    "opt.retrieval.reranker.scores.logits": "原始分数（logits）", "opt.retrieval.reranker.scores.probabilities": "概率（0–1）",
    "opt.llm.provider.extractive": "离线摘录式回答（无需模型）", "opt.llm.provider.openai": "OpenAI 兼容接口",
    "opt.llm.provider.ollama": "Ollama（本地模型服务）",
    "opt.answering.low_similarity_action.general_knowledge": "用通用知识回答，并注明来源",
    "opt.answering.low_similarity_action.flag_for_human": "标记问题，交由人工处理",
    "opt.web_search.web_search_engine.searxng": "SearXNG（自建元搜索）", "opt.web_search.web_search_engine.tavily": "Tavily 搜索",
    "opt.web_search.web_search_engine.brave": "Brave 搜索", "opt.web_search.web_search_engine.google_pse": "谷歌可编程搜索",
    "opt.web_search.web_search_engine.serper": "Serper 搜索", "opt.web_search.web_search_engine.external": "自建搜索服务",
    "opt.web_search.web_search_engine.duckduckgo": "DuckDuckGo（非官方）",
    "audit.expired_web_collections": "已过期的网页搜索集合（已清理）",
    "audit.retry_originals": "为“重试”保留的原始文件",
    "type.text": "文本", "type.web_page": "网页", "type.email": "电子邮件", "type.folder": "文件夹",
    "type.shortcut": "快捷方式", "type.gdoc": "谷歌文档", "type.gsheet": "谷歌表格",
    "type.gslides": "谷歌幻灯片", "type.gdrawing": "谷歌绘图", "type.gform": "谷歌表单",
    "type.gnative": "谷歌文件",
    "rtest.shown": "显示 {shown} 段：{n} 段达到最低得分 {min}（对话会使用这些），{below} 段低于最低得分，仅供对比 · {timing}",
    "rtest.shown_all_pass": "显示 {shown} 段，全部达到最低得分 {min}（对话会使用这些）· {timing}",
    "jobs.not_indexed_below": "未索引：{names}——原因列在下方各文件旁。",
    "jobs.not_indexed": "未索引：{names}。",
    "status.refused": "已拒收",
}
