"""The kernel latency recorder's output (`bpf/biolat.c`) parsed: a real recording of fio on a
loop device beside fio's own figures, the bucket conversion against the project's histogram
scheme, and every kind of bad output refused with a reason."""

from __future__ import annotations

import json

import pytest
from fixture_paths import FIXTURES
from hypothesis import given
from hypothesis import strategies as st

from pinchpoint.checks.parse.biolat import BiolatParseError, latency_bucket, parse_recording
from pinchpoint.model.histogram import bucket_index
from pinchpoint.model.latency_recording import BlockOp, RecorderLayout, size_bounds

RECORDING = FIXTURES / "ebpf" / "local__biolat_loop0_fio_randrw_qd8_all_devices.jsonl"
FIO = FIXTURES / "ebpf" / "local__fio_loop0_randrw_qd8.json"
SHARED = FIXTURES / "ebpf" / "local__biolat_shared_layout_loop0_fio_randrw_2jobs.jsonl"
SHARED_FIO = FIXTURES / "ebpf" / "local__fio_loop0_randrw_2jobs_qd8.json"


def raw_bucket(value: int) -> int:
    """`bucket_of` of bpf/biolat.bpf.c, transcribed: the value below 8, else 8 per octave."""
    if value < 8:
        return value
    octave = value.bit_length() - 1
    return (octave - 3 + 1) * 8 + ((value >> (octave - 3)) & 7)


@given(st.integers(min_value=0, max_value=2**50))
def test_a_recorder_bucket_is_exactly_one_project_bucket(value: int) -> None:
    assert latency_bucket(raw_bucket(value)) == bucket_index(value)


@given(st.integers(min_value=0, max_value=2**40))
def test_size_bounds_hold_the_value(value: int) -> None:
    low, high = size_bounds(raw_bucket(value))
    assert low <= value < high


def test_the_real_recording_counts_what_fio_did() -> None:
    recording = parse_recording(RECORDING.read_text(encoding="utf-8"))
    assert 5.9 < recording.seconds < 6.2
    loop0 = next(d for d in recording.devices if d.dev == "7:0")
    read, write = loop0.op(BlockOp.READ), loop0.op(BlockOp.WRITE)
    assert read is not None and write is not None
    fio = json.loads(FIO.read_text(encoding="utf-8"))["jobs"][0]
    assert read.device_time.count == fio["read"]["total_ios"]
    assert write.device_time.count == fio["write"]["total_ios"]
    assert read.bytes == fio["read"]["io_bytes"]
    assert read.sizes == {80: read.device_time.count}  # every request 4 KiB
    assert size_bounds(80) == (4096, 4608)
    for op, figures in ((read, fio["read"]), (write, fio["write"])):
        total = figures["lat_ns"]["percentile"]  # submission + completion: an upper bound
        for percent in (50, 90, 99):
            ours = op.device_time.percentile_s(percent)
            assert ours is not None and ours * 1e9 <= total[f"{percent}.000000"] * 1.05
        assert op.queue_time.count == 0  # the loop driver issues directly: nothing queued
        assert op.total_time == op.device_time  # so its whole time is its device time
    vda = next(d for d in recording.devices if d.dev == "254:0")
    assert {BlockOp.READ, BlockOp.WRITE, BlockOp.DISCARD} <= {o.op for o in vda.ops}
    reads = vda.op(BlockOp.READ)
    assert reads is not None and reads.queue_time.count == reads.device_time.count  # scheduled
    # queued, then on the device: the whole time is the sum of both, request by request
    assert reads.total_time.count == reads.device_time.count
    assert reads.total_time.sum_ns == reads.queue_time.sum_ns + reads.device_time.sum_ns
    assert recording.recursion_misses == 0 and recording.lost == 0
    assert [p.name for p in recording.programs] == ["on_insert", "on_issue", "on_complete"]


def test_the_last_line_is_the_recording() -> None:
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    first = parse_recording(lines[0])
    whole = parse_recording("\n".join(lines))
    assert 1.9 < first.seconds < 2.1 and whole.seconds > 5.9
    counts = [sum(o.device_time.count for d in r.devices for o in d.ops) for r in (first, whole)]
    assert counts[0] < counts[1]


def test_the_shared_layout_counts_what_two_fio_jobs_did() -> None:
    """One value per entry for every CPU, atomic adds: two jobs' I/Os counted exactly, and the
    recorder says which layout it chose and what its maps took."""
    recording = parse_recording(SHARED.read_text(encoding="utf-8"))
    (loop0,) = recording.devices  # recorded with --device 7:0
    fio = json.loads(SHARED_FIO.read_text(encoding="utf-8"))["jobs"][0]
    for op, figures in ((BlockOp.READ, fio["read"]), (BlockOp.WRITE, fio["write"])):
        recorded = loop0.op(op)
        assert recorded is not None
        assert recorded.device_time.count == figures["total_ios"]
        assert recorded.bytes == figures["io_bytes"]
        assert recorded.device_time.max_ns is not None
        assert recorded.device_time.max_ns <= figures["lat_ns"]["max"]
    memory = recording.memory
    assert memory is not None and memory.layout is RecorderLayout.SHARED
    assert memory.cpus == 2 and memory.disks == 1 and memory.budget_bytes == 64 * 2**20
    assert memory.bytes == sum(memory.maps.values()) <= memory.budget_bytes
    assert {"starts", "stats", "spill", "devices", "drops"} <= set(memory.maps)
    assert memory.needed_shared_bytes < memory.needed_percpu_bytes
    assert recording.lost == 0


def test_a_recorder_before_the_budget_reports_no_memory() -> None:
    assert parse_recording(RECORDING.read_text(encoding="utf-8")).memory is None


def _line(**changes: object) -> str:
    data = json.loads(RECORDING.read_text(encoding="utf-8").splitlines()[-1])
    data.update(changes)
    return json.dumps(data)


def _memory(**changes: object) -> dict[str, object]:
    memory: dict[str, object] = json.loads(SHARED.read_text(encoding="utf-8").splitlines()[-1])[
        "memory"
    ]
    memory.update(changes)
    return memory


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "printed nothing"),
        ("\n \n", "printed nothing"),
        ('{"format":1,"final":true,"elapsed_ns":12', "not JSON"),
        ("\x00\xff\x1b[2J garbage", "not JSON"),
        ("[" * 100_000, "not JSON"),
        ('{"format": 2}', "format 1"),
        ("[1, 2]", "format 1"),
        (_line(elapsed_ns=-5), "elapsed_ns"),
        (_line(sub_buckets=16), "8 per power of two"),
        (_line(totals=None), "'totals' or 'buckets'"),
        (_line(buckets=[[7340032, 0, 0, 99999, 1]]), "out of range"),
        (_line(buckets=[[7340032, 0, 0, 5, -1]]), "non-negative integers"),
        (_line(buckets=[["sda", 0, 0, 5, 1]]), "non-negative integers"),
        (_line(totals=[[7340032, 0, 7, 1, 1, 1]]), "out of range"),
        (_line(drops=[1, 2]), "'drops'"),
        (_line(programs=[{"run_cnt": 1}]), "with a name"),
        (_line(memory=[1]), "'memory' is not an object"),
        (_line(memory=_memory(layout="striped")), "not percpu or shared"),
        (_line(memory=_memory(layout=None)), "not percpu or shared"),
        (_line(memory=_memory(maps=None)), "'needed_bytes' or 'maps'"),
        (_line(memory=_memory(needed_bytes=[])), "'needed_bytes' or 'maps'"),
        (_line(memory=_memory(budget_bytes=-1)), "'budget_bytes' is missing"),
        (_line(memory=_memory(bytes="6 MiB")), "'bytes' is missing"),
        (_line(memory=_memory(cpus=True)), "'cpus' is missing"),
        (_line(memory=_memory(maps={"stats": -3})), "maps 'stats'"),
        (_line(memory=_memory(needed_bytes={"percpu": 1})), "needed_bytes 'shared'"),
    ],
)
def test_bad_output_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(BiolatParseError, match=reason):
        parse_recording(text)
