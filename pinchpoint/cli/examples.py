"""The "Examples:" section closing each command's `--help`: real invocations, one a line
(`tests/cli/test_examples.py` parses every one with the command's own options)."""

from __future__ import annotations

from collections.abc import Iterable

HEADING = "Examples:"


def examples_epilog(invocations: Iterable[str]) -> str:
    """The epilog of a command's help: the heading, then each invocation on its own line."""
    return HEADING + "\n\n" + "\n".join(invocations)


def epilog_examples(epilog: str | None) -> list[str]:
    """The invocations an epilog written by `examples_epilog` lists (none without one)."""
    if not epilog or not epilog.startswith(HEADING):
        return []
    return [line.strip() for line in epilog[len(HEADING) :].splitlines() if line.strip()]
