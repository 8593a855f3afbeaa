"""What a question asks for, and whether a passage states something of that kind.

"What is the hotel *cap* per night?" is answered by "Hotel, capital cities: 180 EUR per night": the
passage never says "cap", it gives the amount. Words that name the kind of value asked for —
*attribute words*: cap, rate, price, weight, 上限, 租金, 时长 — are not things the passage must
mention; they ask for a value, and the passage must state a value of that kind: a price needs an
amount of money, a weight a weight, "how long" a duration or a length, "how many" a number. The
question words are read the same way ("how much does it weigh", 多久, 几天). Everything else the
question names (interns, a motorbike, 外包人员) must still be mentioned (``answerable.py``).

The word lists are general vocabulary, written from the languages, not from any question set:
the nouns English and Chinese use to name an amount, a duration, a date, a measure, and the units
that state one.
"""

from __future__ import annotations

import re
from typing import Literal

Wanted = Literal["quantity", "money", "duration", "length", "weight", "percentage", "date", "place"]

_EN = {
    "quantity": "amount amounts number numbers count total quantity maximum minimum max min cap caps ceiling limit "
                "limits threshold capacity level levels value values figure figures sum quota range size dimension "
                "dimensions volume resolution speed temperature allowance allowances credit credits rate rates",
    "money": "price prices cost costs fee fees charge charges tariff rent salary wage wages pay payment budget "
             "reimbursement compensation penalty fine fines deposit",
    "duration": "duration period length lifetime interval frequency",
    "length": "width height depth thickness distance",
    "weight": "weight",
    "percentage": "percentage percent share proportion ratio discount",
    "date": "date dates day deadline time",
}
_ZH = {
    "quantity": "上限 下限 最高 最低 最多 最少 最大 最小 额度 限额 数量 数目 次数 人数 标准 等级 级别 范围 数值 速度 温度 容量 "
                "规格 尺寸 大小 补贴 津贴",
    "money": "金额 费用 价格 价钱 价位 收费 租金 工资 薪资 报酬 预算 罚款 押金 月租",
    "duration": "天数 时长 期限 时限 周期 频率 多久 最长 最短",
    "length": "高度 宽度 长度 厚度 深度 距离",
    "weight": "重量",
    "percentage": "比例 比率 百分比 折扣",
    "date": "日期 时候 时间点 截止日期 时间",
}
ATTRIBUTES: dict[str, Wanted] = {w: kind for table in (_EN, _ZH) for kind, words in table.items()  # type: ignore[misc]
                                 for w in words.split()}

# Question words that ask for a value, most specific first.
_ASKS: list[tuple[Wanted, re.Pattern]] = [
    ("money", re.compile(r"\b(how much|what) (does|do|did|will|would|is|are|was)\b.*\b(cost|pay|charge|spend)|多少钱|什么价|价钱"
                         # "how many euros", 多少元: the unit of the count says the kind
                         r"|\bhow many (?:euros?|dollars?|yuan|rmb|cents?)\b|(?:多少|几)(?:个)?(?:欧元|美元|元|块钱)", re.I)),
    ("weight", re.compile(r"\bhow (heavy|much does .* weigh)|\bweigh(s|ed)?\b|多重|多沉"
                          r"|\bhow many (?:kilo(?:gram)?s|kg|grams|g|tons|tonnes|lbs)\b|(?:多少|几)(?:公斤|千克|克|斤|吨)", re.I)),
    ("percentage", re.compile(r"\bwhat percentage\b|\bhow many per ?cent\b|百分之几|百分之多少|几成|多少比例", re.I)),
    ("length", re.compile(r"\bhow (far|wide|tall|high|deep|thick|big|large)\b|多远|多宽|多高|多深|多厚|多大"
                          r"|\bhow many (?:met(?:re|er)s|kilomet(?:re|er)s|km|centimet(?:re|er)s|cm|millimet(?:re|er)s|mm|"
                          r"miles|feet|inches)\b|(?:多少|几)(?:米|公里|千米|厘米|毫米|公分)", re.I)),
    # "how long" and 多长 take a duration or a length (states() accepts both)
    ("duration", re.compile(r"\bhow (long|soon|often|quickly|fast)\b|\bwithin how\b|多久|多长|几天|几个月|几年|几周|几小时|几分钟|多少天|多少小时|多少分钟", re.I)),
    # 在哪一年 asks for a year, 在哪一集 for an episode: 在哪 is "where" only before no measure word
    ("place", re.compile(r"\bwhere\b|哪里|哪儿|在哪(?![一年天日月集次期位种届场])|何处|什么地方|哪个地方", re.I)),
    ("quantity", re.compile(r"\bhow (many|much)\b|多少|几(?![号点月])", re.I)),
    # "when" as the question's own word (at its start), not "the rate *when* a colleague rides along"
    ("date", re.compile(r"^\W*(?:and |so |then )?(?:by |until |since )?when\b|\bwhat (date|day|time)\b|\bwhich (date|day)\b"
                        r"|何时|什么时候|哪天|哪一天|几号|几点|几月|哪个月|哪年|哪一年|哪一月", re.I)),
]

_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
                 r"sixty|hundred|thousand|half|twice|once|double|dozen")
# A stated number: digits not part of a name (L7, 2.4GHz, P1 are names) and not an ordinal (第三条,
# Article 12), Chinese numerals before a measure word or unit (looked ahead, so a unit pattern after
# the number still sees 天 in 三天), English number words.
_ZH_MEASURE = "个张次份位名条项件台把枚套家种类组批间座辆本篇页块天日晚年月周小时分钟秒元米克斤吨度倍成人岁等级档星号层"
_NUM = (rf"(?:(?<![A-Za-z\d.第])(?<!article )(?<!section )\d+(?:[.,]\d+)*(?![A-Za-z\d]|[.,]\d)"
        rf"|(?<![第零〇一二两三四五六七八九十百千万半])(?:[零〇一二两三四五六七八九十百千]+点[零〇一二三四五六七八九]+"
        rf"(?=[{_ZH_MEASURE}]|公里|公斤|厘米|毫米|立方|平方)|[零〇一二两三四五六七八九十百千万半]{{2,}}|"
        rf"[零〇一二两三四五六七八九十百千万半](?=[{_ZH_MEASURE}]|个月|分之|学时|课时|工作日|公里|公斤|厘米|毫米))"
        rf"|\b(?:{_NUMBER_WORDS})\b)")
_STATES: dict[str, re.Pattern] = {
    "quantity": re.compile(_NUM, re.I),
    "money": re.compile(r"[€$¥£]|\b(eur|euros?|usd|dollars?|rmb|cny|yuan|gbp|pounds?|cents?)\b|元|欧元|美元|人民币|块钱", re.I),
    "duration": re.compile(rf"{_NUM}[\s-]*(?:\w+\s)?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|"
                           r"working days?|business days?|nights?|quarters?)\b|" + _NUM +
                           r"\s*(?:个)?(?:秒|分钟|小时|天|日|周|星期|个月|月|年|工作日|晚|学时|季度)"
                           r"|\b(daily|nightly|weekly|fortnightly|monthly|annually|yearly|quarterly|immediately|same day|next day)\b"
                           # how often: "every second Thursday", "every other week", "each Monday"
                           r"|\b(?:every|each)\s+(?:other\s+|second\s+|third\s+|fourth\s+|\d+(?:st|nd|rd|th)?\s+)?"
                           r"(?:day|week|month|year|quarter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
                           r"|当天|次日|当日|立即|随时|每[天日周月年]"
                           # a span of years or centuries: "from 1870 to 1939", "1350至1490年间", "into the 19th century"
                           r"|\b(?:from\s+)?\d{3,4}\s*(?:to|until|till|through|–|—|-)\s*\d{2,4}\b|\d{3,4}年?(?:至|到|—|-)\d{2,4}年"
                           r"|\b(?:until|till|into)\s+the\s+(?:\w+\s+)?(?:\d+(?:st|nd|rd|th)|\w+th)\s+century\b", re.I),
    "length": re.compile(rf"{_NUM}\s*(?:mm|cm|km|m|metres?|meters?|inch(?:es)?|ft|feet|毫米|厘米|公分|公里|千米|米|寸)"
                         r"(?![a-z])", re.I),
    "weight": re.compile(rf"{_NUM}\s*(?:g|kg|grams?|kilograms?|kilos?|tons?|tonnes?|lbs?|pounds?|克|千克|公斤|斤|吨)(?![a-z])",
                         re.I),
    "percentage": re.compile(r"%|％|\bper ?cent\b|百分之|[一二三四五六七八九]成|[0-9.]+\s*折", re.I),
    "place": re.compile(r"\b(room|floor|building|office|desk|street|road|hall|level|site|reception|counter|portal|"
                        r"website|page|campus|warehouse|address)\b|[A-Z]\d{1,4}\b|\d+(?:st|nd|rd|th) floor|室|楼|层|"
                        r"街|路|大厦|办公室|前台|服务台|网站|平台|门口|地址|仓库|中心|窗口"
                        # a named place after a word of location: "in Ogród Saski", "traced to Persia", 位于华沙
                        r"|\b(?:in|at|on|near|to|from|into|across|along|through|throughout|within|between|inside|"
                        r"outside|beside|located|situated|based)\s+(?:the\s+)?"
                        r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                        r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b)[A-Z][\w'-]+"
                        r"|位于|设在|坐落|地处"),
    # a date may be an event's (自发布之日起施行, "from the date of signature", "upon approval")
    "date": re.compile(r"\d|[一二三四五六七八九十][月日号]|周[一二三四五六日末]|星期|月底|月初|年底|年初|工作日|当天|次日"
                       r"|之日|即日起|\b(?:upon|from the date of|on the date of|as of the date of)\b"
                       # a time said by what it comes with: "at the end of World War I", "occurs when the
                       # immune system is less active", "on the day of delivery", 入职满一年后, 战争期间
                       r"|\b(?:during|when|whenever|since|at the (?:end|start|beginning|time|height|close) of|"
                       r"(?:on )?the day of|in (?:the )?(?:spring|summer|autumn|fall|winter))\b"
                       r"|之前|以前|之后|以后|期间|之际|时候|满[^，。；,;]{1,8}后|时[，,]"
                       r"|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekends?|weekdays?|january|"
                       r"february|march|april|may|june|july|august|september|october|november|december|daily|weekly|"
                       r"monthly|annually|yearly|quarterly|immediately|before|after|within|until)\b", re.I),
}


_WHO = re.compile(r"\b(who|whom|whose)\b|谁|哪位|何人|哪个部门|哪个单位|哪个机构", re.I)


def asked_for(question: str) -> Wanted | None:
    """The kind of value the question's wording asks for (its attribute words are read by
    ``answerable``): money for "how much does it cost" / 多少钱, a duration for "how long" / 多久, a
    date for "when" / 何时, a number for "how many" / 多少 / 几; nothing for "who" / 谁."""
    if _WHO.search(question):
        return None
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    return None


def states(text: str, wanted: Wanted) -> bool:
    """Whether ``text`` states a value of the kind asked for ("how long" takes a length too)."""
    return bool(value_spans(text, wanted))


def value_spans(text: str, wanted: Wanted) -> list[tuple[int, int]]:
    """Where ``text`` states values of the kind asked for."""
    kinds = [wanted, "length"] if wanted == "duration" else [wanted]
    return [m.span() for kind in kinds for m in _STATES[kind].finditer(text)]


def attribute_kind(term: str) -> Wanted | None:
    """The kind of value an attribute word asks for, None for any other word."""
    return ATTRIBUTES.get(term)


def more_specific(current: Wanted | None, new: Wanted | None) -> Wanted | None:
    """Of two kinds read from one question, the more telling one ("how much is the *fee*": money)."""
    if current in (None, "quantity"):
        return new or current
    return current
