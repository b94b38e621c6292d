"""Host names from other machines: validated on the way in (`host_name_problem`), and made into
file names only through `host_token`, which is safe as a relative path and maps back."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinchpoint.naming import (
    TOKEN_PART_BYTES,
    host_from_token,
    host_name_problem,
    host_token,
)

HOSTILE = (
    "../../../etc/cron.d/x",
    "/etc/passwd",
    ".",
    "..",
    "...",
    ".hidden",
    "a\x00b",
    "x" * 300,
    "." * 300,
    "a" * (TOKEN_PART_BYTES - 1) + "." * 10,
    "ünïcødé-東京-🖴",
    "\udcff\udc80",  # bytes that were not UTF-8, kept as surrogates
    "a\x1b[31mred\x1b[0m",
    "name with spaces (snapshot)",
    "~",
    "%41",
    "",
    "C:\\Windows\\x",
)


def _safe(token: str) -> None:
    path = PurePosixPath(token)
    assert not path.is_absolute()
    for part in path.parts:
        assert part not in ("", ".", "..") and not part.startswith(".")
        assert len(part.encode()) <= TOKEN_PART_BYTES
        assert all(c.isascii() and (c.isalnum() or c in "._-%~") for c in part), part
    assert "\\" not in token and "\x00" not in token


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_give_safe_tokens_that_map_back(name: str) -> None:
    token = host_token(name)
    _safe(token)
    assert host_from_token(token) == name


def test_plain_host_names_are_their_own_token() -> None:
    assert host_token("store01.example.com") == "store01.example.com"
    assert host_token("db_02-a") == "db_02-a"


def test_tokens_of_distinct_names_are_distinct() -> None:
    tokens = [host_token(n) for n in HOSTILE]
    assert len(set(tokens)) == len(HOSTILE)


@given(st.text())
def test_any_name_round_trips(name: str) -> None:
    token = host_token(name)
    _safe(token)
    assert host_from_token(token) == name


@pytest.mark.parametrize("token", ["..", "a/../b", "%2e", "a%2", "%zz", "a b", "/a", "a//b", ".x"])
def test_text_no_token_looks_like_is_refused(token: str) -> None:
    with pytest.raises(ValueError, match="not a host token"):
        host_from_token(token)


@pytest.mark.parametrize(
    "name", ["store01", "store01.example.com", "db_02-a", "a" * 63, ".".join(["a" * 63] * 3)]
)
def test_host_names_that_are_taken(name: str) -> None:
    assert host_name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("", "a host name is needed"),
        ("x" * 300, "300 characters long (at most 253)"),
        ("../../../etc/cron.d/x", "dot-separated labels"),
        ("a\x1b[31mb", "'a\\x1b[31mb'"),
        ("-leading", "dot-separated labels"),
        ("a..b", "dot-separated labels"),
        ("a" * 64, "dot-separated labels"),
        ("東京", "'\\u6771\\u4eac'"),
    ],
)
def test_host_names_that_are_refused_say_why(name: str, says: str) -> None:
    problem = host_name_problem(name)
    assert problem is not None and says in problem
    assert problem.isprintable() and problem.isascii()
