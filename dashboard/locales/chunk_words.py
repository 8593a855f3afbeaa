"""Words of the chunk editor (File Manager), in both languages. Merged into en.STRINGS / zh.STRINGS."""

EN: dict[str, str] = {
    "chunks.title": "Chunks", "chunks.file": "File", "chunks.none": "No indexed knowledge-base file to show.",
    "chunks.help": "Edit, disable or add chunks: an edit is searched at once; a disabled chunk is never retrieved "
                   "(strict mode refuses what only it answered). Keywords help the keyword (BM25) search find a chunk.",
    "chunks.read_only": "You may read this file's chunks; only the knowledge base's owner or an admin may change them.",
    "chunks.filter": "Find in chunks", "chunks.page": "Page (of {n})",
    "chunks.state.edited": "edited", "chunks.state.added": "added", "chunks.disabled": "disabled",
    "chunks.text": "Text", "chunks.keywords": "Keywords (comma-separated)", "chunks.save": "Save chunk",
    "chunks.disable": "Disable", "chunks.enable": "Enable", "chunks.original": "The file's own text",
    "chunks.saved": "Chunk #{n} saved and re-indexed.", "chunks.disabled_done": "Chunk #{n} disabled.",
    "chunks.enabled_done": "Chunk #{n} enabled.", "chunks.unchanged": "Nothing changed.",
    "chunks.add": "Add a chunk", "chunks.add_button": "Add chunk", "chunks.added": "Chunk #{n} added.",
    "chunks.history": "Edit history", "chunks.no_history": "No edits yet.",
    "chunks.col.when": "When", "chunks.col.who": "Who", "chunks.col.action": "Action", "chunks.col.chunk": "Chunk",
    "chunks.col.note": "Note",
}

ZH: dict[str, str] = {
    "chunks.title": "分块", "chunks.file": "文件", "chunks.none": "没有可显示的已索引知识库文件。",
    "chunks.help": "编辑、停用或添加分块：编辑后立即可被检索；停用的分块不会被检索到（严格模式下仅由它回答的问题将得到固定回复）。"
                   "关键词帮助关键词（BM25）检索找到分块。",
    "chunks.read_only": "你可以查看此文件的分块；只有知识库所有者或管理员可以修改。",
    "chunks.filter": "在分块中查找", "chunks.page": "页码（共 {n} 页）",
    "chunks.state.edited": "已编辑", "chunks.state.added": "手动添加", "chunks.disabled": "已停用",
    "chunks.text": "文本", "chunks.keywords": "关键词（逗号分隔）", "chunks.save": "保存分块",
    "chunks.disable": "停用", "chunks.enable": "启用", "chunks.original": "文件原文",
    "chunks.saved": "分块 #{n} 已保存并重新索引。", "chunks.disabled_done": "分块 #{n} 已停用。",
    "chunks.enabled_done": "分块 #{n} 已启用。", "chunks.unchanged": "没有改动。",
    "chunks.add": "添加分块", "chunks.add_button": "添加", "chunks.added": "分块 #{n} 已添加。",
    "chunks.history": "编辑历史", "chunks.no_history": "尚无编辑。",
    "chunks.col.when": "时间", "chunks.col.who": "操作人", "chunks.col.action": "操作", "chunks.col.chunk": "分块",
    "chunks.col.note": "说明",
}
