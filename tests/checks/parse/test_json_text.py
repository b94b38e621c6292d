"""JSON read with a nesting limit: deep nesting is refused with a message, never a
RecursionError; the depth measured before decoding is the depth of what decodes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fixture_paths import IMPORTS
from hypothesis import given
from hypothesis import strategies as st

from pinchpoint.checks.parse.json_text import (
    MAX_JSON_DEPTH,
    JsonTooDeepError,
    json_depth,
    json_too_deep,
    loads_bounded,
)

REAL_FILES = (
    "fio-3.33_json_randrw.json",
    "fio-3.33_jsonplus_randread_seqwrite.json",
    "metrics-operator__iostat_-dxm_-o_JSON_sysstat12_nvme0n1_trimmed.json",
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_files_load_as_json_loads_does(name: str) -> None:
    text = (IMPORTS / name).read_text(encoding="utf-8")
    assert loads_bounded(text) == json.loads(text)
    assert json_depth(text) == _depth(json.loads(text)) < MAX_JSON_DEPTH


def test_a_hundred_thousand_levels_are_refused_with_a_message() -> None:
    text = '{"jobs": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(JsonTooDeepError, match="nests deeper than 64 levels"):
        loads_bounded(text)
    assert json_depth(text) == 100_001


def test_the_limit_is_inclusive() -> None:
    assert loads_bounded("[" * 64 + "]" * 64) is not None
    assert not json_too_deep(b"[" * 64 + b"]" * 64)
    assert json_too_deep(b"[" * 65 + b"]" * 65)


def test_brackets_in_strings_do_not_count() -> None:
    text = json.dumps({"name": "[[[[{{{{" * 100, "quote": 'a "quoted" [[[ \\', "x": ["]]]"]})
    assert json_depth(text) == 2
    assert loads_bounded(text)["quote"] == 'a "quoted" [[[ \\'


@pytest.mark.parametrize(
    "inside",
    ["\\", '\\"', '\\\\"[[', "]]\\", '"]]"', "\\u005c]", "", '""', "[{"],
)
def test_escapes_before_quotes_end_strings_as_the_decoder_ends_them(inside: str) -> None:
    """A run of backslashes before a quote: even, the quote ends the string; odd, it is in it."""
    value = {"a": inside, "b": [inside, [inside + "\\"]], inside: {"c": [[inside]]}}
    text = json.dumps(value)
    assert json_depth(text) == _depth(json.loads(text)) == 4
    assert json_too_deep(text.encode(), 3) and not json_too_deep(text.encode(), 4)


@pytest.mark.parametrize(
    "text",
    ['"' * 10_000, '"\\' * 10_000, "]" * 10_000, "[" * 10 + '"\\', "\\", "", "\x00\xff"],
)
def test_garbled_text_gets_a_figure_or_a_decode_error(text: str) -> None:
    assert json_depth(text) >= 0
    with pytest.raises(ValueError):  # JSONDecodeError or JsonTooDeepError, both ValueErrors
        loads_bounded(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=40,
)


@given(JSON_VALUES)
def test_depth_before_decoding_is_the_depth_decoded(value: Any) -> None:
    text = json.dumps(value)
    assert json_depth(text) == _depth(value)
    assert json_depth(text.encode()) == _depth(value)
    assert json_too_deep(text, 2) == (_depth(value) > 2)


@given(st.text(alphabet='[]{}"\\a', max_size=300), st.integers(min_value=0, max_value=8))
def test_the_quick_answer_is_the_walked_one_on_any_text(text: str, limit: int) -> None:
    """The pair-removing shortcut of `json_too_deep` agrees with the depth walked bracket by
    bracket, on balanced and unbalanced text alike."""
    assert json_too_deep(text, limit) == (json_depth(text) > limit)
