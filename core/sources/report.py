"""What a sync reports: a result per item and the run's outcome. A leaf (no engine parts), so the
job queue's decoders and the services' declarations can name it without loading the sync engine."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class ItemResult:
    item_id: str
    name: str
    action: str  # added | updated | renamed | removed | failed | cancelled | duplicate | skipped
    file_id: str | None = None
    chunks: int = 0
    error: str = ""


@dataclass
class SyncReport:
    source_id: str
    log_id: str
    status: str  # done | failed | cancelled
    full_listing: bool = False
    results: list[ItemResult] = field(default_factory=list)
    error: str = ""
    source_state: str = "ok"  # ok | reconnect | error: what the source's row says after this run

    def count(self, action: str) -> int:
        return sum(1 for r in self.results if r.action == action)

    def as_dict(self) -> dict:
        return {"source_id": self.source_id, "log_id": self.log_id, "status": self.status,
                "full_listing": self.full_listing, "error": self.error, "source_state": self.source_state,
                "added": self.count("added"), "updated": self.count("updated") + self.count("renamed"),
                "removed": self.count("removed"), "failed": self.count("failed"),
                "results": [asdict(r) for r in self.results]}
