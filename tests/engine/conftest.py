"""An engine on a temporary data folder with a fast real embedder (hashed n-grams, no model)."""

from __future__ import annotations

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR

POLICY_MD = """# 员工差旅管理办法

## 第一章 总则

第一条 为规范公司员工出差管理，合理控制差旅费用，制定本办法。

第二条 本办法适用于公司全体正式员工及试用期员工。

## 第二章 交通标准

第三条 员工出差乘坐火车，可报销二等座车票；高级管理人员可报销一等座车票。

第四条 出差乘坐飞机须提前三天申请，经部门负责人批准后方可订票，一律乘坐经济舱。

## 第三章 住宿标准

第五条 一线城市住宿费每人每晚不超过六百元，其他城市不超过四百元。

第六条 住宿发票须与出差日期一致，否则不予报销。
"""

HANDBOOK_MD = """# Employee Handbook

## Remote work

Employees may work remotely up to three days per week with their manager's approval.
Remote workers must be reachable on the team chat during core hours, 10:00 to 16:00.

## Equipment

Every new employee receives a laptop, a monitor and a headset on their first day.
Lost equipment must be reported to the IT desk within 24 hours.
"""


def make_engine(data_dir, **settings_patch) -> Engine:
    engine = Engine(RuntimeConfig.from_env(data_dir))
    patch = {"embedding": {"provider": "local", "model": "hash-64"}}
    for section, values in settings_patch.items():
        patch.setdefault(section, {}).update(values)
    engine.save_settings(SYSTEM_ACTOR, patch)
    return engine


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()


def md(name: str, text: str) -> Upload:
    return Upload(name, text.encode("utf-8"))
