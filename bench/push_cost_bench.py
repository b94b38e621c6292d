"""Benchmark: what one push of a 1,920-path host (6.8 MB) costs a central, stage by stage, before
and after, in the same run (issue 17).

Each code runs in a child process on its own source tree (`--before`, default a checkout named
`main` beside this one) over a PostgreSQL database of its own, and takes the same body the way
its `POST /v1/pushed-reports` does, without HTTP: the JSON depth check (the middleware), the
decoding and the route's body model (FastAPI), and the store's save; this code also writes the
parts back as compact JSON and hashes them (`api/pushes.py`). Three pushes: a new host (the
store holds none of its parts), the same host's next report (the same hardware: the steady
state), and, after only, that next report pushed by digest as the agent sends it. The first host
is new content to the store; the others (`--repeat` hosts in all) are its clones under other
names, whose parts the store holds. CPU seconds of the process (PostgreSQL's own work is not in
them) and wall time, the median of the pushes of each kind.

    python bench/push_cost_bench.py [--repeat 5] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from fleet_bench import ADMIN_URL, _create_database, _drop_database, _template_of
from machine import child_json, machine_line
from store_bench import check

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "tests" / "fixtures" / "specs"

CHILD = r"""
import json, sys, time
from datetime import timedelta
from pathlib import Path

from pinchpoint.api.routes import fleet as route
from pinchpoint.checks.parse.json_text import json_too_deep
from pinchpoint.service.store import Store

body_path, url, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
template = Path(body_path).read_text(encoding="utf-8")
store = Store.open(url)
new_code = hasattr(store, "save_pushed")
if new_code:
    from pinchpoint.api.pushes import PushedByDigest, inventory_by_digest, whole_inventory
    from pinchpoint.service.fleet import _by_digest_body
    from pinchpoint.service.store.bodies import split_inventory


def stage(times, name, work):
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    times.setdefault(name, []).append(
        (time.process_time() - cpu, time.perf_counter() - wall)
    )
    return result


def whole(times, body):
    stage(times, "depth check", lambda: json_too_deep(body))
    data = stage(times, "decode", lambda: json.loads(body))
    pushed = stage(times, "body model", lambda: route.PushedReport.model_validate(data))
    if new_code:
        inv = pushed.inventory
        parts = stage(times, "parts: compact JSON, SHA-256", lambda: whole_inventory(inv))
        stage(times, "store", lambda: store.save_pushed(pushed.report, parts))
    else:
        stage(
            times,
            "store",
            lambda: store.save_report(pushed.report, inventory=pushed.inventory, origin="push"),
        )
    return pushed


found = {
    "a new host, new content": {},
    "a new host, its parts held (a clone)": {},
    "the next report, whole": {},
    "the next report, by digest": {},
}
for n in range(repeat):
    host = f"big-{n:03d}"
    body = template.replace("TEMPLATEHOST", host)
    first = body.replace("2099-01-01T00:00:00Z", "2026-11-01T00:00:00Z").encode()
    fresh = "a new host, new content" if n == 0 else "a new host, its parts held (a clone)"
    pushed = whole(found[fresh], first)
    second = body.replace("2099-01-01T00:00:00Z", "2026-11-01T00:05:00Z").encode()
    whole(found["the next report, whole"], second)
    if new_code:
        report = pushed.report.model_copy(
            update={"generated_at": pushed.report.generated_at + timedelta(minutes=10)}
        )
        from pinchpoint.model.inventory import Inventory

        inventory = Inventory.model_validate(pushed.inventory.model_dump())
        third = _by_digest_body(report, inventory, split_inventory(inventory), (), 1.0)
        times = found["the next report, by digest"]
        stage(times, "depth check", lambda: json_too_deep(third))
        data = stage(times, "decode", lambda: json.loads(third))
        by = stage(times, "body model", lambda: PushedByDigest.model_validate(data))
        parts = stage(
            times, "parts by digest", lambda: inventory_by_digest(by.inventory, by.bodies)
        )
        stage(times, "store", lambda: store.save_pushed(by.report, parts))
print(json.dumps({"bytes": len(first), "by_digest_bytes": len(third) if new_code else None,
                  "stages": {k: v for k, v in found.items() if v}}))
"""


def _median(pairs: list[list[float]], index: int) -> float:
    return statistics.median(pair[index] for pair in pairs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, default=ROOT.parent / "main")
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "pinchpoint-fleet-bench"
    )
    args = parser.parse_args()
    print(machine_line())
    (args.work / "big").mkdir(parents=True, exist_ok=True)
    report, inventory = check(SPECS / "bench_1920.toml", args.work / "big" / "snapshot")
    body = args.work / "push-cost-body.json"
    body.write_text(_template_of(report, inventory).text, encoding="utf-8")
    for label, tree in (("before", args.before.resolve()), ("after", ROOT)):
        url = _create_database(ADMIN_URL, f"push_cost_{label}")
        try:
            found = child_json(tree, CHILD, str(body), url, str(args.repeat))
        finally:
            _drop_database(ADMIN_URL, url)
        print(f"{label} ({tree.name}), {found['bytes'] / 1e6:.1f} MB pushed whole", end="")
        if found["by_digest_bytes"]:
            print(f", {int(str(found['by_digest_bytes'])) / 1e3:.1f} kB by digest", end="")
        print(f"; median of {args.repeat}, ms of CPU (wall):")
        stages = found["stages"]
        assert isinstance(stages, dict)
        for push, times in stages.items():
            cpu = sum(_median(pairs, 0) for pairs in times.values())
            wall = sum(_median(pairs, 1) for pairs in times.values())
            parts = ", ".join(
                f"{name} {_median(pairs, 0):.0f} ({_median(pairs, 1):.0f})"
                for name, pairs in times.items()
            )
            print(f"  {push}: {cpu:.0f} ms CPU ({wall:.0f} wall) = {parts}")
    os.remove(body)


if __name__ == "__main__":
    main()
