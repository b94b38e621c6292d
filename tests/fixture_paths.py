"""Where the tests find the project and its captured fixtures, wherever a test module sits."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
SPECS = FIXTURES / "specs"
IMPORTS = FIXTURES / "imports"  # statistics files of other tools
