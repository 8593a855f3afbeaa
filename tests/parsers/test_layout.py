from core.parsers.layout import Box, reading_text


def _line_boxes(x0: float, x1: float, top: float, texts: list[str], height: float = 48, step: float = 52) -> list[Box]:
    return [Box(x0, top + i * step, x1, top + i * step + height, t) for i, t in enumerate(texts)]


LEFT = [f"left column sentence number {i} continues" for i in range(6)]
RIGHT = [f"right column sentence number {i} continues" for i in range(6)]


def test_narrow_gutter_between_ocr_line_boxes_still_splits_columns():
    # OCR line boxes ~48 px high with a 30 px gutter (a narrow journal layout)
    boxes = _line_boxes(200, 1200, 300, LEFT) + _line_boxes(1230, 2230, 300, RIGHT)
    boxes.append(Box(200, 100, 2230, 160, "Title across both columns"))
    text = reading_text(boxes)
    order = [text.index(t) for t in ["Title across", *LEFT, *RIGHT]]
    assert order == sorted(order), text


def test_label_value_rows_are_not_taken_for_columns():
    labels = ["Name:", "Phone:", "City:", "Country:"]
    values = ["Zhang Wei", "+86 10 1234 5678", "Beijing", "China"]
    boxes = _line_boxes(100, 260, 100, labels, height=20, step=26) + _line_boxes(400, 700, 100, values, height=20, step=26)
    lines = reading_text(boxes).splitlines()
    assert lines[:4] == ["Name: Zhang Wei", "Phone: +86 10 1234 5678", "City: Beijing", "Country: China"]


def test_aligned_word_gap_in_a_two_line_paragraph_does_not_split_it():
    # two justified lines whose inter-word gaps happen to line up
    boxes = [
        Box(100, 100, 400, 120, "the first half of line one"), Box(412, 100, 700, 120, "and its second half"),
        Box(100, 126, 400, 146, "the first half of line two"), Box(412, 126, 700, 146, "and its other half"),
    ]
    assert reading_text(boxes).splitlines() == [
        "the first half of line one and its second half",
        "the first half of line two and its other half",
    ]


def test_table_block_keeps_its_place_between_paragraphs():
    boxes = _line_boxes(100, 900, 100, ["Paragraph before the table, long enough to read."], height=20)
    boxes.append(Box(100, 200, 900, 300, "| a | b |\n| --- | --- |\n| 1 | 2 |", is_block=True))
    boxes += _line_boxes(100, 900, 340, ["Paragraph after the table, long enough to read."], height=20)
    assert reading_text(boxes).split("\n\n") == [
        "Paragraph before the table, long enough to read.",
        "| a | b |\n| --- | --- |\n| 1 | 2 |",
        "Paragraph after the table, long enough to read.",
    ]
