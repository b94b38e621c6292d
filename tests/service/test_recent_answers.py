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


class SlowRead:
    """A store read that waits until released, counting how often it ran."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.reads = 0
        self.entered, self.release = threading.Event(), threading.Event()

    def __call__(self) -> bytes:
        self.reads += 1
        self.entered.set()
        self.release.wait(30)
        return self.answer


def test_callers_asking_at_once_share_one_read() -> None:
    answers = RecentAnswers(max_age_s=3600)
    slow = SlowRead(b"page")
    entered, release = slow.entered, slow.release

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
    assert slow.reads == 1


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


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _wait_for(answers: RecentAnswers, made: int) -> None:
    """Until `made` answers were read (a background read runs on its own thread)."""
    for _ in range(3000):
        if answers.made >= made and not answers._making:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{answers.made} answers read, {made} awaited")


def test_an_answer_getting_old_is_served_and_read_again_in_the_background() -> None:
    clock = Clock()
    answers = RecentAnswers(max_age_s=1.0, refresh_after_s=0.5, clock=clock)
    reads = iter([b"first", b"second", b"third"])
    assert answers.get("k", 0, lambda: next(reads)) == b"first"
    clock.now += 0.4
    assert answers.peek("k", 0) == b"first"  # young: no read
    assert answers.made == 1
    clock.now += 0.2  # 0.6 s old: served, and read again on a thread of its own
    assert answers.peek("k", 0) == b"first"
    _wait_for(answers, 2)
    assert answers.refreshed == 1
    assert answers.peek("k", 0) == b"second"  # the new read, as old as when it began
    clock.now += 0.9  # the refreshed answer is 0.9 s old: served, read again
    assert answers.peek("k", 0) == b"second"
    _wait_for(answers, 3)
    assert answers.peek("k", 0) == b"third"


def test_a_background_read_is_started_once_and_joined_by_callers_past_the_age() -> None:
    clock = Clock()
    answers = RecentAnswers(max_age_s=1.0, refresh_after_s=0.5, clock=clock)
    assert answers.get("k", 0, lambda: b"old") == b"old"
    slow = SlowRead(b"new")
    entered, release = slow.entered, slow.release
    answers._answers["k"] = answers._answers["k"]._replace(make=slow)
    clock.now += 0.7
    assert [answers.peek("k", 0) for _ in range(5)] == [b"old"] * 5  # one read started
    assert entered.wait(30)
    clock.now += 0.5  # now too old to serve: a caller waits for the read under way
    got: list[bytes] = []
    waiter = threading.Thread(target=lambda: got.append(answers.get("k", 0, slow)))
    waiter.start()
    release.set()
    waiter.join(30)
    assert got == [b"new"]
    assert slow.reads == 1


def test_an_answer_of_another_generation_is_not_served_while_being_read_again() -> None:
    clock = Clock()
    answers = RecentAnswers(max_age_s=1.0, refresh_after_s=0.5, clock=clock)
    answers.get("k", 0, lambda: b"before the mute")
    clock.now += 0.7
    assert answers.peek("k", 1) is None  # a mute moved the generation: never the old answer
    assert answers.get("k", 1, lambda: b"after the mute") == b"after the mute"


def test_a_failed_background_read_keeps_the_answer_until_it_expires() -> None:
    clock = Clock()
    answers = RecentAnswers(max_age_s=1.0, refresh_after_s=0.5, clock=clock)
    answers.get("k", 0, lambda: b"kept")

    def broken() -> bytes:
        raise RuntimeError("the store is gone")

    answers._answers["k"] = answers._answers["k"]._replace(make=broken)
    clock.now += 0.6
    assert answers.peek("k", 0) == b"kept"
    _wait_for(answers, 1)
    assert answers.peek("k", 0) == b"kept"  # still young enough
    clock.now += 0.5
    assert answers.peek("k", 0) is None  # expired: the caller reads, and meets the failure
    try:
        answers.get("k", 0, broken)
    except RuntimeError as err:
        assert "gone" in str(err)
    else:
        raise AssertionError("the failure was not raised")


def test_an_answer_kept_by_generation_alone_is_never_read_again() -> None:
    clock = Clock()
    answers = RecentAnswers(max_age_s=float("inf"), kept=2, clock=clock)
    answers.get("fleet", 7, lambda: b"fleet findings")
    clock.now += 3600
    assert answers.peek("fleet", 7) == b"fleet findings"
    assert answers.made == 1 and not answers._making  # no background read started
