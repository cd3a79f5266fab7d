"""Hostile sources through `claims verify`: local paths outside the root, internal addresses, redirects.

Nothing refused is read, stored as a snapshot or shown; the check says why. The servers run on loopback;
127.0.0.2 stands in for a public host (the test declares that one address public).
"""

from __future__ import annotations

import json

import pytest

from claimsdb.fetching import targets as policy
from tests.httpserver import LocalHTTPServer

QUOTE = "Orchard-9 was trained on 4,096 GPUs."
SECRET = "TOKEN=hunter2"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """project/claims.db (so project/ is the default local root); a secret outside it; HOME outside it."""
    root, outside, home = tmp_path / "project", tmp_path / "outside", tmp_path / "home"
    for folder in (root / "pages", outside, home):
        folder.mkdir(parents=True)
    (root / "pages" / "copy.md").write_text(f"Notes\n\n{QUOTE}\n", encoding="utf-8")
    (outside / "secret.txt").write_text(f"{QUOTE} {SECRET}\n", encoding="utf-8")
    (home / ".bashrc").write_text(f"{QUOTE} export {SECRET}\n", encoding="utf-8")
    (root / "pages" / "innocent.md").symlink_to(outside / "secret.txt")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAIMS_VERIFY_ALLOW_LOCAL", raising=False)
    monkeypatch.delenv("CLAIMS_VERIFY_ROOT", raising=False)
    return root


@pytest.fixture
def verify(claims, project, write_json):
    """Import one claim per source, run `claims verify --all --format json`, return (exit code, report, stdout)."""
    db = project / "claims.db"

    def run(sources: dict[str, dict], *options: str):
        doc = {
            "sources": [{"key": k, "title": k, "kind": "report", **s} for k, s in sources.items()],
            "claims": [
                {
                    "key": f"c.{k}",
                    "subject": "Orchard-9",
                    "statement": QUOTE,
                    "tag": "agent-reported",
                    "basis": "test",
                    "figures": ["4,096 GPUs"],
                    "evidence": [{"source": k, "quote": QUOTE}],
                }
                for k in sources
            ],
        }
        assert claims("import", write_json(doc), db=db).exit_code == 0
        result = claims(
            "verify",
            "--all",
            "--timeout",
            "2",
            "--sources-dir",
            project / "snapshots-root",
            "--format",
            "json",
            *options,
            db=db,
        )
        assert result.exit_code in (0, 1), result.output
        report = json.loads(result.stdout)
        return (
            result.exit_code,
            {r["claim"].removeprefix("c."): r for r in report["results"]},
            result.stdout,
        )

    return run


def snapshots(project) -> list:
    folder = project / "snapshots-root" / "snapshots"
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_local_copies_outside_the_database_folder_are_never_read(verify, project):
    outside = project.parent / "outside" / "secret.txt"
    code, results, stdout = verify(
        {
            "inside": {"path": "pages/copy.md"},
            "passwd": {"path": "/etc/passwd"},
            "dotdot": {"path": "../outside/secret.txt"},
            "dotdot-abs": {"path": str(project / "pages" / ".." / ".." / "outside" / "secret.txt")},
            "home": {"path": "~/.bashrc"},
            "environ": {"path": "/proc/self/environ"},
            "device": {"path": "/dev/zero"},
            "symlink": {"path": "pages/innocent.md"},
        }
    )
    assert code == 1 and results.pop("inside")["outcome"] == "confirmed"
    for key, r in results.items():
        assert r["outcome"] == "unreachable" and r["passage"] is None, key
        assert r["error"].startswith("local copy ") and " not read: " in r["error"], r["error"]
    assert (
        "outside the local root" in results["dotdot"]["error"]
        and "/proc is never read" in results["environ"]["error"]
    )
    assert SECRET not in stdout and "root:" not in stdout and str(outside) not in stdout
    assert len(snapshots(project)) == 1  # only the page inside the root


@pytest.mark.slow
def test_local_root_names_another_folder_and_relative_paths_are_read_from_it(
    verify, project, monkeypatch
):
    elsewhere = project.parent / "outside"
    code, results, _ = verify({"there": {"path": "secret.txt"}}, "--local-root", str(elsewhere))
    assert code == 0 and results["there"]["outcome"] == "confirmed"
    monkeypatch.setenv("CLAIMS_VERIFY_ROOT", str(project / "pages"))
    code, results, _ = verify({"there": {"path": "copy.md"}})
    assert code == 0 and results["there"]["outcome"] == "confirmed"


def test_a_local_root_that_is_not_a_folder_is_a_usage_error(claims, project):
    result = claims("verify", "--all", "--local-root", project / "nope", db=project / "claims.db")
    assert (
        result.exit_code == 2
        and "--local-root" in result.stderr
        and "is not a folder" in result.stderr
    )


@pytest.fixture
def internal():
    with LocalHTTPServer() as server:
        server.add("/admin", f"<p>{QUOTE} {SECRET}</p>".encode())
        yield server


@pytest.mark.slow
def test_loopback_needs_allow_local_or_the_environment_variable(verify, internal, monkeypatch):
    sources = {"mirror": {"url": internal.url("/admin")}}
    code, results, stdout = verify(sources)
    assert code == 1 and "127.0.0.1 is a loopback address: refused" in results["mirror"]["error"]
    assert internal.requests == [] and SECRET not in stdout
    code, results, _ = verify(sources, "--allow-local")
    assert code == 0 and results["mirror"]["outcome"] == "confirmed"
    monkeypatch.setenv("CLAIMS_VERIFY_ALLOW_LOCAL", "1")
    code, results, _ = verify(sources)
    assert code == 0 and results["mirror"]["outcome"] == "confirmed"


@pytest.fixture
def entrance(monkeypatch):
    real = policy.classify
    monkeypatch.setattr(policy, "classify", lambda a: "public" if a == "127.0.0.2" else real(a))
    with LocalHTTPServer("127.0.0.2") as server:
        yield server


def test_redirects_from_a_public_page_to_internal_addresses_are_refused(
    verify, entrance, internal, project
):
    entrance.add("/page.html", f"<p>{QUOTE}</p>".encode())
    entrance.redirect("/moved", "/page.html")
    entrance.redirect("/admin", internal.url("/admin"))
    entrance.redirect("/metadata", "http://169.254.169.254/latest/meta-data/")
    entrance.redirect("/router", "http://192.168.1.1/")
    entrance.redirect("/name", f"http://localhost:{internal.port}/admin")
    code, results, stdout = verify(
        {
            k: {"url": entrance.url(f"/{k}")}
            for k in ("moved", "admin", "metadata", "router", "name")
        }
    )
    assert code == 1 and results.pop("moved")["outcome"] == "confirmed"
    kinds = {"admin": "loopback", "metadata": "link-local", "router": "private", "name": "loopback"}
    for key, r in results.items():
        assert r["outcome"] == "unreachable" and r["error"].startswith("redirect to "), r
        assert f"is a {kinds[key]} address: refused" in r["error"], r["error"]
    assert internal.requests == [] and SECRET not in stdout


def test_the_policy_is_in_the_help(claims):
    result = claims("verify", "--help", db=None)
    text = " ".join(result.stdout.split())
    for words in (
        "--allow-local",
        "CLAIMS_VERIFY_ALLOW_LOCAL",
        "--local-root",
        "CLAIMS_VERIFY_ROOT",
        "public addresses only",
        "never under /proc, /dev or /sys",
    ):
        assert words in text, words
