"""Paths of the statistics files the importer tests read."""

from __future__ import annotations

from pathlib import Path

IMPORTS = Path(__file__).parents[2] / "fixtures" / "imports"
