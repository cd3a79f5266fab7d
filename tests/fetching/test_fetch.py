"""Fetching sources against a real HTTP server on 127.0.0.1, and local copies on disk."""

from __future__ import annotations

import gzip
import socket
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from claimsdb.fetching.fetch import FetchLimits, FetchRequest, FetchResult, fetch_all
from claimsdb.fetching.targets import FetchPolicy


def limits(root: Path | None = None, **fields) -> FetchLimits:
    """Limits for these tests: the server is on 127.0.0.1, local copies are under `root`.
    (The policy itself is tested in test_policy.py.)"""
    return FetchLimits(policy=FetchPolicy(allow_local=True, local_root=root), **fields)


FAST = limits(timeout_s=5.0)
LAST_MODIFIED = "Wed, 21 Oct 2026 07:28:00 GMT"
PDF_LIKE = (
    b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n\x00\x01\x02\xff\n%%EOF\n"
)


def fetch_one(request: FetchRequest, limits: FetchLimits = FAST) -> FetchResult:
    [result] = fetch_all([request], limits)
    return result


def unreachable(result: FetchResult) -> str:
    assert result.outcome == "unreachable", result
    assert result.content is None
    assert result.error and "\n" not in result.error
    return result.error


# ------------------------------------------------------------------ successful fetches


def test_html_comes_back_with_status_type_validators_and_timing(http_server):
    body = b"<html><body><p>3,072 H100 GPUs</p></body></html>"
    url = http_server.add("/report", body, etag='"r1"', last_modified=LAST_MODIFIED)
    before = datetime.now().astimezone()
    result = fetch_one(FetchRequest("widget-report", url))
    assert result.outcome == "fetched"
    assert result.source == "widget-report"
    assert result.url == url
    assert result.status == 200
    assert result.content == body
    assert result.content_type == "text/html; charset=utf-8"
    assert result.etag == '"r1"'
    assert result.last_modified == LAST_MODIFIED
    assert result.error is None
    at = datetime.fromisoformat(result.fetched_at)
    assert at.utcoffset() == timedelta(0)
    assert before - timedelta(seconds=1) <= at <= datetime.now().astimezone()
    assert 0 <= result.elapsed_s < 5


def test_markdown_and_pdf_bytes_come_back_with_their_content_types(http_server):
    markdown = "# Widget\n\nContext grew from 8K to 256K tokens — see §3.\n".encode()
    md_url = http_server.add("/notes.md", markdown, content_type="text/markdown; charset=utf-8")
    pdf_url = http_server.add("/paper.pdf", PDF_LIKE, content_type="application/pdf")
    md, pdf = fetch_all([FetchRequest("notes", md_url), FetchRequest("paper", pdf_url)], FAST)
    assert (md.source, md.outcome, md.content, md.content_type) == (
        "notes",
        "fetched",
        markdown,
        "text/markdown; charset=utf-8",
    )
    assert (pdf.source, pdf.outcome, pdf.content, pdf.content_type) == (
        "paper",
        "fetched",
        PDF_LIKE,
        "application/pdf",
    )


def test_non_utf8_bytes_are_returned_untouched(http_server):
    body = (
        bytes(range(256)) + b"caf\xe9 \xff\xfe\x80 na\xefve"
    )  # Latin-1 and invalid UTF-8 under a utf-8 label
    url = http_server.add("/latin1", body, content_type="text/html; charset=utf-8")
    result = fetch_one(FetchRequest("s", url))
    assert result.outcome == "fetched"
    assert result.content == body


def test_gzip_content_encoding_is_decoded(http_server):
    url = http_server.add(
        "/gz", gzip.compress(b"<p>compressed</p>"), headers={"Content-Encoding": "gzip"}
    )
    result = fetch_one(FetchRequest("s", url))
    assert result.outcome == "fetched"
    assert result.content == b"<p>compressed</p>"


def test_user_agent_names_claimsdb(http_server):
    url = http_server.add("/ua", b"ok")
    assert fetch_one(FetchRequest("s", url)).outcome == "fetched"
    [received] = http_server.requests
    assert received.headers["user-agent"].startswith("claimsdb/")


# ------------------------------------------------------------------ failures are results, never exceptions


@pytest.mark.parametrize("status", [404, 410, 500, 503])
def test_http_error_status_is_unreachable(http_server, status):
    url = http_server.add("/broken", b"<h1>oops</h1>", status=status)
    result = fetch_one(FetchRequest("s", url))
    assert unreachable(result) == f"HTTP {status}"
    assert result.status == status
    assert result.url == url


def test_unknown_route_is_404_unreachable(http_server):
    result = fetch_one(FetchRequest("s", http_server.url("/nowhere")))
    assert unreachable(result) == "HTTP 404"


def test_server_slower_than_the_timeout_is_unreachable(http_server):
    url = http_server.add("/slow", b"late", delay_s=5)
    started = time.monotonic()
    result = fetch_one(FetchRequest("s", url), limits(timeout_s=0.5))
    assert unreachable(result) == "timed out after 0.5 s"
    assert result.status is None
    assert time.monotonic() - started < 3


def test_timeout_covers_the_whole_request_not_each_read(http_server):
    # Every read arrives within 0.2 s, but the body takes 2 s in all.
    url = http_server.add("/drip", b"x" * 100, repeat=10, trickle_s=0.2, stream=True)
    started = time.monotonic()
    result = fetch_one(FetchRequest("s", url), limits(timeout_s=0.6))
    assert unreachable(result) == "timed out after 0.6 s"
    assert time.monotonic() - started < 1.8


def test_redirect_chain_within_the_limit_is_followed_and_the_final_url_reported(http_server):
    final = http_server.add("/final", b"<p>here</p>")
    http_server.redirect("/r1", "/r2", status=301)
    http_server.redirect("/r2", http_server.url("/r3"), status=307)  # absolute
    http_server.redirect("/r3", "final", status=302)  # relative to /r3
    result = fetch_one(
        FetchRequest("s", http_server.url("/r1")), limits(timeout_s=5, max_redirects=3)
    )
    assert result.outcome == "fetched"
    assert result.url == final
    assert result.content == b"<p>here</p>"
    assert [r.path for r in http_server.requests] == ["/r1", "/r2", "/r3", "/final"]


def test_redirect_chain_longer_than_the_limit_is_unreachable(http_server):
    http_server.add("/final", b"<p>here</p>")
    http_server.redirect("/r1", "/r2")
    http_server.redirect("/r2", "/r3")
    http_server.redirect("/r3", "/final")
    result = fetch_one(
        FetchRequest("s", http_server.url("/r1")), limits(timeout_s=5, max_redirects=2)
    )
    assert unreachable(result) == "too many redirects (2)"
    assert http_server.count("/final") == 0


def test_redirect_loop_is_unreachable_after_the_limit(http_server):
    http_server.redirect("/a", "/b")
    http_server.redirect("/b", "/a")
    result = fetch_one(
        FetchRequest("s", http_server.url("/a")), limits(timeout_s=5, max_redirects=5)
    )
    error = unreachable(result)
    assert error.startswith("too many redirects (5)")
    assert "loop" in error
    assert len(http_server.requests) == 6  # the first request and 5 redirects, then it stopped


def test_redirect_to_another_scheme_is_refused(http_server):
    http_server.redirect("/away", "ftp://127.0.0.1/file.txt")
    result = fetch_one(FetchRequest("s", http_server.url("/away")))
    assert unreachable(result) == "redirect to unsupported scheme 'ftp'"
    assert [r.path for r in http_server.requests] == ["/away"]


def test_streamed_body_over_the_limit_is_abandoned_early(http_server):
    # 256 MiB with no Content-Length; the client must stop reading just past 1,000,000 bytes.
    total = 256 * 1024 * 1024
    url = http_server.add("/huge", b"\xab" * 1024 * 1024, repeat=256, stream=True)
    result = fetch_one(FetchRequest("s", url), limits(timeout_s=10, max_bytes=1_000_000))
    assert unreachable(result) == "body larger than 1,000,000 bytes"
    assert result.status == 200
    assert http_server.wait_idle(timeout=10)
    assert http_server.sent("/huge") < total // 4  # only socket buffers' worth beyond what was read


def test_declared_length_over_the_limit_is_refused_without_waiting_for_the_body(http_server):
    # Content-Length says 50 MB; the body would only start after 3 s. Refusing must not wait for it.
    url = http_server.add("/declared", b"x" * 10, content_length=50_000_000, trickle_s=3)
    started = time.monotonic()
    result = fetch_one(FetchRequest("s", url), limits(timeout_s=10, max_bytes=1_000_000))
    assert unreachable(result) == "body larger than 1,000,000 bytes"
    assert time.monotonic() - started < 2


@pytest.mark.parametrize(("size", "fits"), [(1000, True), (1001, False)])
def test_max_bytes_boundary_on_a_streamed_body(http_server, size, fits):
    url = http_server.add("/edge", b"y" * size, stream=True)
    result = fetch_one(FetchRequest("s", url), limits(timeout_s=5, max_bytes=1000))
    if fits:
        assert result.outcome == "fetched" and result.content == b"y" * size
    else:
        assert unreachable(result) == "body larger than 1,000 bytes"


def test_body_that_does_not_decode_is_unreachable(http_server):
    url = http_server.add("/badgzip", b"this is not gzip", headers={"Content-Encoding": "gzip"})
    result = fetch_one(FetchRequest("s", url))
    assert unreachable(result).startswith("could not decode the body")


def test_body_shorter_than_its_content_length_is_unreachable(http_server):
    url = http_server.add("/short", b"only this", content_length=5000)
    result = fetch_one(FetchRequest("s", url))
    assert unreachable(result).startswith("protocol error")


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("ftp://127.0.0.1:{port}/file.txt", "unsupported scheme 'ftp'"),
        ("file:///etc/hostname", "unsupported scheme 'file'"),
        ("not a url", "not an absolute URL: 'not a url'"),
        ("http:///no-host", "URL has no host: 'http:///no-host'"),
        ("http://:80/x", "URL has no host: 'http://:80/x'"),
        (
            "http://a.invalid/x y",
            "URL holds a space, control or format character: 'http://a.invalid/x y'",
        ),
    ],
)
def test_non_http_urls_are_refused_without_a_request(http_server, url, error):
    result = fetch_one(FetchRequest("s", url.format(port=http_server.port)))
    assert unreachable(result) == error
    assert result.status is None
    assert http_server.requests == []


def test_connection_refused_is_unreachable():
    with socket.socket() as probe:  # a port that was free a moment ago, with nothing listening now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = fetch_one(FetchRequest("s", f"http://127.0.0.1:{port}/"))
    assert unreachable(result) == "connection refused"


def test_request_with_neither_url_nor_path_is_unreachable():
    assert unreachable(fetch_one(FetchRequest("s"))) == "no URL or local path"


def test_a_mixed_batch_never_raises_and_keeps_request_order(http_server, tmp_path):
    ok = http_server.add("/ok", b"fine")
    requests = [
        FetchRequest("missing", http_server.url("/missing")),
        FetchRequest("ftp", "ftp://example.org/x"),
        FetchRequest("ok", ok),
        FetchRequest("slow", http_server.add("/slow", b"", delay_s=3)),
        FetchRequest("nofile", path=str(tmp_path / "absent.html")),
    ]
    results = fetch_all(requests, limits(tmp_path, timeout_s=0.5))
    assert [r.source for r in results] == ["missing", "ftp", "ok", "slow", "nofile"]
    assert [r.outcome for r in results] == [
        "unreachable",
        "unreachable",
        "fetched",
        "unreachable",
        "unreachable",
    ]
    assert results[2].content == b"fine"


# ------------------------------------------------------------------ conditional requests


def test_second_fetch_with_the_etag_is_not_modified(http_server):
    url = http_server.add("/doc", b"<p>v1</p>", etag='"v1"', last_modified=LAST_MODIFIED)
    first = fetch_one(FetchRequest("s", url))
    assert first.outcome == "fetched"
    second = fetch_one(FetchRequest("s", url, etag=first.etag, last_modified=first.last_modified))
    assert second.outcome == "not-modified"
    assert second.status == 304
    assert second.content is None and second.error is None
    assert (second.etag, second.last_modified) == ('"v1"', LAST_MODIFIED)
    first_seen, second_seen = http_server.requests
    assert "if-none-match" not in first_seen.headers
    assert second_seen.headers["if-none-match"] == '"v1"'
    assert second_seen.headers["if-modified-since"] == LAST_MODIFIED


def test_last_modified_alone_gives_not_modified(http_server):
    url = http_server.add("/dated", b"<p>dated</p>", last_modified=LAST_MODIFIED)
    first = fetch_one(FetchRequest("s", url))
    assert first.etag is None
    second = fetch_one(FetchRequest("s", url, last_modified=first.last_modified))
    assert second.outcome == "not-modified"
    assert second.last_modified == LAST_MODIFIED
    assert http_server.requests[-1].headers["if-modified-since"] == LAST_MODIFIED


def test_a_stale_etag_gets_the_new_content(http_server):
    url = http_server.add("/doc", b"<p>v2</p>", etag='"v2"')
    result = fetch_one(FetchRequest("s", url, etag='"v1"'))
    assert result.outcome == "fetched"
    assert result.content == b"<p>v2</p>"
    assert result.etag == '"v2"'
    assert http_server.requests[0].headers["if-none-match"] == '"v1"'


def test_304_to_an_unconditional_request_is_unreachable(http_server):
    url = http_server.add("/odd", b"", status=304)
    assert unreachable(fetch_one(FetchRequest("s", url))) == "HTTP 304 to an unconditional request"


# ------------------------------------------------------------------ local copies


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("notes.md", "text/markdown"),
        ("page.mdx", "text/markdown"),
        ("page.html", "text/html"),
        ("paper.pdf", "application/pdf"),
        ("plain.txt", "text/plain"),
        ("blob.unknownext", None),
    ],
)
def test_local_file_is_read_with_a_guessed_content_type(tmp_path, name, content_type):
    path = tmp_path / name
    path.write_bytes(PDF_LIKE)
    result = fetch_one(FetchRequest("local", path=str(path)), limits(tmp_path))
    assert result.outcome == "fetched"
    assert result.content == PDF_LIKE
    assert result.content_type == content_type
    assert result.url == str(path)
    assert result.status is None and result.error is None


def test_local_path_wins_over_url(http_server, tmp_path):
    path = tmp_path / "copy.html"
    path.write_bytes(b"<p>local</p>")
    url = http_server.add("/remote", b"<p>remote</p>")
    result = fetch_one(FetchRequest("s", url=url, path=str(path)), limits(tmp_path))
    assert result.content == b"<p>local</p>"
    assert http_server.requests == []


def test_missing_local_file_is_unreachable(tmp_path):
    path = tmp_path / "gone.md"
    result = fetch_one(FetchRequest("s", path=str(path)), limits(tmp_path))
    assert unreachable(result) == f"no such file: {path}"
    assert result.url == str(path)


def test_local_directory_is_unreachable(tmp_path):
    assert (
        unreachable(fetch_one(FetchRequest("s", path=str(tmp_path)), limits(tmp_path)))
        == f"not a file: {tmp_path}"
    )


def test_local_file_over_the_limit_is_unreachable(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"z" * 2001)
    result = fetch_one(FetchRequest("s", path=str(path)), limits(tmp_path, max_bytes=2000))
    assert unreachable(result) == "body larger than 2,000 bytes"


# ------------------------------------------------------------------ batches


@pytest.mark.slow
@pytest.mark.parametrize(("concurrency", "count"), [(8, 20), (3, 9)])
def test_requests_overlap_up_to_the_concurrency_limit(http_server, concurrency, count):
    http_server.add("/slow", b"ok", delay_s=0.2)
    requests = [FetchRequest(f"s{i}", http_server.url(f"/slow?i={i}")) for i in range(count)]
    results = fetch_all(requests, limits(concurrency=concurrency, timeout_s=5))
    assert [r.outcome for r in results] == ["fetched"] * count
    assert [r.url for r in results] == [r.url for r in requests]
    assert 2 <= http_server.max_in_flight <= concurrency


def test_results_keep_request_order_while_on_result_follows_completion(http_server):
    delays = [0.45, 0.3, 0.15, 0.0]
    requests = [
        FetchRequest(f"s{i}", http_server.add(f"/d{i}", f"body {i}".encode(), delay_s=d))
        for i, d in enumerate(delays)
    ]
    seen: list[FetchResult] = []
    results = fetch_all(requests, limits(concurrency=4, timeout_s=5), on_result=seen.append)
    assert [r.source for r in results] == ["s0", "s1", "s2", "s3"]
    assert [r.content for r in results] == [b"body 0", b"body 1", b"body 2", b"body 3"]
    assert [r.source for r in seen] == ["s3", "s2", "s1", "s0"]  # as each finished
    assert sorted(seen, key=lambda r: r.source) == results


def test_each_distinct_request_is_fetched_once(http_server):
    shared = http_server.add("/shared", b"same page")
    other = http_server.add("/other", b"another page")
    requests = [
        FetchRequest("a", shared),
        FetchRequest("a", shared),
        FetchRequest("b", shared),  # another source citing the same page
        FetchRequest("c", other),
    ]
    seen: list[FetchResult] = []
    results = fetch_all(requests, FAST, on_result=seen.append)
    assert http_server.count("/shared") == 1
    assert http_server.count("/other") == 1
    assert [r.source for r in results] == ["a", "a", "b", "c"]
    assert [r.content for r in results] == [b"same page"] * 3 + [b"another page"]
    assert len(seen) == 4
    assert sorted(r.source for r in seen) == ["a", "a", "b", "c"]


def test_the_same_url_with_different_validators_is_fetched_for_each(http_server):
    url = http_server.add("/v", b"page", etag='"v1"')
    results = fetch_all([FetchRequest("a", url), FetchRequest("b", url, etag='"v1"')], FAST)
    assert [r.outcome for r in results] == ["fetched", "not-modified"]
    assert http_server.count("/v") == 2


def test_empty_batch_returns_nothing_and_reports_nothing():
    seen: list[FetchResult] = []
    assert fetch_all([], on_result=seen.append) == []
    assert seen == []


@pytest.mark.parametrize(
    "bad",
    [dict(concurrency=0), dict(timeout_s=0), dict(max_bytes=-1), dict(max_redirects=-1)],
)
def test_nonsense_limits_are_rejected(bad):
    with pytest.raises(ValueError):
        FetchLimits(**bad)
