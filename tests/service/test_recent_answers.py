"""Store reads kept for a moment (`service/recent_answers.py`): made once per generation and
age, once for every caller asking at the same time."""

from __future__ import annotations

import threading

from pinchpoint.service.recent_answers import RecentAnswers


def test_an_answer_is_kept_until_the_generation_moves() -> None:
    answers = RecentAnswers(max_age_s=3600)
    made: list[int] = []

    def make() -> bytes:
        made.append(1)
        return f"answer {len(made)}".encode()

    assert answers.get("findings", 0, make) == b"answer 1"
    assert answers.get("findings", 0, make) == b"answer 1"
    assert answers.get("findings", 1, make) == b"answer 2"  # a report was stored
    assert answers.get("other", 1, make) == b"answer 3"
    assert len(made) == 3


def test_an_answer_too_old_is_made_anew() -> None:
    answers = RecentAnswers(max_age_s=-1)  # every answer is already too old
    assert answers.get("k", 0, lambda: b"one") == b"one"
    assert answers.get("k", 0, lambda: b"two") == b"two"


def test_only_so_many_answers_are_kept() -> None:
    answers = RecentAnswers(max_age_s=3600, kept=2)
    for key in ("a", "b", "c"):
        answers.get(key, 0, key.encode)
    assert answers.get("a", 0, lambda: b"again") == b"again"  # the oldest was dropped
    assert answers.get("c", 0, lambda: b"again") == b"c"


def test_callers_asking_at_once_share_one_read() -> None:
    answers = RecentAnswers(max_age_s=3600)
    entered, release = threading.Event(), threading.Event()
    reads = 0

    def slow() -> bytes:
        nonlocal reads
        reads += 1
        entered.set()
        release.wait(30)
        return b"page"

    got: list[bytes] = []
    first = threading.Thread(target=lambda: got.append(answers.get("k", 0, slow)))
    first.start()
    assert entered.wait(30)
    others = [
        threading.Thread(target=lambda: got.append(answers.get("k", 0, slow))) for _ in range(5)
    ]
    for thread in others:
        thread.start()
    release.set()
    for thread in [first, *others]:
        thread.join(30)
    assert got == [b"page"] * 6
    assert reads == 1


def test_a_failed_read_is_not_kept() -> None:
    answers = RecentAnswers(max_age_s=3600)

    def broken() -> bytes:
        raise RuntimeError("the store is gone")

    for _ in range(2):
        try:
            answers.get("k", 0, broken)
        except RuntimeError:
            pass
        else:
            raise AssertionError("the failure was not raised")
    assert answers.get("k", 0, lambda: b"back") == b"back"
