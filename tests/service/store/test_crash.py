"""A sweep's report is written in one transaction: a failure or a killed process part-way
leaves the previous report, finding states and inventory exactly as they were. And the API's
reads go on while a sweep writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from service.store.storetest import CheckedHost, at, table_rows

import pinchpoint.service.store.reports as store_module
from pinchpoint.service.store import Store
from pinchpoint.service.store import findings as states_module

# `save_report` calls `advance_states` after it has inserted the report row and the inventory:
# these tests break or stall the write there.


def _stored_before(store: Store, demo: CheckedHost) -> None:
    store.save_report(at(demo.report, 0), inventory=demo.inventory)
    store.save_report(at(demo.report, 5), inventory=demo.inventory)


def test_an_error_after_the_report_row_leaves_everything_as_it_was(
    store: Store,
    store_url: str,
    demo: CheckedHost,
    recabled: CheckedHost,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _stored_before(store, demo)
    before = table_rows(store_url)
    calls = []

    def half_done(*args: object, **kwargs: object) -> object:
        calls.append(kwargs["report_id"])
        states_module.advance_states(*args, **kwargs)  # type: ignore[arg-type]
        raise RuntimeError("the sweep died half-way through storing its report")

    monkeypatch.setattr(store_module, "advance_states", half_done)
    with pytest.raises(RuntimeError, match="half-way"):
        store.save_report(at(recabled.report, 10), inventory=recabled.inventory)
    assert calls, "the failure must come after the report row was inserted"
    assert table_rows(store_url) == before
    monkeypatch.undo()
    latest = store.latest_report()
    assert latest is not None and latest.report == at(demo.report, 5)
    assert store.latest_inventory() == demo.inventory
    # and the store goes on: the same report saved again now is stored
    saved = store.save_report(at(recabled.report, 10), inventory=recabled.inventory)
    assert store.inventory_of(saved.id) == recabled.inventory


CRASHING_SAVE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pinchpoint.model.findings import Report
    from pinchpoint.model.inventory import Inventory
    import pinchpoint.service.store.reports as store_module
    from pinchpoint.service.store import Store

    url, report, inventory, ready = sys.argv[1:5]
    store = Store.open(url, migrate=False)

    def stall(*args, **kwargs):
        Path(ready).write_text("inside the write transaction")
        time.sleep(120)

    store_module.advance_states = stall
    store.save_report(
        Report.model_validate_json(Path(report).read_text()),
        inventory=Inventory.model_validate_json(Path(inventory).read_text()),
    )
    """
)


def test_a_process_killed_mid_write_leaves_everything_as_it_was(
    store: Store, store_url: str, demo: CheckedHost, recabled: CheckedHost, tmp_path: Path
) -> None:
    _stored_before(store, demo)
    before = table_rows(store_url)
    report, inventory = tmp_path / "report.json", tmp_path / "inventory.json"
    report.write_text(at(recabled.report, 10).model_dump_json())
    inventory.write_text(recabled.inventory.model_dump_json())
    ready = tmp_path / "ready"
    child = subprocess.Popen(
        [sys.executable, "-c", CRASHING_SAVE, store_url, str(report), str(inventory), str(ready)],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            if child.poll() is not None or time.monotonic() > deadline:
                problem = child.stderr.read() if child.stderr else b""
                raise AssertionError(f"the writer never got there: {problem!r}")
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(30)
        if child.stderr is not None:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    with Store.open(store_url) as reopened:
        assert table_rows(store_url) == before
        latest = reopened.latest_report()
        assert latest is not None and latest.report == at(demo.report, 5)
        saved = reopened.save_report(at(recabled.report, 10), inventory=recabled.inventory)
        assert reopened.inventory_of(saved.id) == recabled.inventory


def test_reads_go_on_while_a_sweep_writes(
    store: Store, demo: CheckedHost, recabled: CheckedHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stored_before(store, demo)
    first = store.latest_report()
    assert first is not None
    inside, release = threading.Event(), threading.Event()

    def slow(*args: object, **kwargs: object) -> object:
        inside.set()
        assert release.wait(30)
        return states_module.advance_states(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module, "advance_states", slow)
    results: list[object] = []
    writer = threading.Thread(
        target=lambda: results.append(store.save_report(at(recabled.report, 10)))
    )
    other = threading.Thread(
        target=lambda: results.append(store.save_report(at(demo.report, 10, host="store02")))
    )
    writer.start()
    try:
        assert inside.wait(30), "the writer never reached its transaction"
        other.start()  # a second writer queues behind the first
        # while both write, readers see the last committed state, without waiting
        latest = store.latest_report()
        assert latest is not None and latest.id == first.id
        assert store.report_summaries().total == 2
        assert store.findings().total == 3
        assert store.ping()
    finally:
        release.set()
        writer.join(60)
        other.join(60)
    assert len(results) == 2
    assert store.report_summaries().total == 4
    newest = store.latest_report("demo-storage-head")
    assert newest is not None and newest.report == at(recabled.report, 10)
