"""Words of the assistant picker (Chat, Strict A/B), in both languages. Merged into en.STRINGS / zh.STRINGS."""

EN: dict[str, str] = {
    "assistants.pick": "Assistant", "assistants.none": "None (knowledge bases below)",
    "assistants.mode.strict": "strict", "assistants.mode.normal": "normal",
    "assistants.caption": "Answers from {kbs} in {mode} mode, with this assistant's thresholds, prompt and refusal text.",
    "assistants.all_kbs": "every knowledge base you may read",
    "assistants.hidden": "{n} of its knowledge bases are not readable by you and are not searched.",
    "assistants.filter": "Only files matching its filter: {where}",
}

ZH: dict[str, str] = {
    "assistants.pick": "助手", "assistants.none": "不使用（在下方选择知识库）",
    "assistants.mode.strict": "严格", "assistants.mode.normal": "普通",
    "assistants.caption": "以{mode}模式从 {kbs} 作答，使用该助手的阈值、提示词和拒答文本。",
    "assistants.all_kbs": "你可访问的全部知识库",
    "assistants.hidden": "其中 {n} 个知识库你无权访问，不会被检索。",
    "assistants.filter": "只检索符合其过滤条件的文件：{where}",
}
