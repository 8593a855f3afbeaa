"""Words of the pages that people read instead of raw keys and values (option labels, audit
checks, file types, placeholders), in both languages. Merged into en.STRINGS / zh.STRINGS
(their own keys win)."""

from core.messages import ENGLISH as ENGINE_MESSAGES

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
    "rtest.shown": ("Showing {shown} {shown:passage|passages}: {n} {n:reaches|reach} the minimum score {min} (what chat would use), "
                    "{below} below it, for comparison · {timing}"),
    "rtest.shown_all_pass": "Showing {shown} {shown:passage|passages}, {shown:reaching|all reaching} the minimum score {min} (what chat would use) · {timing}",
    # upload results: each file not indexed is said once
    "jobs.not_indexed_below": "Not indexed: {names} — each is listed below with its reason.",
    "jobs.not_indexed": "Not indexed: {names}.",
    "status.refused": "refused",
    # Google Drive: disconnect asks first; sources, actions, triggers and runs in words
    "gdrive.disconnect_confirm": ("Disconnect Google Drive? Its tokens are deleted at Google and here; your watched Drive "
                                  "sources stay listed but stop syncing until you reconnect."),
    "gdrive.disconnect_yes": "Disconnect Google Drive",
    "gdrive.state.ok": "up to date", "gdrive.state.reconnect": "needs reconnecting (Google Drive is not connected)",
    "gdrive.state.error": "last sync failed: {error}", "gdrive.state.failing": "{n} {n:file|files} failing: {names}",
    "gdrive.action.added": "added", "gdrive.action.updated": "updated", "gdrive.action.renamed": "renamed",
    "gdrive.action.removed": "removed", "gdrive.action.failed": "failed", "gdrive.action.cancelled": "cancelled",
    "gdrive.action.duplicate": "already present", "gdrive.action.skipped": "skipped",
    "gdrive.trigger.manual": "by hand", "gdrive.trigger.schedule": "scheduled", "gdrive.trigger.import": "import",
    "gdrive.run.running": "running", "gdrive.run.done": "done", "gdrive.run.failed": "failed",
    "gdrive.run.busy": "skipped (another sync was running)", "gdrive.run.cancelled": "cancelled",
    "status.duplicate": "already present",
    # what the engine stores about files and jobs, by key (core/messages.py holds the English)
    **{f"msg.{key}": text for key, text in ENGINE_MESSAGES.items()},
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
    "gdrive.disconnect_confirm": "断开谷歌云端硬盘？其令牌将在谷歌和本应用中删除；你监视的云端硬盘来源仍会列出，但在重新连接前不再同步。",
    "gdrive.disconnect_yes": "断开谷歌云端硬盘",
    "gdrive.state.ok": "已是最新", "gdrive.state.reconnect": "需要重新连接（谷歌云端硬盘未连接）",
    "gdrive.state.error": "上次同步失败：{error}", "gdrive.state.failing": "{n} 个文件失败：{names}",
    "gdrive.action.added": "已添加", "gdrive.action.updated": "已更新", "gdrive.action.renamed": "已重命名",
    "gdrive.action.removed": "已移除", "gdrive.action.failed": "失败", "gdrive.action.cancelled": "已取消",
    "gdrive.action.duplicate": "已存在", "gdrive.action.skipped": "已跳过",
    "gdrive.trigger.manual": "手动", "gdrive.trigger.schedule": "定时", "gdrive.trigger.import": "导入",
    "gdrive.run.running": "进行中", "gdrive.run.done": "完成", "gdrive.run.failed": "失败",
    "gdrive.run.busy": "已跳过（另一次同步正在进行）", "gdrive.run.cancelled": "已取消",
    "status.duplicate": "已存在",
    "msg.parse.pdf_password": "{name} 设有密码保护；请去掉密码（或打印为新的 PDF）后重新上传",
    "msg.parse.pdf_unreadable": "{name} 不是可读取的 PDF（文件损坏或不完整）",
    "msg.parse.empty_file": "{name} 是空文件（0 字节）",
    "msg.parse.old_office": "{name} 是旧版二进制 Office 文件（.doc/.ppt/.xls）或设有密码的 Office 文件；请另存为不带密码的 .docx/.pptx/.xlsx。支持的格式：{supported}",
    "msg.parse.old_office_as": "不是有效的 {label} 文件（不是 zip 压缩包）：它是旧版二进制 Office 文件（.doc/.ppt/.xls）或设有密码的文件；请另存为不带密码的 .{ext}",
    "msg.parse.unsupported": "不支持 {name} 的文件类型（无法识别的二进制内容）；支持的格式：{supported}",
    "msg.ingest.too_large": "“{name}” 大小为 {size_mb} MB，超过上传上限 {limit_mb} MB（设置 parsing.max_upload_mb）",
    "msg.ingest.too_many_chunks": "“{name}” 会切成 {n} 个分块，超过每个文件 {cap} 个的上限（设置 parsing.max_chunks_per_file）：请拆分文件、增大分块或提高上限",
    "msg.ingest.too_many_chunks_at_least": "“{name}” 至少会切成 {n} 个分块，超过每个文件 {cap} 个的上限（设置 parsing.max_chunks_per_file）：请拆分文件、增大分块或提高上限",
    "msg.ingest.cancelled": "已按请求取消",
    "msg.job.parsing": "正在解析 {name}",
    "msg.job.embedding": "正在生成向量",
    "msg.job.chunks": "{n} 个分块",
    "msg.job.reembedding": "正在重新生成向量：{name}",
    "msg.job.reindexing": "正在重建索引：{name}",
}

# each engine's own settings are drawn under the engine's name (its option label)
for _table in (EN, ZH):
    _table.update({key.replace(".web_search_engine.", ".engines."): words for key, words in list(_table.items())
                   if key.startswith("opt.web_search.web_search_engine.")})
