"""`LatencyHistogram.from_counts` builds what `model_construct` would, only faster."""

from __future__ import annotations

import copy
import pickle

from pinchpoint.model.histogram import _FIELDS, LatencyHistogram


def test_from_counts_sets_every_field() -> None:
    assert set(_FIELDS) == set(LatencyHistogram.model_fields)


def test_from_counts_is_what_model_construct_makes() -> None:
    fast = LatencyHistogram.from_counts({3: 2, 7: 0, 9: 5}, 1234, 10, 900)
    slow = LatencyHistogram.model_construct(
        counts={3: 2, 9: 5}, count=7, sum_ns=1234, min_ns=10, max_ns=900
    )
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
    assert LatencyHistogram.model_validate_json(fast.model_dump_json()) == fast
    assert pickle.loads(pickle.dumps(fast)) == fast
    assert copy.deepcopy(fast) == fast
    fast.record_ns(50)  # still a model to record into
    assert fast.count == 8
