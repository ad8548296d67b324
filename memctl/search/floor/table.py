"""The relevance floor's calibrated thresholds per embedding model (floor_calibration.json,
written by `scripts/eval_shared --floor --calibrate`), read once."""

from __future__ import annotations

import json
from importlib import resources

from memctl.search.floor.rule import FloorThresholds

TABLE_FILE = "floor_calibration.json"


def load_table() -> dict[str, FloorThresholds]:
    """The calibrated thresholds per embedding model (written by scripts/eval_shared)."""
    text = (resources.files("memctl.search.floor") / TABLE_FILE).read_text(encoding="utf-8")
    data = json.loads(text)["models"]
    return {model: FloorThresholds.from_dict(v) for model, v in data.items()}


_table: dict[str, FloorThresholds] | None = None


def table() -> dict[str, FloorThresholds]:
    global _table
    if _table is None:
        _table = load_table()
    return _table
