"""The fetch policy: which addresses and local paths `claims verify` may read, against real servers and files.

The servers run on loopback. To test a redirect *from* a public page, one server listens on 127.0.0.2
and the test declares that one address public; everything else is judged by the real `classify`.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from claimsdb.fetching import targets as policy
from claimsdb.fetching.fetch import FetchLimits, FetchRequest, fetch_all
from claimsdb.fetching.targets import FetchPolicy, classify
from tests.httpserver import LocalHTTPServer

PUBLIC_STAND_IN = "127.0.0.2"


def fetch(request: FetchRequest, **policy_fields):
    [result] = fetch_all([request], FetchLimits(timeout_s=5, policy=FetchPolicy(**policy_fields)))
    return result


@pytest.mark.parametrize(
    "address, kind",
    [
        ("93.184.216.34", "public"),
        ("2606:4700::6810:84e5", "public"),
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "private"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        # IPv4 inside IPv6: judged as the IPv4 host they reach
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:169.254.169.254", "link-local"),
        ("::ffff:10.1.2.3", "private"),
        ("64:ff9b::a9fe:a9fe", "link-local"),
        ("2002:7f00:1::", "loopback"),
        ("::ffff:8.8.8.8", "public"),
    ],
)
def test_every_address_has_one_named_kind(address, kind):
    assert classify(address) == kind


@pytest.fixture
def entrance(monkeypatch):
    """A server on 127.0.0.2 that the test treats as a public host."""
    real = policy.classify
    monkeypatch.setattr(policy, "classify", lambda a: "public" if a == PUBLIC_STAND_IN else real(a))
    with LocalHTTPServer(PUBLIC_STAND_IN) as server:
        yield server


@pytest.fixture
def internal():
    """A server on 127.0.0.1 with an admin page nobody outside should reach."""
    with LocalHTTPServer() as server:
        server.add("/admin", b"<p>secret admin page</p>")
        yield server


def test_loopback_is_refused_by_default_before_any_connection(internal):
    result = fetch(FetchRequest("s", internal.url("/admin")))
    assert result.outcome == "unreachable" and result.content is None
    assert (
        result.error
        == "127.0.0.1 is a loopback address: refused (--allow-local allows loopback and private addresses)"
    )
    assert internal.requests == []


@pytest.mark.parametrize(
    "host", ["localhost", "2130706433", "0x7f000001", "127.1", "[::ffff:127.0.0.1]"]
)
def test_other_spellings_of_loopback_are_refused_after_resolution(internal, host):
    result = fetch(FetchRequest("s", f"http://{host}:{internal.port}/admin"))
    assert result.outcome == "unreachable" and "loopback address: refused" in result.error
    assert internal.requests == []


def test_allow_local_lets_a_local_mirror_be_fetched(internal):
    result = fetch(FetchRequest("s", internal.url("/admin")), allow_local=True)
    assert result.outcome == "fetched" and result.content == b"<p>secret admin page</p>"


@pytest.mark.parametrize(
    "target, kind",
    [
        ("http://127.0.0.1:{port}/admin", "loopback"),
        ("http://localhost:{port}/admin", "loopback"),
        ("http://[::1]:{port}/admin", "loopback"),
        ("http://169.254.169.254/latest/meta-data/iam/security-credentials/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://192.168.0.1:8080/router", "private"),
        ("http://224.0.0.251/", "multicast"),
        ("http://0.0.0.0:{port}/admin", "unspecified"),
    ],
)
def test_a_redirect_from_a_public_page_to_an_internal_address_is_refused(
    entrance, internal, target, kind
):
    url = target.format(port=internal.port)
    entrance.redirect("/page", url)
    result = fetch(FetchRequest("s", entrance.url("/page")))
    assert result.outcome == "unreachable" and result.content is None
    assert (
        result.error.startswith(f"redirect to {url}: ")
        and f"is a {kind} address: refused" in result.error
    )
    assert result.url == url
    assert internal.requests == []  # the check runs before the connection


def test_redirects_are_checked_at_every_hop(entrance, internal):
    entrance.redirect("/one", "/two")
    entrance.redirect("/two", entrance.url("/three"))
    entrance.redirect("/three", internal.url("/admin"))
    result = fetch(FetchRequest("s", entrance.url("/one")))
    assert "loopback address: refused" in result.error
    assert [r.path for r in entrance.requests] == [
        "/one",
        "/two",
        "/three",
    ] and internal.requests == []


def test_allow_local_follows_a_redirect_to_a_local_mirror_but_never_to_link_local(
    entrance, internal
):
    entrance.redirect("/mirror", internal.url("/admin"))
    entrance.redirect("/metadata", "http://169.254.169.254/latest/")
    mirrored = fetch(FetchRequest("s", entrance.url("/mirror")), allow_local=True)
    assert mirrored.outcome == "fetched" and mirrored.content == b"<p>secret admin page</p>"
    metadata = fetch(FetchRequest("s", entrance.url("/metadata")), allow_local=True)
    assert "169.254.169.254 is a link-local address: refused" in metadata.error


@pytest.fixture
def fake_dns(monkeypatch):
    """Answers for made-up host names; every other name goes to the real resolver."""
    answers: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in answers[host]]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers


def test_the_connection_goes_to_the_address_that_was_checked(entrance, fake_dns):
    fake_dns["mirror.example"] = [PUBLIC_STAND_IN]
    entrance.add("/page", b"<p>public page</p>")
    result = fetch(FetchRequest("s", f"http://mirror.example:{entrance.port}/page"))
    assert result.outcome == "fetched" and result.content == b"<p>public page</p>"
    assert entrance.requests[0].headers["host"] == f"mirror.example:{entrance.port}"


def test_one_internal_address_among_a_hosts_answers_refuses_the_host(entrance, fake_dns):
    fake_dns["mixed.example"] = [PUBLIC_STAND_IN, "169.254.169.254"]
    entrance.add("/page", b"<p>public page</p>")
    result = fetch(FetchRequest("s", f"http://mixed.example:{entrance.port}/page"))
    assert result.error == "mixed.example (169.254.169.254) is a link-local address: refused"
    assert entrance.requests == []


# ------------------------------------------------------------------ local paths


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """root/ with a page, a sub-folder, and links; a secret outside root; HOME outside root."""
    root, outside, home = tmp_path / "root", tmp_path / "outside", tmp_path / "home"
    for folder in (root / "sub", outside, home):
        folder.mkdir(parents=True)
    (root / "page.md").write_text("the page", encoding="utf-8")
    (root / "sub" / "deep.md").write_text("deep page", encoding="utf-8")
    (outside / "secret.txt").write_text("secret", encoding="utf-8")
    (home / ".bashrc").write_text("export TOKEN=secret", encoding="utf-8")
    (root / "link-out.md").symlink_to(outside / "secret.txt")
    (root / "link-in.md").symlink_to(root / "sub" / "deep.md")
    (root / "dir-out").symlink_to(outside)
    monkeypatch.setenv("HOME", str(home))
    return root


@pytest.mark.parametrize(
    "path, content",
    [
        ("page.md", b"the page"),
        ("sub/deep.md", b"deep page"),
        ("sub/../page.md", b"the page"),
        ("{root}/page.md", b"the page"),
        ("link-in.md", b"deep page"),
    ],
)
def test_paths_inside_the_root_are_read(tree, path, content):
    result = fetch(FetchRequest("s", path=path.format(root=tree)), local_root=tree)
    assert result.outcome == "fetched" and result.content == content


@pytest.mark.parametrize(
    "path, why",
    [
        ("../outside/secret.txt", "outside the local root"),
        ("sub/../../outside/secret.txt", "outside the local root"),
        ("{outside}/secret.txt", "outside the local root"),
        ("~/.bashrc", "outside the local root"),
        ("link-out.md", "outside the local root"),
        ("dir-out/secret.txt", "outside the local root"),
        ("/etc/passwd", "outside the local root"),
        ("/proc/self/environ", "/proc is never read"),
    ],
)
def test_paths_outside_the_root_are_refused(tree, path, why):
    shown = path.format(outside=tree.parent / "outside")
    result = fetch(FetchRequest("s", path=shown), local_root=tree)
    assert result.outcome == "unreachable" and result.content is None
    assert result.error.startswith(f"local copy {shown} not read: ") and why in result.error


@pytest.mark.parametrize(
    "path",
    ["/proc/self/environ", "/proc/self/cmdline", "/dev/zero", "/dev/stdin", "/sys/kernel/notes"],
)
def test_system_folders_are_never_read_even_under_a_root_of_slash(path):
    result = fetch(FetchRequest("s", path=path), local_root=Path("/"))
    assert result.outcome == "unreachable" and "is never read" in result.error


def test_without_a_root_no_local_copy_is_read(tree):
    result = fetch(FetchRequest("s", path=str(tree / "page.md")))
    assert (
        result.error
        == f"local copy {tree / 'page.md'} not read: no local root (name one with --local-root)"
    )


def test_a_fifo_inside_the_root_is_not_a_file_and_does_not_hang(tree):
    os.mkfifo(tree / "pipe")
    result = fetch(FetchRequest("s", path="pipe"), local_root=tree)
    assert result.error == "not a file: pipe"
