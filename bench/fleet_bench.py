"""Benchmark: a fleet central past one machine (issue 17), before and after, in the same run.

Two real central instances of each code (`python -m pinchpoint serve --role central` under
uvicorn, one process each, on loopback ports) over a PostgreSQL database of their own: "before"
runs the code of `--before` (default: a checkout named `main` beside this one; main's fleet
rules read every host's inventory per GET), "after" this checkout (fleet facts and findings kept as
rows at push time). Phases alternate between the two (A/B in the same run):

* pushes of ordinary hosts (simulated clients, field case 3, and small storage hosts with six
  disks; one in 50 with a slow NIC, one in 40 with old disk firmware), new hosts, concurrently
  over real HTTP (httpx, `--agents` threads) to both instances alternately, until 100 hosts,
  then `GET /v1/fleet/findings` timed (`--gets` one after another, both instances alternately);
  the same up to 1,000 hosts; then pushes of the same hosts again (the steady state: a new
  report, the same hardware);
* pushes of 7 MB hosts (the 1,920-path simulated host `bench_1920.toml` under new names),
  whole as an older agent sends them: new hosts, then the same hosts again (a new report, the
  same hardware); then, "after" only (main has no such route), the same hosts' next reports
  pushed by digest as this code's agent sends them (`--big-rounds` each): the report, the host
  block and the parts' digests, all held by the central.

Bodies are serialised once per template and the host name and time put in by text, so that the
load generator's own JSON work does not count. Both codes' answers to `/v1/fleet/findings` are
compared (the same JSON). Never run by the tests.

    python bench/fleet_bench.py [--hosts 100,1000] [--big 30] [--big-rounds 4] [--agents 8]
                                [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from machine import machine_line
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from store_bench import check

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from central_cluster import ADMIN, QUIET_CONFIG, READ, free_port  # noqa: E402

if TYPE_CHECKING:
    from pinchpoint.model.findings import Report
    from pinchpoint.model.inventory import Inventory

SPECS = ROOT / "tests" / "fixtures" / "specs"
ADMIN_URL = os.environ.get(
    "PINCHPOINT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
STORAGE = """
[host]
hostname = "TEMPLATEHOST"

[[hba]]
name = "hba1"
firmware = "16.00.12.00"

[[enclosure]]
name = "JBOD-A"
bays = 6

[enclosure.disk]
revision = "{disk}"

[[chain]]
hba = "hba1"
enclosures = ["JBOD-A"]
"""
T0 = datetime(2026, 11, 1, tzinfo=UTC)
NAME = "TEMPLATEHOST"
MOMENT = "2099-01-01T00:00:00Z"


@dataclass
class Template:
    """A pushed body with the host name and the report's time left to fill in."""

    text: str

    def body(self, host: str, at: datetime) -> bytes:
        moment = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        return self.text.replace(NAME, host).replace(MOMENT, moment).encode()


def _template(spec_text: str, where: Path) -> Template:
    spec = where / "spec.toml"
    spec.write_text(spec_text, encoding="utf-8")
    report, inventory = check(spec)
    return _template_of(report, inventory)


def _by_digest_template(report: object, inventory: object) -> Template:
    """The body of a push by digest of a host whose parts the central holds (the agent's
    push of its next sweep): the report, the host block and the parts' digests."""
    from pinchpoint.model.findings import Report
    from pinchpoint.model.inventory import Inventory
    from pinchpoint.service.fleet import _by_digest_body
    from pinchpoint.service.store.bodies import split_inventory

    assert isinstance(report, Report) and isinstance(inventory, Inventory)
    report, inventory = _placeheld(report, inventory)
    return _as_template(
        _by_digest_body(report, inventory, split_inventory(inventory), (), 1.0).decode()
    )


def _placeheld(report: Report, inventory: Inventory) -> tuple[Report, Inventory]:
    """`report` and `inventory` with the host name and the report's time as placeholders."""
    report = report.model_copy(
        update={
            "generated_at": datetime(2099, 1, 1, tzinfo=UTC),
            "host": report.host.model_copy(update={"hostname": NAME}),
        }
    )
    inventory = inventory.model_copy(
        update={"host": inventory.host.model_copy(update={"hostname": NAME})}
    )
    return report, inventory


def _template_of(report: object, inventory: object) -> Template:
    from pinchpoint.model.findings import Report
    from pinchpoint.model.inventory import Inventory

    assert isinstance(report, Report) and isinstance(inventory, Inventory)
    report, inventory = _placeheld(report, inventory)
    return _as_template(
        '{"report":'
        + report.model_dump_json()
        + ',"inventory":'
        + inventory.model_dump_json()
        + ',"duration_s":1.0}'
    )


def _as_template(text: str) -> Template:
    """A push body made of `_placeheld` models as a template of the host name and the time."""
    text = text.replace('"2099-01-01T00:00:00Z"', f'"{MOMENT}"')
    if NAME not in text or MOMENT not in text:
        raise SystemExit("the template lost its placeholders")
    return Template(text)


@dataclass
class Side:
    """One code's two central instances and their database."""

    label: str
    code: Path
    database: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    pushed: int = 0


def _create_database(admin: str, name: str) -> str:
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine.dispose()
    return make_url(admin).set(database=name).render_as_string(hide_password=False)


def _drop_database(admin: str, url: str) -> None:
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.exec_driver_sql(
            f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'
        )
    engine.dispose()


def _start(side: Side, work: Path, instances: int) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PINCHPOINT_")}
    environment.update(
        PINCHPOINT_ADMIN_TOKEN=ADMIN, PINCHPOINT_READ_TOKEN=READ, PYTHONPATH=str(side.code)
    )
    for number in range(instances):
        data = work / f"{side.label}-{number}"
        data.mkdir(parents=True)
        (data / "pinchpoint.toml").write_text(QUIET_CONFIG, encoding="utf-8")
        port = free_port()
        log = (data / "serve.log").open("wb")
        side.processes.append(
            subprocess.Popen(
                [
                    *(sys.executable, "-m", "pinchpoint", "serve", "--role", "central"),
                    *("--demo", "--no-first-sweep", "--port", str(port)),
                    *("--data-dir", str(data), "--database-url", side.database),
                    *("--config", str(data / "pinchpoint.toml"), "--log-level", "warning"),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=environment,
                cwd=side.code,
            )
        )
        side.urls.append(f"http://127.0.0.1:{port}")
    for url in side.urls:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"{side.label}: {url} did not start (see {work})")
            time.sleep(0.3)


def _stop(side: Side) -> None:
    for process in side.processes:
        process.terminate()
    for process in side.processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def _clients(agents: int) -> Iterator[list[httpx.Client]]:
    clients = [
        httpx.Client(timeout=120, headers={"Authorization": f"Bearer {ADMIN}"})
        for _ in range(agents)
    ]
    try:
        yield clients
    finally:
        for client in clients:
            client.close()


def push_all(
    side: Side, bodies: list[Callable[[], bytes]], agents: int, path: str = "/v1/pushed-reports"
) -> tuple[float, int]:
    """Push every body to `path` over `agents` concurrent connections, both instances in turn
    (a refused push sent again, up to four times); pushes/s and how many answers were
    refusals."""
    refused = 0
    lock = threading.Lock()
    local = threading.local()
    with _clients(agents) as clients:
        pool = iter(clients)
        pool_lock = threading.Lock()

        def one(index: int) -> None:
            nonlocal refused
            if not hasattr(local, "client"):
                with pool_lock:
                    local.client = next(pool)
            url = side.urls[index % len(side.urls)] + path
            body = bodies[index]()
            last = ""
            for _attempt in range(4):  # as an agent does: a 5xx or a dropped connection again
                try:
                    answer = local.client.post(
                        url, content=body, headers={"Content-Type": "application/json"}
                    )
                except httpx.TransportError as err:
                    last = f"{type(err).__name__}: {err}"
                else:
                    if answer.status_code in (200, 201):
                        return
                    last = f"HTTP {answer.status_code}: {answer.text[:200]}"
                    if answer.status_code < 500:
                        break
                with lock:
                    refused += 1
                time.sleep(0.5)
            print(f"    {side.label}: not taken: {last}")

        start = time.perf_counter()
        with ThreadPoolExecutor(agents) as executor:
            list(executor.map(one, range(len(bodies))))
        elapsed = time.perf_counter() - start
    side.pushed += len(bodies)
    return len(bodies) / elapsed, refused


def time_gets(side: Side, count: int) -> tuple[list[float], bytes]:
    """`count` GETs of /v1/fleet/findings one after another, both instances in turn."""
    times = []
    body = b""
    with httpx.Client(timeout=300, headers={"Authorization": f"Bearer {READ}"}) as client:
        for index in range(count):
            url = side.urls[index % len(side.urls)] + "/v1/fleet/findings"
            start = time.perf_counter()
            answer = client.get(url)
            times.append(time.perf_counter() - start)
            if answer.status_code != 200:
                raise SystemExit(f"{side.label}: HTTP {answer.status_code}: {answer.text[:300]}")
            body = answer.content
    return times, body


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def _verdicts(answer: bytes) -> list[tuple[str, str, str]]:
    """What a fleet answer finds, whatever its findings' text says: each finding's id, entity
    and severity, in the answer's order (two codes whose findings are worded differently)."""
    return [(f["id"], f["entity"]["id"], f["severity"]) for f in json.loads(answer)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", default="100,1000")
    parser.add_argument("--big", type=int, default=30, help="7 MB hosts pushed")
    parser.add_argument(
        "--big-rounds", type=int, default=4, help="pushes by digest of each 7 MB host per round"
    )
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--gets", type=int, default=100, help="GETs per size (after)")
    parser.add_argument("--gets-before", type=int, default=20, help="GETs per size (before)")
    parser.add_argument(
        "--before", type=Path, default=ROOT.parent / "main", help="a checkout of the code before"
    )
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "pinchpoint-fleet-bench",
        help="kept: the simulated 1,920-path host and the instances' logs",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.hosts.split(",")]
    print(machine_line())
    print("the machine is shared with other work: figures are of this run, A/B interleaved")

    work = args.work
    for old in work.glob("before-*"), work.glob("after-*"):
        for path in old:
            shutil.rmtree(path)
    work.mkdir(parents=True, exist_ok=True)
    client = (SPECS / "fleet_client.toml").read_text(encoding="utf-8")
    client = client.replace('"client-01"', f'"{NAME}"')
    slow = client.replace("partner_mbps = [10, 100, 1000]", "partner_mbps = [10, 100]")
    templates = {}
    for name, text in (  # small hosts, simulated at every run
        ("client", client),
        ("client-slow", slow),
        ("storage", STORAGE.format(disk="A3D0")),
        ("storage-old", STORAGE.format(disk="A1G0")),
    ):
        (work / name).mkdir(exist_ok=True)
        templates[name] = _template(text, work / name)
    (work / "big").mkdir(exist_ok=True)
    big_report, big_inventory = check(SPECS / "bench_1920.toml", work / "big" / "snapshot")
    big = _template_of(big_report, big_inventory)
    big_by_digest = _by_digest_template(big_report, big_inventory)
    print(
        f"bodies: client {len(templates['client'].text) / 1e3:.0f} kB, storage "
        f"{len(templates['storage'].text) / 1e3:.0f} kB, 1,920-path host "
        f"{len(big.text) / 1e6:.1f} MB"
    )

    def ordinary(number: int) -> Template:
        if number % 2:
            return templates["client-slow" if number % 50 == 1 else "client"]
        return templates["storage-old" if number % 40 == 0 else "storage"]

    sides = [
        Side("before", args.before.resolve(), _create_database(ADMIN_URL, "fleet_bench_before")),
        Side("after", ROOT, _create_database(ADMIN_URL, "fleet_bench_after")),
    ]
    try:
        for side in sides:
            _start(side, work, args.instances)
        print(f"{args.instances} central instances each, {args.agents} agents pushing")
        have = 0
        answers: dict[str, bytes] = {}
        for size in sizes:
            new = range(have, size)
            for side in sides:
                bodies = [(lambda n=n: ordinary(n).body(f"host-{n:05d}", T0)) for n in new]
                rate, refused = push_all(side, bodies, args.agents)
                print(
                    f"  {side.label}: {len(bodies)} new ordinary hosts pushed: "
                    f"{rate:.1f}/s ({refused} refused)"
                )
            have = size
            for side in sides:
                count = args.gets if side.label == "after" else args.gets_before
                time_gets(side, 2)  # warm
                times, body = time_gets(side, count)
                answers[side.label] = body
                print(
                    f"  {side.label}: GET /v1/fleet/findings at {size} hosts, {count} "
                    f"requests: p50 {_ms(times, 0.5):.1f} ms, p99 {_ms(times, 0.99):.1f} ms, "
                    f"max {max(times) * 1000:.1f} ms, mean "
                    f"{statistics.mean(times) * 1000:.1f} ms"
                )
            same = json.loads(answers["before"]) == json.loads(answers["after"])
            verdicts = _verdicts(answers["before"]) == _verdicts(answers["after"])
            findings = len(json.loads(answers["after"]))
            print(
                f"  the same answer from both codes: {same}; the same findings (id, entity, "
                f"severity, in order): {verdicts} ({findings} findings)"
            )
        later = T0 + timedelta(minutes=5)
        for side in sides:
            bodies = [
                (lambda n=n, at=later: ordinary(n).body(f"host-{n:05d}", at)) for n in range(have)
            ]
            rate, refused = push_all(side, bodies, args.agents)
            print(
                f"  {side.label}: {have} ordinary hosts pushed again (same hardware): "
                f"{rate:.1f}/s ({refused} refused)"
            )
        for side in sides:
            bodies = [(lambda n=n: big.body(f"big-{n:04d}", T0)) for n in range(args.big)]
            rate, refused = push_all(side, bodies, min(args.agents, 4))
            print(
                f"  {side.label}: {args.big} new 7 MB hosts pushed whole: {rate:.2f}/s "
                f"({refused} refused)"
            )
        for side in sides:
            bodies = [(lambda n=n: big.body(f"big-{n:04d}", later)) for n in range(args.big)]
            rate, refused = push_all(side, bodies, min(args.agents, 4))
            print(
                f"  {side.label}: the {args.big} 7 MB hosts pushed whole again (same hardware): "
                f"{rate:.2f}/s ({refused} refused)"
            )
        after = sides[1]  # the agent's way: the parts by digest (this code only)
        bodies = [
            (lambda n=n, k=k: big_by_digest.body(f"big-{n:04d}", later + timedelta(minutes=5 * k)))
            for k in range(1, args.big_rounds + 1)
            for n in range(args.big)
        ]
        rate, refused = push_all(after, bodies, args.agents, "/v1/pushed-reports/by-digest")
        print(
            f"  {after.label}: the {args.big} 7 MB hosts pushed by digest, {args.big_rounds} "
            f"reports each (same hardware; {len(big_by_digest.text) / 1e3:.1f} kB a push): "
            f"{rate:.1f}/s ({refused} refused)"
        )
        for side in sides:
            times, _ = time_gets(side, 5 if side.label == "before" else args.gets)
            print(
                f"  {side.label}: GET /v1/fleet/findings with {args.big} big hosts more: "
                f"p50 {_ms(times, 0.5):.1f} ms, p99 {_ms(times, 0.99):.1f} ms"
            )
    finally:
        for side in sides:
            codes = [process.poll() for process in side.processes]
            if any(code is not None for code in codes):
                print(f"  {side.label}: instances exited early: {codes} (logs in {work})")
            _stop(side)
            _drop_database(ADMIN_URL, side.database)


if __name__ == "__main__":
    main()
