"""Foreign names written by sound across the Chinese–English line (core/retrieval/transliteration.py).

No dictionary holds every foreign name Chinese writes by sound (杰克逊维尔, 胡格诺), so strict mode
refused questions naming a person or place the passage names in the other script. The names below
are chosen for the transliteration habits they show, not taken from any benchmark set.
"""

from __future__ import annotations

import pytest

from core.retrieval.transliteration import (chinese_skeletons, foreign_name, latin_skeleton, names_by_sound,
                                            sounds_like, transliterated)


@pytest.mark.parametrize("chinese, latin", [
    ("杰克逊维尔", "Jacksonville"),   # a -son syllable: 逊 xun
    ("普利斯特里", "Priestley"),      # r and l are one sound: 利 li
    ("科尔尼", "Kearney"),            # 尔 er is an r
    ("宾根", "Bingen"),               # nasal finals: 宾 bin, 根 gen
    ("阿纳海姆", "Anaheim"),          # a sounded h, a vowel-initial name
    ("弗雷斯诺", "Fresno"),
    ("威尔海姆", "Wilhelm"),          # one sound of five left out (the second l)
    ("维多利亚", "Victoria"),         # a cluster's c left out
    ("胡格诺", "Huguenots"),          # a silent final t and a plural s
    ("铁木真", "Temüjin"),            # accents do not cut the name
    ("忽必烈", "Kublai"),             # the dictionary spells it Khubilai
    ("卡尔", "Carl"),                 # two sounds: only exactly
    ("休斯", "Hughes"),               # x writes an h before i and u: 休 Hu-, 希尔 Hill
    ("加那利", "Canary"),             # j and q write older g and k sounds: 加 Ca-
    ("辛普森", "Simpson"),            # m before p written n
])
def test_a_name_and_its_transliteration_sound_alike(chinese, latin):
    assert sounds_like(chinese, latin), (sorted(chinese_skeletons(chinese)), latin_skeleton(latin))


@pytest.mark.parametrize("chinese, latin", [
    ("杰克逊维尔", "Jackson"),        # a name inside a longer one is not it
    ("普利斯特里", "Pleistocene"),
    ("宾根", "Bonn"),
    ("卡尔", "Carlsbad"),
    ("胡格诺", "Hungary"),
    ("纽卡斯尔", "Nixon"),            # four sounds, one written otherwise: not a name of its own
])
def test_other_names_do_not(chinese, latin):
    assert not sounds_like(chinese, latin)


def test_a_latin_name_is_found_in_a_chinese_run_whole_or_with_a_word_glued_on():
    assert names_by_sound("Fresno", "弗雷斯诺西南的一个街区")       # 西南 "southwest" glued to the name
    assert names_by_sound("Huguenots", "数百位胡格诺派信徒迁居弗吉尼亚")  # 派: the sect
    assert not names_by_sound("Kearney", "苏格兰的工厂")          # 格兰 from the middle of 苏格兰 is not Kearney
    assert not names_by_sound("Carl", "克里斯托弗的信")            # a short name must be a whole run
    assert names_by_sound("Carl", "卡尔·威尔海姆·舍勒")
    assert names_by_sound("Horniman", "霍尼曼博物馆借出了乐器")  # 博 begins 博物馆, past the run
    assert names_by_sound("Turabi", "图拉比建立了经济基础")  # 比 sounds out names too


def test_only_names_no_dictionary_holds_are_sounded_out():
    assert foreign_name("Jacksonville") and foreign_name("Priestley")
    assert not foreign_name("Doctor")     # an English word
    assert not foreign_name("Warsaw")     # CC-CEDICT has 华沙
    assert transliterated("胡格诺") and not transliterated("员工")
