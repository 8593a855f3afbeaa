"""The demo's documents in the formats a team brings (generated at load time, never copied): a PDF
with a ruled table, a scanned memo (a picture-only PDF page: only OCR can read it), a Word file
in Chinese with a table, an English slide deck, and a spreadsheet with an English and a Chinese
sheet. Every fact asked in ``questions.jsonl`` is stated in one of them (or in the handbooks).

All of it is about the same fictional company as the handbooks, Northwind Tools.
"""

from __future__ import annotations

from core.demo.office import Slide, scanned_page, slide_deck, word_file, workbook
from core.demo.pdf_writer import PicturePage, TextPage, write_pdf
from core.ingest.service import Upload

OFFICES = [
    ("Office", "Address", "Reception hours", "Help desk phone"),
    ("Lyon", "12 Rue Garibaldi", "8:30-17:30", "+33 4 72 00 10 10"),
    ("Hamburg", "Hafenstrasse 5", "8:00-17:00", "+49 40 555 0120"),
    ("Shanghai", "88 Century Avenue", "9:00-18:00", "+86 21 5555 0188"),
]

VISITOR_MEMO = [
    "NORTHWIND TOOLS - VISITOR POLICY",
    "",
    "Visitors are registered at reception one working day in advance.",
    "Each visitor receives a badge against a deposit of 20 EUR.",
    "The deposit is returned when the badge is handed back.",
    "Visitors may not enter the server rooms.",
]

SECURITY_ZH = [
    "第一条 工作账号的密码至少十二位，须同时包含字母和数字，每九十天更换一次。",
    "第二条 不得把公司文件存放在个人网盘；向公司外部发送客户资料须经部门经理批准。",
    "第三条 收到可疑的钓鱼邮件，应转发给信息安全组后删除，不要点击其中的链接。",
    "各系统的管理部门和备份频率见下表。",
]
SYSTEMS_ZH = [("系统", "管理部门", "备份频率"), ("邮件系统", "信息技术部", "每天"), ("人事系统", "人力资源部", "每周")]

ONBOARDING = [
    Slide("Day 1 - Welcome", ("Pick up your laptop at 9:30 in room B2", "Welcome breakfast with your team lead")),
    Slide("Day 2 - Tools", ("HR portal and leave requests", "Security training at 14:00 in the Atlas room")),
    Slide("Day 5 - Wrap-up", ("Feedback talk with your onboarding buddy",)),
]

CONTACTS = {
    "Contacts": [("Team", "Lead", "Extension", "Email"), ("Payroll", "Mei Chen", "4417", "payroll@northwind.example"),
                 ("Facilities", "Jonas Weber", "4102", "facilities@northwind.example"),
                 ("IT help desk", "Ana Costa", "4000", "helpdesk@northwind.example")],
    "部门分机": [("部门", "负责人", "分机"), ("薪资组", "陈梅", "4417"), ("行政组", "王军", "4102"), ("信息技术服务台", "科斯塔", "4000")],
}


def office_directory_pdf() -> bytes:
    """A text PDF: a title, a sentence, the offices as a ruled table, a sentence after it."""
    page = TextPage()
    page.text(50, 70, "Northwind Tools - Office directory 2026", 16)
    page.text(50, 100, "Our offices, their reception hours and the help desk line of each site.", 11)
    xs, top, row_h = [50, 120, 250, 370, 545], 125, 24
    for r in range(len(OFFICES) + 1):
        page.line(xs[0], top + r * row_h, xs[-1], top + r * row_h)
    for x in xs:
        page.line(x, top, x, top + len(OFFICES) * row_h)
    for r, row in enumerate(OFFICES):
        for c, cell in enumerate(row):
            page.text(xs[c] + 5, top + r * row_h + 16, cell, 10)
    below = top + len(OFFICES) * row_h + 40
    page.text(50, below, "Parking at the Lyon office is reserved for visitors and is booked at reception.", 11)
    return write_pdf([page])


def visitor_policy_scan_pdf() -> bytes:
    """A memo as a scanner delivers it: one picture, no text layer."""
    width, height, pixels = scanned_page(VISITOR_MEMO)
    return write_pdf([PicturePage(width, height, pixels, size=(595.0, 595.0 * height / width))])


def generated_uploads() -> list[Upload]:
    return [
        Upload("office-directory.pdf", office_directory_pdf()),
        Upload("visitor-policy-scan.pdf", visitor_policy_scan_pdf()),
        Upload("信息安全守则.docx", word_file("信息安全守则", SECURITY_ZH, SYSTEMS_ZH)),
        Upload("onboarding-week.pptx", slide_deck("Onboarding week", "Northwind Tools - the first week of a new employee",
                                                  ONBOARDING)),
        Upload("team-contacts.xlsx", workbook(CONTACTS)),
    ]
