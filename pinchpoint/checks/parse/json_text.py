"""JSON from outside (a request body, a statistics file) read with a nesting limit.

Python's decoder recurses once per level of nesting and the code that walks the result (pydantic,
the importers) does the same, so `[[[[…]]]]` 100,000 deep raises `RecursionError` somewhere it
is not expected. `json_depth` measures the nesting of the text before anything decodes it, in a
few passes of C-level scanning (strings removed, brackets counted), and `loads_bounded` refuses
text nested deeper than `MAX_JSON_DEPTH` with a `JsonTooDeepError` (a `ValueError`) that says so.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JsonTooDeepError", "json_depth", "json_too_deep", "loads_bounded"]

# Reports and inventories nest about 10 levels deep; a statistics file fewer.
MAX_JSON_DEPTH = 64

# Once escapes are gone and only quotes and brackets are left: a string, or an unterminated one
# up to the end (one pass, no backtracking).
_STRING = re.compile(rb'"[^"]*"?')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_MARK = bytes(b for b in range(256) if b not in b'[]{}"')
_CHUNK = 65536
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class JsonTooDeepError(ValueError):
    """The JSON nests deeper than the limit; the message says how deep it may go."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the JSON nests deeper than {limit} levels")
        self.limit = limit


def _brackets(data: str | bytes) -> bytes:
    """The brackets of `data` outside its strings, in order; in C-level passes over the text, so
    that a 7 MB inventory costs milliseconds (a regular expression over every string of it took
    half a second). Escapes first: a run of backslashes pairs up from the left, as a decoder
    reads it, and an odd one out escapes the character after it, of which only a quote matters
    here. Then every quote left opens or closes a string: the text is cut down to its quotes
    and brackets, two adjacent quotes are dropped (an empty string, or two strings joined: the
    brackets outside strings stay the same), and what strings are left are removed."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    marks = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_MARK)
    return _STRING.sub(b"", marks.replace(b'""', b"")).translate(None, _NOT_BRACKET)


def _deepest(brackets: bytes, stop_above: int | None = None) -> int:
    """The deepest level the brackets reach, a chunk at a time (the scan stops at the first
    chunk that goes past `stop_above`)."""
    steps = array("b", brackets.translate(_STEPS))  # +1 for an opening bracket, -1 a closing
    deepest = depth = 0
    for start in range(0, len(steps), _CHUNK):
        chunk = steps[start : start + _CHUNK]
        deepest = max(deepest, max(accumulate(chunk, initial=depth)))
        depth += sum(chunk)
        if stop_above is not None and deepest > stop_above:
            break
    return deepest


def json_depth(data: str | bytes) -> int:
    """How deep the arrays and objects of `data` nest (0 for a scalar). Text that is not JSON
    gets a figure too (brackets outside strings are counted), never an error."""
    return _deepest(_brackets(data))


def json_too_deep(data: str | bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `data` nests deeper than `limit` (cheap when it holds few brackets).

    Before the brackets are walked one by one, adjacent pairs (`[]`, `{}`, once all brackets are
    made one kind) are removed in a few `bytes.replace` passes: each pass lowers the deepest level
    by at most one, so after `k` passes the depth lies between the remainder's and the remainder's
    plus `k`; only when that leaves the answer open is the whole text walked."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    brackets = _brackets(raw)
    if len(brackets) <= limit:
        return False
    remainder, passes = brackets.translate(_ONE_KIND), 0
    while passes < limit // 2:
        shorter = remainder.replace(b"[]", b"")
        removed = len(remainder) - len(shorter)
        if not removed:
            break
        remainder, passes = shorter, passes + 1
        if removed * 4 < len(remainder) + removed:  # less than a quarter went: walk the rest
            break
    deepest = _deepest(remainder, stop_above=limit)
    if deepest > limit:
        return True
    if deepest + passes <= limit:
        return False
    return _deepest(brackets, stop_above=limit) > limit


def loads_bounded(data: str | bytes, limit: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads(data)`, refusing nesting deeper than `limit` with `JsonTooDeepError`."""
    if json_too_deep(data, limit):
        raise JsonTooDeepError(limit)
    return json.loads(data)
