"""Who is recording: the one rule for a person's name, and where the reader's name is set."""

from __future__ import annotations

import pytest

from claimsdb.errors import BadSetting, InvalidName, NoReader
from claimsdb.trust import identity
from tests.names import ACCEPTED, REFUSED_PARAMS


@pytest.mark.parametrize("name, reason", REFUSED_PARAMS)
def test_a_name_must_show_a_letter_or_digit_and_nothing_invisible(name, reason):
    with pytest.raises(InvalidName) as refused:
        identity.person_name(name, field="reader")
    assert reason in refused.value.message and refused.value.field == "reader"
    assert refused.value.message.startswith(
        "reader "
    )  # the domain's word for the field, not a flag


@pytest.mark.parametrize("typed, recorded", ACCEPTED)
def test_a_name_is_recorded_trimmed_and_in_one_spelling(typed, recorded):
    assert identity.person_name(typed) == recorded
    assert identity.person_name(recorded) == recorded  # checking again changes nothing


def test_the_reader_comes_from_the_env_then_the_settings_file_then_git(
    no_reader, tmp_path, monkeypatch
):
    assert identity.configured_reader() is None
    with pytest.raises(NoReader):
        identity.reader(None)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Grace Hopper\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    assert identity.reader(None) == "Grace Hopper"
    settings = no_reader / ".config" / "claimsdb" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('reader = "Ada Lovelace"\n', encoding="utf-8")
    assert identity.reader(None) == "Ada Lovelace"
    monkeypatch.setenv("CLAIMS_READER", "  Barbara Liskov ")
    assert identity.reader(None) == "Barbara Liskov"
    monkeypatch.setenv("CLAIMS_READER", "")  # set empty: as if unset
    assert identity.reader(None) == "Ada Lovelace"
    assert (
        identity.reader("Edsger Dijkstra") == "Edsger Dijkstra"
    )  # a name given wins over every setting


def test_the_login_name_is_never_the_reader(no_reader, monkeypatch):
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(variable, "root")
    assert identity.configured_reader() is None
    with pytest.raises(NoReader) as none:
        identity.reader(None)
    assert "CLAIMS_READER" in none.value.message and "user.name" in none.value.message


@pytest.mark.parametrize("where", ["env", "settings", "git"])
def test_a_set_name_that_is_no_name_is_refused_not_skipped(no_reader, tmp_path, monkeypatch, where):
    """A blank CLAIMS_READER does not fall through to git's user.name: it is an error naming where it was set."""
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Grace Hopper\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    if where == "env":
        monkeypatch.setenv("CLAIMS_READER", "\u3164")
    elif where == "settings":
        identity.config_path().parent.mkdir(parents=True)
        identity.config_path().write_text('reader = "\u2800"\n', encoding="utf-8")
    else:
        gitconfig.write_text("[user]\n\tname = \u200b\n", encoding="utf-8")
    with pytest.raises(InvalidName) as refused:
        identity.reader(None)
    origin = {
        "env": "CLAIMS_READER",
        "settings": str(identity.config_path()),
        "git": "git config user.name",
    }[where]
    assert refused.value.origin == origin and f"(from {origin})" in refused.value.message


@pytest.mark.parametrize(
    "text, reason",
    [
        ("reader = ", "not a TOML file"),
        ('reeder = "Ada"\n', "unknown setting 'reeder'"),
        ("reader = 42\n", "a name must be text"),
        (b'reader = "\xff"\n', "not a TOML file"),
    ],
)
def test_a_settings_file_that_cannot_be_read_is_an_error(no_reader, text, reason):
    path = identity.config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises((BadSetting, InvalidName)) as refused:
        identity.reader(None)
    assert reason in refused.value.message and str(path) in refused.value.message


def test_undecodable_bytes_in_git_user_name_are_refused(no_reader, tmp_path, monkeypatch):
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_bytes(b"[user]\n\tname = Ada\xff\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    with pytest.raises(InvalidName, match="undecodable"):
        identity.reader(None)
