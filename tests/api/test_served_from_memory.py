"""What the API serves from memory (issue 17): every answer of a view says how old its report
is, and `/metrics` is rendered once per change, the same exposition as a render per scrape,
compressed when the scraper asks, in the format it negotiates."""

from __future__ import annotations

import gzip
from email.utils import parsedate_to_datetime

from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from tests.api.conftest import Server

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


def test_answers_carry_their_report_and_its_time(demo_server: Server) -> None:
    with demo_server.client() as client:
        report = client.get("/v1/reports/latest")
        enclosures = client.get("/v1/inventory/enclosures", headers={"Accept-Encoding": "gzip"})
    made = report.json()["generated_at"]
    for answer in (report, enclosures):
        assert answer.status_code == 200
        assert answer.headers["X-Report-Id"] == report.headers["X-Report-Id"]
        assert answer.headers["X-Report-Time"].replace("+00:00", "Z") == made.replace("+00:00", "Z")
        last_modified = parsedate_to_datetime(answer.headers["Last-Modified"])
        assert last_modified.isoformat().replace("+00:00", "Z")[:19] == made[:19]
    assert enclosures.headers["Content-Encoding"] == "gzip"


def test_metrics_from_memory_are_the_exposition_rendered_per_scrape(demo_server: Server) -> None:
    service = demo_server.service
    with demo_server.client() as client:
        served = demo_server.fresh_metrics(client, {"Accept-Encoding": "identity"})
        renders = service._metrics_cache.renders
        again = [client.get("/metrics", headers={"Accept-Encoding": "identity"}) for _ in range(5)]
    assert served.status_code == 200
    assert served.headers["Content-Type"] == CONTENT_TYPE_PLAIN_0_0_4
    assert "Content-Encoding" not in served.headers
    rendered, content_type = service.metrics(None)  # the old way: a render per scrape
    assert content_type == CONTENT_TYPE_PLAIN_0_0_4
    assert served.content == rendered
    assert all(a.content == rendered for a in again)
    assert service._metrics_cache.renders == renders  # the five came from memory


def test_metrics_gzip_when_asked(demo_server: Server) -> None:
    with demo_server.client() as client:
        raw = client.build_request("GET", "/metrics", headers={"Accept-Encoding": "gzip"})
        answer = client.send(raw, stream=True)
        packed = b"".join(answer.iter_raw())
        answer.close()
    assert answer.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in answer.headers["Vary"]
    assert gzip.decompress(packed) == demo_server.service.metrics(None)[0]


def test_metrics_negotiates_openmetrics(demo_server: Server) -> None:
    with demo_server.client() as client:
        text = client.get("/metrics", headers={"Accept": "text/plain;version=0.0.4"})
        open_metrics = client.get("/metrics", headers={"Accept": "application/openmetrics-text"})
        packed = client.get(
            "/metrics",
            headers={"Accept": "application/openmetrics-text", "Accept-Encoding": "gzip"},
        )
    assert text.headers["Content-Type"] == CONTENT_TYPE_PLAIN_0_0_4
    assert open_metrics.headers["Content-Type"] == OPENMETRICS
    assert open_metrics.text.endswith("# EOF\n")
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.text == open_metrics.text  # httpx unpacked it
    expected, _ = demo_server.service.metrics("application/openmetrics-text")
    assert open_metrics.content == expected
