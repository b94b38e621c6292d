"""The PostgreSQL half of the store tests fails, and says why, when the server is down; it is
skipped only when PINCHPOINT_SKIP_POSTGRES=1 asks for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
TARGET = f"{HERE / 'test_migrations.py'}::test_a_postgresql_url_without_a_driver_means_psycopg"


def _run_target(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", TARGET, "-q", "-p", "no:cacheprovider", "-rfEs"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("skip", ["", "0"])
def test_an_unreachable_server_fails_the_postgresql_tests_with_the_reason(skip: str) -> None:
    done = _run_target(
        PINCHPOINT_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:1/postgres",
        PINCHPOINT_SKIP_POSTGRES=skip,
    )
    assert done.returncode == 1, done.stdout
    assert "PostgreSQL is not reachable at postgresql+psycopg://postgres@127.0.0.1:1" in done.stdout
    assert "PINCHPOINT_SKIP_POSTGRES=1" in done.stdout
    assert "1 error" in done.stdout


def test_skipping_postgresql_is_asked_for_explicitly() -> None:
    done = _run_target(
        PINCHPOINT_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:1/postgres",
        PINCHPOINT_SKIP_POSTGRES="1",
    )
    assert done.returncode == 0, done.stdout
    assert "1 skipped" in done.stdout
    assert "the PostgreSQL tests are off" in done.stdout
