"""`stats record --json` read back as imported statistics (`stats import`, `--import`): a real
recording of this machine, the same figures as the recording it came from, and bad input
refused with the reason."""

from __future__ import annotations

import json

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.parse.biolat import parse_recording
from pinchpoint.checks.parse.importers import StatsImportError, guess_kind, parse_stats
from pinchpoint.checks.parse.importers.ebpf_json import recording_imported
from pinchpoint.model.latency_recording import BlockOp
from pinchpoint.model.stats import HistogramKind, ImportKind, Metric
from pinchpoint.stats.recorded import recording_summary

RECORD_JSON = FIXTURES / "ebpf" / "local__stats_record_json_all_devices_fio_loop0.json"
RAW = FIXTURES / "ebpf" / "local__biolat_loop0_fio_randrw_qd8_all_devices.jsonl"


def test_a_real_stats_record_json_imports() -> None:
    text = RECORD_JSON.read_text(encoding="utf-8")
    assert guess_kind(text) is ImportKind.EBPF
    imported = parse_stats(text, None, RECORD_JSON.name)
    assert imported.kind is ImportKind.EBPF and imported.problems == []
    entities = {e.name: e for e in imported.entities}
    assert set(entities) == {"loop0", "vda"}
    loop0 = entities["loop0"]
    summary = json.loads(text)
    ops = {o["op"]: o for o in summary["devices"][0]["ops"]}
    read = loop0.histograms[HistogramKind.DISK_WAIT_READ]
    assert read.count == ops["read"]["count"]
    assert read.percentile_s(99) == pytest.approx(ops["read"]["p99_us"] / 1e6, rel=0.01)
    assert loop0.histograms[HistogramKind.READ].count == ops["read"]["total"]["count"]
    (point,) = loop0.points
    assert point.interval_s == summary["seconds"]
    assert point.values[Metric.READ_IOPS] == pytest.approx(ops["read"]["iops"], abs=0.1)
    assert point.values[Metric.READ_SIZE_KB] == pytest.approx(4.0)
    assert point.values[Metric.QUEUE] > 0


def test_the_json_round_trips_to_the_recordings_histograms() -> None:
    recording = parse_recording(RAW.read_text(encoding="utf-8"))
    for device in recording.devices:
        device.name = {"7:0": "loop0", "254:0": "vda"}[device.dev]
    direct = recording_imported(recording, "raw")
    via_json = parse_stats(json.dumps(recording_summary(recording)), ImportKind.EBPF, "json")
    for ours, theirs in zip(direct.entities, via_json.entities, strict=True):
        assert ours.name == theirs.name
        assert set(ours.histograms) == set(theirs.histograms)
        for kind, histogram in ours.histograms.items():
            assert theirs.histograms[kind].counts == histogram.counts  # bucket-exact
            assert theirs.histograms[kind].max_ns == pytest.approx(histogram.max_ns, abs=100)
    vda = next(d for d in recording.devices if d.dev == "254:0")
    discards = vda.op(BlockOp.DISCARD)
    assert discards is not None and discards.device_time.count > 0
    queue = next(e for e in direct.entities if e.name == "vda").points[0].values[Metric.QUEUE]
    whole = sum(o.total_time.sum_ns for o in vda.ops) / 1e9 / recording.seconds
    assert queue == pytest.approx(whole)  # Little's law, discards included


def _changed(**changes: object) -> str:
    data = json.loads(RECORD_JSON.read_text(encoding="utf-8"))
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "is empty"),
        ('{"source": "ebpf", "seconds": 3, "devices": [', "not JSON"),
        ('{"source": "fio"}', "not the JSON of `pinchpoint stats record`"),
        (_changed(seconds="3"), "'seconds' is not a number"),
        (_changed(seconds=0), "lasted no time"),
        (_changed(devices={}), "'devices' is not a list"),
        (_changed(devices=[{"ops": []}]), "no device name"),
        (_changed(devices=[{"device": "sda", "ops": [{"op": "erase"}]}]), "not an op"),
        (
            _changed(devices=[{"device": "sda", "ops": [{"op": "read", "buckets": [[-1, 3]]}]}]),
            "not \\[upper_us, count\\]",
        ),
        (
            _changed(devices=[{"device": "sda", "ops": [{"op": "read", "buckets": [[5, 1.5]]}]}]),
            "not \\[upper_us, count\\]",
        ),
        (
            _changed(devices=[{"device": "sda", "ops": [{"op": "read", "buckets": "x"}]}]),
            "'buckets' is not a list",
        ),
    ],
)
def test_bad_json_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(StatsImportError, match=reason):
        parse_stats(text, ImportKind.EBPF, "rec.json")
