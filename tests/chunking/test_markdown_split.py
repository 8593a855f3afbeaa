"""Step 3: Markdown header split with heading paths."""

from __future__ import annotations

import re

from core.chunking.markdown_split import split_markdown


def sections(text: str) -> list[tuple[tuple[str, ...], str]]:
    return [(s.heading_path, text[s.start : s.end].strip()) for s in split_markdown(text)]


def test_heading_paths_follow_the_levels():
    text = "intro\n# A\na\n## B\nb\n### C\nc\n## D\nd\n# E\ne"
    assert sections(text) == [
        ((), "intro"),
        (("A",), "# A\na"),
        (("A", "B"), "## B\nb"),
        (("A", "B", "C"), "### C\nc"),
        (("A", "D"), "## D\nd"),
        (("E",), "# E\ne"),
    ]


def test_all_six_levels_are_headings_and_closing_hashes_are_dropped():
    text = "\n".join(f"{'#' * n} 标题{n} {'#' * n}\n正文{n}" for n in range(1, 7))
    paths = [s.heading_path for s in split_markdown(text)]
    assert paths[-1] == tuple(f"标题{n}" for n in range(1, 7))
    assert len(paths) == 6


def test_hashes_inside_code_blocks_are_not_headings():
    text = "# Setup\nrun:\n```bash\n# a comment\nls\n```\n## Next\nmore"
    assert [p for p, _ in sections(text)] == [("Setup",), ("Setup", "Next")]


def test_a_heading_only_section_joins_the_next_one():
    text = "# 规则\n\n## 第一章 总则\n第一条 正文。\n## 第二章\n第二条 正文。"
    assert sections(text) == [
        (("规则", "第一章 总则"), "# 规则\n\n## 第一章 总则\n第一条 正文。"),  # the path of its text (issue 36)
        (("规则", "第二章"), "## 第二章\n第二条 正文。"),
    ]


def test_a_bare_heading_at_the_end_is_kept():
    assert sections("# A\ntext\n## Tail") == [(("A",), "# A\ntext"), (("A", "Tail"), "## Tail")]


def test_sections_cover_every_character_in_order():
    text = "pre\n\n# A\n\na text\n\n## B\n\n```\n# x\n```\n\n# C\n\n# D\n\nend\n"
    covered = "".join(text[s.start : s.end] for s in split_markdown(text))
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)
