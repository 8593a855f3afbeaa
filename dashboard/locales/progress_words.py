"""Progress and timings as people read them, in both languages (issue 36): a job's step (a message
key and its values from core/messages.py) is worded here with its counter — ``{done}`` and
``{total}`` are the job's own — so a line reads "reading page 39 of 120", not "page 39 of 120
(38/120)". ``{n:one|other}`` picks the English word for a count (dashboard/i18n.py). Merged
into en.STRINGS / zh.STRINGS after page_words (these win for the same key)."""

EN: dict[str, str] = {
    "msg.job.waiting": "waiting for a worker",
    "msg.job.parsing": "parsing {name}",
    "msg.job.embedding": "embedding: {done} of {total} {total:chunk|chunks}",
    "msg.job.reembedding": "re-embedding {name}: {done} of {total} {total:chunk|chunks} of the knowledge base",
    "msg.job.reindexing": "reindexing {name}: {done} of {total} {total:chunk|chunks}",
    "msg.job.chunks": "{n} {n:chunk|chunks}",
    "msg.pdf.text_layer": "checking the text layer of page {page} of {pages}",
    "msg.pdf.scanned_ahead": "reading the scanned pages ahead",
    "msg.pdf.page": "reading page {page} of {pages}",
    "msg.pdf.ocr": "reading page {page} of {pages} by OCR",
    "msg.pdf.pictures": "page {page} of {pages}: reading {n} {n:picture|pictures} by OCR",
    "msg.pdf.done": "all {pages} {pages:page|pages} read",
    "msg.image.ocr": "reading image {n} of {total} by OCR",
    "msg.image.done": "OCR done",
    "msg.pptx.slide": "reading slide {n} of {total}",
    "msg.pptx.done": "all slides read",
    # a Drive sync's changes, as it applies them
    "msg.sync.added": "added {name} ({done} of {total})", "msg.sync.updated": "updated {name} ({done} of {total})",
    "msg.sync.renamed": "renamed {name} ({done} of {total})", "msg.sync.removed": "removed {name} ({done} of {total})",
    "msg.sync.failed": "{name} failed ({done} of {total})", "msg.sync.cancelled": "{name} cancelled ({done} of {total})",
    "msg.sync.duplicate": "{name} already present ({done} of {total})",
    "msg.sync.skipped": "{name} skipped ({done} of {total})",
    # the retrieval test's timings (core/retrieval/search.py), in milliseconds
    "timing.embed_query": "embedding the query", "timing.recall": "recall", "timing.rerank": "rerank",
    "timing.total": "total", "timing.ms": "{name} {ms} ms",
    # an answer's steps as they happen (the chat's status line)
    "ev.searching": "searching the knowledge base", "ev.found": "{n} {n:source|sources} found",
    "ev.no_hit": "nothing in the knowledge base passed the threshold", "ev.asking": "asking {model}",
    "ev.quoting": "quoting the knowledge base (no language model configured)", "ev.searched_as": "searched as: {query}",
    "ev.curated": "a curated answer matches the question",
}

ZH: dict[str, str] = {
    "msg.job.waiting": "等待空闲的处理进程",
    "msg.job.parsing": "正在解析 {name}",
    "msg.job.embedding": "正在生成向量：已完成 {done}/{total} 个分块",
    "msg.job.reembedding": "正在重新生成向量：{name}（知识库共 {total} 个分块，已完成 {done} 个）",
    "msg.job.reindexing": "正在重建索引：{name}（已完成 {done}/{total} 个分块）",
    "msg.job.chunks": "{n} 个分块",
    "msg.pdf.text_layer": "正在检查文字层：第 {page} 页，共 {pages} 页",
    "msg.pdf.scanned_ahead": "正在预读扫描页",
    "msg.pdf.page": "正在读取第 {page} 页，共 {pages} 页",
    "msg.pdf.ocr": "正在用 OCR 识别第 {page} 页，共 {pages} 页",
    "msg.pdf.pictures": "第 {page} 页（共 {pages} 页）：正在用 OCR 识别 {n} 张图片",
    "msg.pdf.done": "{pages} 页已全部读取",
    "msg.image.ocr": "正在用 OCR 识别第 {n} 张图片，共 {total} 张",
    "msg.image.done": "OCR 识别完成",
    "msg.pptx.slide": "正在读取第 {n} 张幻灯片，共 {total} 张",
    "msg.pptx.done": "幻灯片已全部读取",
    "msg.sync.added": "已添加 {name}（{done}/{total}）", "msg.sync.updated": "已更新 {name}（{done}/{total}）",
    "msg.sync.renamed": "已重命名 {name}（{done}/{total}）", "msg.sync.removed": "已移除 {name}（{done}/{total}）",
    "msg.sync.failed": "{name} 失败（{done}/{total}）", "msg.sync.cancelled": "{name} 已取消（{done}/{total}）",
    "msg.sync.duplicate": "{name} 已存在（{done}/{total}）", "msg.sync.skipped": "已跳过 {name}（{done}/{total}）",
    "timing.embed_query": "查询向量化", "timing.recall": "召回", "timing.rerank": "重排序",
    "timing.total": "合计", "timing.ms": "{name} {ms} 毫秒",
    "ev.searching": "正在检索知识库", "ev.found": "找到 {n} 条来源",
    "ev.no_hit": "知识库中没有内容达到阈值", "ev.asking": "正在询问 {model}",
    "ev.quoting": "正在摘录知识库原文（未配置大模型）", "ev.searched_as": "检索语句：{query}",
    "ev.curated": "找到与问题匹配的审定答案",
}
