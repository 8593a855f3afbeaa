"""Words of the metadata tab (Knowledge Bases) and the Chat page's filter box, in both languages.
Merged into en.STRINGS / zh.STRINGS."""

EN: dict[str, str] = {
    "kbs.tab_metadata": "Metadata",
    "meta.intro": "Typed fields of this knowledge base's files (text, number, date, tags). Filter on them in Chat, "
                  "search and the API; strict mode answers only from files inside the filter.",
    "meta.name": "Field", "meta.kind": "Type", "meta.auto": "Automatic",
    "meta.new_name": "New field name", "meta.add": "Add field", "meta.added": "Field '{name}' added.",
    "meta.delete_pick": "Field to delete", "meta.delete": "Delete field", "meta.deleted": "Field '{name}' deleted.",
    "meta.file": "File", "meta.value_help": "Tags: a|b. Dates: 2025-03-01. Empty: no value.",
    "meta.save": "Save values", "meta.saved": "Values of '{name}' saved.",
    "meta.csv": "Values from a CSV (file, then one column per field)", "meta.import": "Import values",
    "meta.imported": "{n} file(s) updated.", "meta.line": "Line {line}: {message}",
    "meta.read_only": "Only the owner or an admin changes fields and values.",
    "meta.no_files": "No indexed files yet.",
    "chat.filter": "Filter", "chat.filter_help": "Metadata filter, e.g. office=Lisbon; year>=2024; topics=hr|travel",
}
ZH: dict[str, str] = {
    "kbs.tab_metadata": "元数据",
    "meta.intro": "本知识库文件的类型化字段（文本、数字、日期、标签）。可在聊天、检索和 API 中按字段过滤；严格模式只用过滤范围内的文件作答。",
    "meta.name": "字段", "meta.kind": "类型", "meta.auto": "自动",
    "meta.new_name": "新字段名", "meta.add": "添加字段", "meta.added": "已添加字段“{name}”。",
    "meta.delete_pick": "要删除的字段", "meta.delete": "删除字段", "meta.deleted": "已删除字段“{name}”。",
    "meta.file": "文件", "meta.value_help": "标签：a|b。日期：2025-03-01。留空：无值。",
    "meta.save": "保存字段值", "meta.saved": "已保存“{name}”的字段值。",
    "meta.csv": "从 CSV 导入字段值（file 列，之后每个字段一列）", "meta.import": "导入字段值",
    "meta.imported": "已更新 {n} 个文件。", "meta.line": "第 {line} 行：{message}",
    "meta.read_only": "只有所有者或管理员可以修改字段和字段值。",
    "meta.no_files": "还没有已索引的文件。",
    "chat.filter": "过滤", "chat.filter_help": "元数据过滤，例如 office=Lisbon; year>=2024; topics=hr|travel",
}
