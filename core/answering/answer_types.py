"""What a question asks for, and whether a passage states something of that kind.

"What is the hotel *cap* per night?" is answered by "Hotel, capital cities: 180 EUR per night": the
passage never says "cap", it gives the amount. Words that name the kind of value asked for —
*attribute words*: cap, rate, price, 上限, 租金, 时长 — are not things the passage must mention; they
ask for a value, and the passage must state a value of that kind. The same holds for the question
words themselves ("how many", 多久, 几天). Everything else the question names (interns, a
motorbike, 外包人员) must still be mentioned (``coverage.py``).

The word lists are general vocabulary, written from the languages, not from any question set:
the nouns English and Chinese use to name an amount, a duration, a date, a measure.
"""

from __future__ import annotations

import re
from typing import Literal

Wanted = Literal["quantity", "date"]

# Attribute nouns: the kind of value asked for.
EN_ATTRIBUTES: dict[str, Wanted] = {w: "quantity" for w in (
    "amount amounts number numbers count total quantity maximum minimum max min cap caps ceiling limit limits "
    "threshold price prices cost costs fee fees rate rates charge charges tariff rent salary wage pay payment "
    "duration period length time times deadline frequency interval percentage percent share proportion ratio "
    "size dimension dimensions width height depth thickness weight capacity distance speed temperature "
    "volume resolution range level levels value values figure figures sum budget allowance allowances "
    "reimbursement compensation discount penalty fine credit credits quota ceiling").split()}
EN_ATTRIBUTES.update({w: "date" for w in "date dates day deadline time".split()})
ZH_ATTRIBUTES: dict[str, Wanted] = {w: "quantity" for w in (
    "上限 下限 最高 最低 最多 最少 最长 最短 最大 最小 金额 费用 价格 价钱 价位 收费 标准 额度 限额 数量 数目 次数 "
    "天数 人数 时长 时间 期限 时限 周期 频率 比例 比率 百分比 尺寸 大小 规格 重量 高度 宽度 长度 厚度 深度 距离 "
    "速度 温度 容量 等级 级别 租金 工资 薪资 补贴 津贴 报酬 金额数 预算 罚款 折扣 多久 长短 范围 数值 标准是").split()}
ZH_ATTRIBUTES.update({w: "date" for w in "日期 时候 时间点 截止日期".split()})

# Question words that ask for a value.
_EN_QUANTITY = re.compile(r"\bhow\s+(many|much|long|often|far|big|large|fast|old|soon|high|wide|heavy|tall|quickly)\b"
                          r"|\bwithin how\b|\bwhat percentage\b", re.I)
_EN_DATE = re.compile(r"\bwhen\b|\bwhat (date|day|time)\b|\bwhich (date|day)\b|\bby when\b", re.I)
_ZH_QUANTITY = re.compile(r"多少|几|多久|多长|多大|多高|多远|多快|多重|多宽|多厚|多深|百分之几")
_ZH_DATE = re.compile(r"何时|什么时候|哪天|哪一天|几号|几点|几月|哪个月|哪年")

# A stated value: digits, Chinese numerals, English number words, weekdays and months.
_VALUE = re.compile(
    r"\d|[零〇一二两三四五六七八九十百千万半]"
    r"|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"sixty|hundred|thousand|half|twice|once|double|dozen)\b", re.I)
_DATE = re.compile(
    r"\d|[一二三四五六七八九十][月日号]|周[一二三四五六日末]|星期|月底|月初|年底|年初|工作日|当天|次日"
    r"|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekday|january|february|march|april|"
    r"may|june|july|august|september|october|november|december|daily|weekly|monthly|annually|yearly|quarterly|"
    r"immediately|before|after|within|until|by)\b", re.I)


def asked_for(question: str) -> Wanted | None:
    """The kind of value the question's wording asks for (its attribute words are read by
    ``coverage``): "quantity" for how many / how long / 多少 / 几, "date" for when / 何时."""
    if _EN_QUANTITY.search(question) or _ZH_QUANTITY.search(question):
        return "quantity"
    if _EN_DATE.search(question) or _ZH_DATE.search(question):
        return "date"
    return None


def states(text: str, wanted: Wanted) -> bool:
    """Whether ``text`` states a value of the kind asked for."""
    return bool((_VALUE if wanted == "quantity" else _DATE).search(text))


def attribute_kind(term: str) -> Wanted | None:
    """The kind of value an attribute word asks for, None for any other word."""
    return EN_ATTRIBUTES.get(term) or ZH_ATTRIBUTES.get(term)
