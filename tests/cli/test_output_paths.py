"""Output paths are files: every command's `-o` (export and a CSV export's manifest, an HTML export's page,
`people export-signers`, `people sign`, `db anchor`) writes only a regular file. A FIFO, a socket, a
device, a folder or a symbolic link (to a regular file or to nothing) at the path is refused, exit 2,
naming the path and what it is; the thing at the path, a link's target and the database stay exactly as
they were."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, store_digest


@pytest.fixture
def special(tmp_path: Path, monkeypatch) -> dict[str, tuple[Path, str]]:
    """kind -> (a path where that kind of file stands, the words the refusal uses for it). A device is
    made only as root (mknod): a copy of /dev/null's numbers in the test's own folder, never the system's."""
    folder = tmp_path / "o"
    folder.mkdir()
    monkeypatch.chdir(folder)  # a socket's path must be short
    target = folder / "target.md"
    target.write_text("a file the link leads to\n", encoding="utf-8")
    os.mkfifo("fifo")
    os.symlink("target.md", "link")
    os.symlink("nowhere.md", "dangling")
    os.mkdir("folder")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind("sock")
    sock.close()
    made = {
        "fifo": "a FIFO (named pipe)",
        "link": "a symbolic link",
        "dangling": "a symbolic link",
        "folder": "a folder",
        "sock": "a socket",
    }
    if os.geteuid() == 0:
        os.mknod("device", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        made["device"] = "a character device"
    return {name: (folder / name, words) for name, words in made.items()}


def state(path: Path) -> tuple:
    """What stands at a path, without following a link: kind, inode, device numbers, a link's target."""
    info = os.lstat(path)
    link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
    return (stat.S_IFMT(info.st_mode), info.st_ino, info.st_rdev, link)


def assert_refused(result, path: Path, words: str) -> None:
    assert result.exit_code == 2, result.output
    assert f"-o {path} is {words}: claims writes only a regular file" in result.output
    assert "nothing was written" in result.output


WRITERS = {
    "export": lambda out: ("export", "--skip-unsafe", "-o", out),
    "people export-signers": lambda out: ("people", "export-signers", "-o", out),
    "db anchor": lambda out: ("db", "anchor", "-o", out),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_every_output_refuses_what_is_not_a_regular_file_and_touches_nothing(
    writer, claims, write_json, special, store
):
    assert claims("import", write_json(SAMPLE)).exit_code == 0
    kept = (special["link"][0].parent / "target.md").read_bytes()
    before = store_digest(store)
    for path, words in special.values():
        was = state(path)
        result = claims(*WRITERS[writer](path))
        assert_refused(result, path, words)
        assert state(path) == was, path
    assert (special["link"][0].parent / "target.md").read_bytes() == kept
    assert store_digest(store) == before
    assert sorted(p.name for p in special["link"][0].parent.iterdir()) == sorted(
        [*special, "target.md"]
    )  # no temporary file left behind


def test_a_csv_exports_manifest_path_is_checked_before_anything_is_written(
    claims, write_json, special, tmp_path
):
    assert claims("import", write_json(SAMPLE)).exit_code == 0
    out = tmp_path / "o" / "table.csv"
    os.symlink("target.md", out.with_name("table.csv.manifest.json"))
    result = claims("export", "--skip-unsafe", "--format", "csv", "-o", out)
    assert_refused(result, out.with_name("table.csv.manifest.json"), "a symbolic link")
    assert not out.exists()  # the table itself was not written either


def test_an_html_exports_page_is_checked_too(claims, write_json, tmp_path):
    assert claims("import", write_json(SAMPLE)).exit_code == 0
    folder = tmp_path / "site"
    folder.mkdir()
    os.mkfifo(folder / "index.html")
    result = claims("export", "--skip-unsafe", "--format", "html", "-o", folder)
    assert_refused(result, folder / "index.html", "a FIFO (named pipe)")
    assert stat.S_ISFIFO(os.lstat(folder / "index.html").st_mode)


def test_people_sign_refuses_its_output_before_it_needs_a_key(claims, write_json, special):
    data = write_json({"claims": []}, "rereads.json")
    for path, words in special.values():
        was = state(path)
        assert_refused(claims("people", "sign", data, "-o", path), path, words)
        assert state(path) == was


def test_people_sign_refuses_an_input_that_is_not_a_regular_file(claims, special, tmp_path):
    fifo, _ = special["fifo"]
    result = claims("people", "sign", fifo, "-o", tmp_path / "signed.json")
    assert result.exit_code == 2, result.output
    assert "not a data file (not a regular file)" in result.output


def test_a_regular_file_is_replaced_whole_and_a_new_one_created(claims, write_json, tmp_path):
    assert claims("import", write_json(SAMPLE)).exit_code == 0
    old = tmp_path / "old.md"
    old.write_text("an older export\n", encoding="utf-8")
    inode = os.stat(old).st_ino
    assert claims("export", "--skip-unsafe", "-o", old).exit_code == 0
    assert "older" not in old.read_text(encoding="utf-8")
    assert os.stat(old).st_ino != inode  # replaced through a temporary file, not written in place
    fresh = tmp_path / "new" / "signers"
    assert claims("people", "export-signers", "-o", fresh).exit_code == 0
    assert stat.S_ISREG(os.lstat(fresh).st_mode)
    anchor = tmp_path / "claims.anchor"
    assert claims("db", "anchor", "-o", anchor).exit_code == 0
    assert json.loads(anchor.read_text(encoding="utf-8"))["format"] == "claimsdb-anchor/1"
