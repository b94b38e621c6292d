"""Firmware rules: one model at several firmware levels. One module per rule; `RULES` in
catalog order."""

from __future__ import annotations

from pinchpoint.rules.base import Rule
from pinchpoint.rules.firmware import mismatch

RULES: tuple[Rule, ...] = (mismatch.RULE,)
