"""How long one check may spend running the host's tools, all of them together.

Each tool run has a timeout of its own, but a host of 1,000 disks whose drives hang would make
`smartctl` alone take 1,000 × 60 s / 8 at a time: over two hours. A `ToolBudget` bounds the
whole: it is counted on the wall clock from the moment the check starts, so runs in parallel
share it and a forked child (which reads the same monotonic clock) keeps to it too. A run never
lasts past what is left of the budget; once it is spent, the runs still to come are not started
and say so. The service also calls the budget off when it abandons a sweep that missed its
deadline: the runs in flight are stopped at once and no new one starts.
"""

from __future__ import annotations

import threading
import time

DEFAULT_TOOL_BUDGET_S = 300.0


class ToolBudget:
    """`seconds` of tool runs for one check, from now; shared by every collector of the check.
    `of` names the check in messages: "check" (the CLI) or "sweep" (the service)."""

    def __init__(self, seconds: float = DEFAULT_TOOL_BUDGET_S, of: str = "check") -> None:
        self.seconds = seconds
        self.of = of
        self.ends_at = time.monotonic() + seconds
        self._called_off = threading.Event()
        self._why = ""

    def left_s(self) -> float:
        """Seconds left (0 when spent or called off)."""
        if self._called_off.is_set():
            return 0.0
        return max(0.0, self.ends_at - time.monotonic())

    @property
    def spent(self) -> bool:
        return self.left_s() <= 0.0

    def call_off(self, why: str) -> None:
        """Stop every run now and start no other (`why`: said in each run's problem)."""
        self._why = why
        self._called_off.set()

    def called_off(self) -> bool:
        return self._called_off.is_set()

    def why_spent(self) -> str:
        """Why a run was not started or was stopped, in the words of the problem it leaves."""
        if self._called_off.is_set():
            return self._why or "the check was called off"
        return f"the {self.of}'s tool budget of {self.seconds:g} s was spent"
