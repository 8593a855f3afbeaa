"""Foreign names written by sound: 胡格诺 is "Huguenot", 杰克逊维尔 "Jacksonville", 普利斯特里 "Priestley".

Chinese writes a foreign name with characters chosen for their sound, from a small stock (the
transliteration table's 阿, 克, 斯, 尔, 维…). No dictionary holds every such name (CC-CEDICT has
杰克逊 "Jackson" but not 杰克逊维尔, nor 胡格诺), so strict mode refused questions naming a person or
place that the passage names in the other language. Both spellings are reduced to a skeleton of
consonant classes — the sounds a transliteration keeps (b/p, m, f/v/w, d/t, n, l/r, g/k/h, and
the sibilants s/z/j/x/zh/ch/sh) — and compared: 杰克逊维尔 jie ke xun wei er and Jacksonville are
both S K S N F L. A short skeleton says little: two sounds must match exactly (in a Chinese text,
a whole run of sound characters), three allow one English sound the Chinese leaves out (Huguenot's
silent t), four a sound dropped on either side or m for n (辛普森 / Simpson), five and more any one
sound (威尔海姆 / Wilhelm).
A syllable may write more than one sound: 希 xi is the "Hi" of Hill, 加 jia the "Ca" of Canary.
A name is looked up in the dictionaries first; its sound is the fallback (and CC-CEDICT spells 忽必烈
"Khubilai", a text "Kublai").
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache

from core.retrieval.bilingual import lexicon

# Characters Chinese writes foreign names with (the Xinhua transliteration table's common ones).
# 于 is left out: it is "at" far more often than a sound (a name is not joined with the word before it).
TRANSLITERATION_CHARS = frozenset(
    "阿埃艾爱安昂奥澳巴拜班邦鲍贝本彼毕庇宾滨波玻伯博勃布查柴彻楚茨达戴丹德登邓狄迪蒂丁东杜敦顿朵厄恩尔"
    "法凡范菲斐费芬冯佛夫弗伏福富盖甘冈戈哥格葛根贡古瓜圭桂郭哈海汉杭豪浩赫亨洪侯胡华怀惠霍基吉季加"
    "迦贾简杰捷金津卡凯坎康考柯科克肯孔库夸奎昆拉腊莱赖兰朗劳勒雷蕾黎里丽利莉列林琳凌留柳隆卢鲁伦罗"
    "洛吕马玛迈麦曼芒梅门蒙孟米缅缪摩莫墨默姆穆纳娜奈南瑙内妮尼涅宁纽努诺欧帕派潘庞培佩彭皮珀坡普浦"
    "奇齐契恰乔切钦琴琼丘瑞若撒萨塞赛桑瑟森沙莎尚绍舍什施舒斯丝松苏索塔泰坦汤唐陶特提廷图托瓦旺威韦"
    "维温翁沃乌伍西希锡席夏谢辛欣休雅亚扬耶伊依因尤约泽扎詹兹芝朱卓孜逊茵萝黛薇露琪娅妲雯翰芙蓓斡比多")

# What a name is followed by to say what it names (胡格诺派: the Huguenot sect, 波兰人队: a team)
NAME_KINDS = frozenset("派人族队河山城州市县省岛湖街港湾")

_INITIALS = (("zh", "S"), ("ch", "S"), ("sh", "S"), ("b", "P"), ("p", "P"), ("m", "M"), ("f", "F"), ("w", "F"),
             ("d", "T"), ("t", "T"), ("n", "N"), ("l", "L"), ("r", "L"), ("g", "K"), ("k", "K"), ("h", "K"),
             ("j", "S"), ("q", "S"), ("x", "S"), ("z", "S"), ("c", "S"), ("s", "S"), ("y", ""))
_MAX_READINGS = 16  # skeletons tried for a name of characters with several readings
_LONGEST_GLUED = 4  # characters of a dictionary word glued to a name


def transliterated(word: str) -> bool:
    """Whether every character of ``word`` is one Chinese writes foreign names with."""
    return len(word) >= 2 and all(c in TRANSLITERATION_CHARS for c in word)


def _syllable_sounds(syllable: str) -> tuple[str, ...]:
    """What a syllable may write: 逊 xun "son"; 希 xi the "Hi" of Hill as well as "Si"."""
    if syllable == "er":
        return ("L",)  # 尔: the r of Carl, Kearney
    for initial, sound in _INITIALS:
        if syllable.startswith(initial):
            final = syllable[len(initial):]
            break
    else:
        initial, sound, final = "", "", syllable
    nasal = "N" if final.endswith(("n", "ng")) else ""  # 根 gen
    sounds = [sound + nasal]
    if initial in ("x", "j", "q"):
        sounds.append("K" + nasal)  # 休斯 Hughes, 希尔 Hill, 加那利 Canary, 基隆 Keelung: older g/k/h sounds
    elif initial == "w" and syllable == "wu":
        sounds.append(nasal)  # 乌 the vowel of Uppsala
    return tuple(sounds)


@lru_cache(maxsize=4096)
def chinese_skeletons(word: str) -> frozenset[str]:
    """The consonant skeletons of a name written in Chinese, one per combination of readings."""
    lex = lexicon()
    sounds = [tuple(dict.fromkeys(s for r in lex.reading(c) for s in _syllable_sounds(r))) for c in word]
    if not all(sounds):
        return frozenset()
    combos = itertools.islice(itertools.product(*sounds), _MAX_READINGS)
    return frozenset("".join(combo) for combo in combos)


_LATIN_STEPS = (
    (re.compile(r"sch|tch|sh|ch|j|z"), "S"),
    (re.compile(r"ph|wh|v|w|f"), "F"),
    (re.compile(r"th|d|t"), "T"),
    (re.compile(r"x"), "KS"),
    (re.compile(r"ck|kh|qu|q|k"), "K"),
    (re.compile(r"gh"), ""),
    (re.compile(r"ng$"), "N"),
    (re.compile(r"c(?=[eiy])"), "S"),
    (re.compile(r"c|g"), "K"),
    (re.compile(r"^h|(?<=[aeiouylnm])h(?=[aeiouy])"), "K"),  # a sounded h: Huguenot, Anaheim, Wilhelm; not Rhine's
    (re.compile(r"s"), "S"),
    (re.compile(r"b|p"), "P"),
    (re.compile(r"m"), "M"),
    (re.compile(r"n"), "N"),
    (re.compile(r"l|r"), "L"),
)


@lru_cache(maxsize=65_536)
def latin_skeleton(word: str) -> str:
    """The consonant skeleton of a name written in Latin letters (Jacksonville: SKSNFL)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if c.isascii() and c.isalpha())
    plain = re.sub(r"(.)\1", r"\1", plain)  # a doubled letter is one sound (ll, ss, tt)
    for pattern, sound in _LATIN_STEPS:
        plain = pattern.sub(sound, plain)
    # two letters of one sound class together are one sound (the rl of Carl: 卡尔)
    return "".join(c for c in re.sub(r"([A-Z])\1+", r"\1", plain) if c.isupper())


def skeletons_match(chinese: str, latin: str) -> bool:
    """Whether a Chinese name's skeleton and a Latin one are the same name said in two scripts."""
    if not chinese or not latin:
        return False
    if chinese == latin:
        return True
    short = min(len(chinese), len(latin))
    if short < 3:
        return False
    if short == 3:  # one English sound the Chinese leaves out: Huguenot's t (胡格诺), Victoria's c (维多利亚)
        return len(latin) == len(chinese) + 1 and _one_edit(chinese, latin)
    return _one_edit(chinese, latin)


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):  # one sound written otherwise: only in a long name, or a nasal (辛普森 Simpson)
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        return not diff or (len(diff) == 1 and (len(a) >= 5 or set(diff[0]) == {"M", "N"}))
    long, short = (a, b) if len(a) > len(b) else (b, a)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _latin_forms(word: str) -> tuple[str, ...]:
    """A Latin name's skeleton, and without a plural s (the Huguenots: 胡格诺派)."""
    whole = latin_skeleton(word)
    if len(word) > 4 and word.lower().endswith("s") and whole.endswith("S"):
        return whole, whole[:-1]
    return (whole,)


def sounds_like(chinese: str, latin_word: str) -> bool:
    """Whether ``chinese`` (a transliterated name) writes ``latin_word`` by its sound."""
    return any(skeletons_match(s, latin) for s in chinese_skeletons(chinese) for latin in _latin_forms(latin_word))


_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TRANSLITERATION_RUN = re.compile(f"[{''.join(sorted(TRANSLITERATION_CHARS))}]{{2,}}")


@lru_cache(maxsize=65_536)
def english_word(word: str) -> bool:
    """Whether a Latin word is a word of English's own lexicon (lemminflect's: Countries, Boulevard),
    not a name it does not hold (Kearney, Huguenots)."""
    import lemminflect

    return bool(lemminflect.getAllLemmas(word.lower()))


def foreign_name(word: str) -> bool:
    """Whether a Latin word is a name neither dictionary holds: not an English word (lemminflect)
    and without Chinese headwords in CC-CEDICT (German has 德国, Huguenot nothing). lemminflect
    lacks the adjectives of peoples (German, English), so both are asked."""
    word = word.lower()
    if english_word(word):
        return False
    lex = lexicon()
    return not lex.headwords(word) and not (word.endswith("s") and lex.headwords(word[:-1]))


def names_by_sound(latin_word: str, chinese_text: str) -> bool:
    """Whether a Chinese text writes the Latin name by its sound: a run of its transliteration
    characters sounds like it, whole or with a word of the dictionary glued on (弗雷斯诺西南:
    Fresno, southwest; 胡格诺派: the Huguenot sect)."""
    return any(_written_in(latin, chinese_text) for latin in _latin_forms(latin_word) if len(latin) >= 2)


def _written_in(latin: str, chinese_text: str) -> bool:
    lex = lexicon()
    if len(latin) >= 3:  # the dictionary's names, whatever their characters (忽必烈: Kublai)
        names = {w for run in _CJK_RUN.findall(chinese_text) for w in lex.words_in(run) if len(w) > 2 and w in lex.names}
        if any(skeletons_match(s, latin) for name in names for s in chinese_skeletons(name)):
            return True
    for match in _TRANSLITERATION_RUN.finditer(chinese_text):
        run, start, end = match.group(), match.start(), match.end()
        stretches = [run]
        if len(latin) >= 3:
            for cut in range(2, len(run)):
                # the rest of the run is a word of its own, or begins one that goes on past the run
                # (霍尼曼博物馆: 博 is the start of 博物馆 "museum")
                after = chinese_text[start + cut : start + cut + _LONGEST_GLUED]
                if run[cut:] in NAME_KINDS or any(lex.glosses(after[:k]) for k in range(max(2, len(run) - cut), len(after) + 1)):
                    stretches.append(run[:cut])
                before = chinese_text[max(0, end - cut - _LONGEST_GLUED) : end - cut]
                if any(lex.glosses(before[-k:]) for k in range(max(2, len(run) - cut), len(before) + 1)):
                    stretches.append(run[len(run) - cut:])
        if any(skeletons_match(s, latin) for stretch in stretches for s in chinese_skeletons(stretch)):
            return True
    return False
