"""Words of the pages that people read instead of raw keys and values (option labels, audit
checks, Drive types, placeholders, stored-message keys), in both languages. Merged into
en.STRINGS / zh.STRINGS (their own keys win)."""

EN: dict[str, str] = {
    "settings.saved_fields": "Saved {section} — {fields}: applies from the next request, no restart.",
    "settings.nothing_changed": "Nothing to save: every value is the one already saved.",
}

ZH: dict[str, str] = {
    "settings.saved_fields": "已保存 {section}（{fields}）：下一次请求即生效，无需重启。",
    "settings.nothing_changed": "没有需要保存的修改：所有值都与已保存的相同。",
}
