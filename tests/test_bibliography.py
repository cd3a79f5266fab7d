"""Reading a paper's bibliography (BibTeX, BibLaTeX, CSL-JSON) into sources, and importing it twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from claimsdb import bibliography, db
from claimsdb.errors import InvalidEntry, InvalidRecord
from claimsdb.models import Source

# A paper's references.bib as people write them: case-keeping braces, accents in LaTeX, a DOI for a
# page, a corporate author, a month macro, BibLaTeX's date and urldate, \url{} in howpublished.
REFS = r"""
@string{meituan = "Meituan"}
% exported from a reference manager, edited by hand
@Article{Dubey2024:Llama,
  Title = {The {Llama} 3 Herd of Models},
  author = {Dubey, Abhimanyu and M{\"u}ller, J{\'e}r{\^o}me and van Beethoven, Jr, Ludwig and {Meta AI}},
  journal = {arXiv preprint},
  year = {2024}, month = jul,
  doi = {10.48550/arXiv.2407.21783},
}
@techreport{longcat2025,
  title = "{LongCat-Flash} Technical Report: 100\% of the {GPU}s, $\sim$50B \& more",
  author = {{Meituan LongCat Team}},
  institution = meituan,
  year = 2025,
  url = {https://arxiv.org/abs/2509.01322},
}
@misc{slime,
  title = {slime: An {LLM} post-training framework},
  author = {Zhu, Zilin and Xie, Chengxing},
  howpublished = {\url{https://github.com/THUDM/slime_rl}},
  year = {2025},
}
@online{kimi-k25,
  title = {Kimi {K2.5}: visual agentic intelligence},
  url = {https://example.org/kimi\_k25},
  date = {2026-01-27},
  urldate = {2026-11-30},
  organization = {Moonshot AI},
}
@book{knuth1984,
  title = {The \TeX book},
  author = {Knuth, Donald E.},
  publisher = {Addison-Wesley},
  year = {1984},
}
@misc{olmo3,
  title = {Olmo 3: 100% open, {\%} and all},
  eprint = {2512.00001}, archivePrefix = {arXiv},
  year = {2025},
}
"""


def write(tmp_path: Path, text: str, name: str = "refs.bib") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def by_cite_key(bib: bibliography.Bibliography) -> dict[str, dict]:
    return {e.record.cite_key: e.record.fields() for e in bib.entries}


def test_bibtex_entries_become_sources_with_decoded_fields(tmp_path):
    bib = bibliography.read(write(tmp_path, REFS))
    assert bib.format == "bibtex"
    got = by_cite_key(bib)
    assert list(got) == [
        "Dubey2024:Llama",
        "longcat2025",
        "slime",
        "kimi-k25",
        "knuth1984",
        "olmo3",
    ]
    assert got["Dubey2024:Llama"] == {
        "key": "dubey2024-llama",
        "cite_key": "Dubey2024:Llama",
        "title": "The Llama 3 Herd of Models",
        "kind": "paper",
        "url": "https://doi.org/10.48550/arXiv.2407.21783",
        "publisher": "arXiv preprint",
        "date": "2024-07",
        "path": None,
        "accessed": None,
        "authors": "Dubey, Abhimanyu and Müller, Jérôme and van Beethoven, Jr, Ludwig and Meta AI",
    }
    assert (
        got["longcat2025"]["title"]
        == "LongCat-Flash Technical Report: 100% of the GPUs, ∼50B & more"
    )
    assert (got["longcat2025"]["kind"], got["longcat2025"]["publisher"]) == (
        "report",
        "Meituan",
    )  # @string resolved
    assert got["longcat2025"]["authors"] == "Meituan LongCat Team"
    assert (got["slime"]["url"], got["slime"]["kind"]) == (
        "https://github.com/THUDM/slime_rl",
        "code",
    )
    assert got["kimi-k25"] | {} == {
        **got["kimi-k25"],
        "url": "https://example.org/kimi_k25",
        "date": "2026-01-27",
        "accessed": "2026-11-30",
        "publisher": "Moonshot AI",
        "kind": "other",
    }
    assert (got["knuth1984"]["url"], got["knuth1984"]["title"], got["knuth1984"]["kind"]) == (
        None,
        "The TeXbook",
        "other",
    )
    assert (got["olmo3"]["url"], got["olmo3"]["kind"]) == (
        "https://arxiv.org/abs/2512.00001",
        "paper",
    )
    assert (
        got["olmo3"]["title"] == "Olmo 3: 100% open, % and all"
    )  # a bare % is a percent, not a LaTeX comment


ZOTERO = [
    {
        "id": "http://zotero.org/users/1/items/AB12",
        "citation-key": "Dubey2024:Llama",
        "type": "article",
        "title": "The <i>Llama 3</i> Herd of Models",
        "container-title": "arXiv",
        "author": [
            {"family": "Dubey", "given": "Abhimanyu"},
            {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"},
            {"literal": "Meta AI"},
        ],
        "issued": {"date-parts": [["2024", 7, 31]]},
        "DOI": "10.48550/arXiv.2407.21783",
        "accessed": {"date-parts": [[2026, 11, 2]]},
    },
    {
        "id": "qwen3",
        "type": "report",
        "title": "Qwen3 Technical Report",
        "publisher": "Alibaba",
        "URL": "https://arxiv.org/abs/2505.09388",
        "issued": {"raw": "2025-05"},
    },
    {
        "id": "notes-blog",
        "type": "post-weblog",
        "title": "Use {braces}, \\input{x} and 100% here",
        "URL": "https://blog.example.org/post",
    },
]


def test_csl_json_as_zotero_exports_it(tmp_path):
    bib = bibliography.read(write(tmp_path, json.dumps(ZOTERO), "library.json"))
    got = by_cite_key(bib)
    assert bib.format == "csl-json" and list(got) == ["Dubey2024:Llama", "qwen3", "notes-blog"]
    assert got["Dubey2024:Llama"] | {} == {
        **got["Dubey2024:Llama"],
        "title": "The Llama 3 Herd of Models",
        "authors": "Dubey, Abhimanyu and van Beethoven, Ludwig and Meta AI",
        "date": "2024-07-31",
        "accessed": "2026-11-02",
        "publisher": "arXiv",
        "url": "https://doi.org/10.48550/arXiv.2407.21783",
        "kind": "paper",
    }
    assert (got["qwen3"]["kind"], got["qwen3"]["date"], got["qwen3"]["publisher"]) == (
        "report",
        "2025-05",
        "Alibaba",
    )
    # CSL-JSON is plain text, not LaTeX: kept as written, for the exports to escape
    assert (got["notes-blog"]["title"], got["notes-blog"]["kind"]) == (
        "Use {braces}, \\input{x} and 100% here",
        "blog",
    )


def test_the_format_is_told_by_extension_or_first_character_or_forced(tmp_path):
    assert bibliography.read(write(tmp_path, json.dumps(ZOTERO), "refs.txt")).format == "csl-json"
    assert bibliography.read(write(tmp_path, REFS, "refs.txt")).format == "bibtex"
    with pytest.raises(InvalidEntry, match="holds no entries"):
        bibliography.read(write(tmp_path, json.dumps(ZOTERO), "refs.txt"), "bibtex")


def test_a_long_author_list_keeps_the_first_names_and_others(tmp_path):
    many = " and ".join(f"Author{i}, A." for i in range(600))
    bib = bibliography.read(
        write(
            tmp_path, f"@article{{big, title={{Big}}, author={{{many}}}, url={{https://x.org/b}}}}"
        )
    )
    authors = bib.entries[0].record.authors
    assert authors.startswith("Author0, A. and Author1, A.") and authors.endswith(" and others")
    assert len(authors) <= 2000


BROKEN = [  # (file text, what the one-line error says: file, entry, field, reason)
    (
        "@misc{ok, title = {Fine}, url = {https://x.org/ok}}\n@misc{broken,\n  title = {missing brace,\n  year = 2020\n}\n"
        "@article{after, title = {After}}\n",
        "refs.bib, entry @misc{broken} (line 2), field 'title': cannot be read as BibTeX",
    ),
    (
        "@misc{a, title = {A}}\n@misc{a, title = {again}}\n",
        "refs.bib, entry 'a' (line 2), field 'key': a second entry",
    ),
    (
        "@misc{a, title = {A}, Title = {B}}\n",
        "refs.bib, entry 'a' (line 1), field 'title': given twice",
    ),
    (
        "@misc{bad{key, title = {A}}\n",
        "refs.bib, entry @misc{bad{} (line 1): cannot be read as BibTeX: Expected comma",
    ),
    (
        "@misc{über2024, title = {A}}\n",
        "refs.bib, entry 'über2024' (line 1), field 'key': 'über2024' is not a citation key",
    ),
    (
        "@misc{a, title = {A}, url = {ftp://example.org/a}}\n",
        "refs.bib, entry 'a' (line 1), field 'url': 'ftp://example.org/a' is not an http(s) URL",
    ),
    (
        "@misc{a, title = {A}, url = {javascript:alert(1)}}\n",
        "field 'url': 'javascript:alert(1)' is not an http(s) URL",
    ),
    (
        "@misc{a, title = {A}, year = {in press}}\n",
        "refs.bib, entry 'a' (line 1), field 'year': 'in press' is not a year",
    ),
    (
        "@misc{a, title = {A}, date = {2024-13}}\n",
        "refs.bib, entry 'a' (line 1), field 'date': '2024-13' is not a calendar date",
    ),
    (
        "@misc{a, title = {A}, urldate = {2024}}\n",
        "field 'urldate': '2024' is not a date: use YYYY-MM-DD",
    ),
    (
        "@misc{a, title = {A}, author = {Last, Jr, First, Extra}}\n",
        "refs.bib, entry 'a' (line 1), field 'author': ",
    ),
    (
        "@string{x = {X}}\n@misc{a, title = {A}, journal = x # {Y}}\n",
        "field 'journal': joins strings with '#'",
    ),
    (
        "@misc{a, title = {" + "{" * 40 + "deep" + "}" * 40 + "}}\n",
        "field 'title': nests braces deeper than 32",
    ),
    ("@misc{a, title = {" + "x" * 20_001 + "}}\n", "field 'title': is 20,001 characters long"),
    (
        "@misc{a, title = {" + "x " * 1_100 + "}}\n",
        "field 'title': is 2,199 characters long; the most allowed is 2,000",
    ),
    (
        "@misc{a, title = {A\u202eB}}\n",
        "field 'title': holds '\\u202e', a control or bidirectional-override",
    ),
    ("% only a comment\n", "refs.bib: holds no entries"),
]


@pytest.mark.parametrize("text, message", BROKEN)
def test_a_broken_entry_is_named_with_its_field(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text)
    with pytest.raises(InvalidEntry) as caught:
        bibliography.read("refs.bib")
    assert message in caught.value.message and "\n" not in caught.value.message, (
        caught.value.message
    )


BROKEN_CSL = [
    ({"items": []}, "lib.json: CSL-JSON is a list of items"),
    (
        [{"id": "http://zotero.org/users/1/items/AB12", "title": "A"}],
        "lib.json, entry item 1, field 'id': "
        "'http://zotero.org/users/1/items/AB12' is an address, not a citation key",
    ),
    (
        [{"id": "a", "title": "A"}, {"id": "a", "title": "B"}],
        "lib.json, entry 'a' (item 2), field 'id': a second item",
    ),
    (
        [{"id": "a", "title": ["A"]}],
        "lib.json, entry 'a' (item 1), field 'title': must be text, not list",
    ),
    (
        [{"id": "a", "title": "A", "author": [{"family": {"x": 1}}]}],
        "field 'author[0]': a name must be an object",
    ),
    (
        [{"id": "a", "title": "A", "issued": {"season": 2}}],
        "field 'issued': {'season': 2} is not a date",
    ),
    (
        [{"id": "a", "title": "A", "URL": "file:///etc/passwd"}],
        "field 'URL': 'file:///etc/passwd' is not an http(s) URL",
    ),
    ("[" * 40 + "]" * 40, "lib.json: nested deeper than 16 levels"),
]


@pytest.mark.parametrize("doc, message", BROKEN_CSL)
def test_a_broken_csl_item_is_named_with_its_field(tmp_path, monkeypatch, doc, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, doc if isinstance(doc, str) else json.dumps(doc), "lib.json")
    with pytest.raises(
        InvalidRecord
    ) as caught:  # InvalidEntry, or the data files' JSON reader's own error
        bibliography.read("lib.json")
    assert message in caught.value.message, caught.value.message


def test_a_file_too_big_or_not_utf8_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(bibliography, "MAX_FILE_BYTES", 100)
    with pytest.raises(
        InvalidEntry, match="is 1,0[0-9]{2} bytes; a bibliography may have at most 100"
    ):
        bibliography.read(write(tmp_path, "%" * 1_050))
    (tmp_path / "latin1.bib").write_bytes("@misc{a, title = {M\u00fcller}}".encode("latin-1"))
    with pytest.raises(InvalidEntry, match="not UTF-8 text"):
        bibliography.read(tmp_path / "latin1.bib")


# --- importing into a store ---------------------------------------------------------------------


@pytest.fixture
def session_on(store):
    def open_session():
        return db.session_of(store, create=True)

    return open_session


def imported(session_on, bib, **kw) -> bibliography.ImportReport:
    with session_on() as session:
        return bibliography.import_bibliography(session, bib, **kw)


def stored(session_on) -> dict[str, Source]:
    with session_on() as session:
        return {s.key: s for s in session.scalars(select(Source))}


def test_a_second_import_updates_its_own_sources_and_only_what_changed(tmp_path, session_on):
    first = imported(session_on, bibliography.read(write(tmp_path, REFS)))
    assert len(first.added) == 6 and first.without_url == ["knuth1984"]
    assert {s.origin for s in stored(session_on).values()} == {"bibliography"}
    edited = REFS.replace("{2024}, month = jul", "{2024}, month = aug").replace(
        "Herd of Models", "Herd of models"
    )
    edited = edited.replace("  institution = meituan,\n", "")
    second = imported(session_on, bibliography.read(write(tmp_path, edited)))
    assert second.updated == {"dubey2024-llama": ["title", "date"], "longcat2025": ["publisher"]}
    assert (
        sorted(second.unchanged) == ["kimi-k25", "knuth1984", "olmo3", "slime"]
        and second.added == []
    )
    now = stored(session_on)
    assert (now["dubey2024-llama"].date, now["longcat2025"].publisher) == ("2024-08", None)


def test_a_source_registered_another_way_is_reported_not_changed(tmp_path, session_on):
    from claimsdb import sources

    with (
        session_on() as session
    ):  # by hand, as `claims sources add` does: the same key, and the same page
        sources.add_source(
            session,
            {
                "key": "slime",
                "title": "slime (my notes)",
                "kind": "readme",
                "url": "https://github.com/THUDM/slime_rl",
                "accessed": "2026-10-01",
            },
        )
        sources.add_source(
            session,
            {
                "key": "llama3-report",
                "title": "Llama 3",
                "kind": "paper",
                "url": "https://doi.org/10.48550/arXiv.2407.21783",
            },
        )
    report = imported(session_on, bibliography.read(write(tmp_path, REFS)))
    conflicts = {c.key: c for c in report.conflicts}
    assert sorted(conflicts) == ["llama3-report", "slime"] and "slime" not in report.added
    assert conflicts["slime"].origin == "by-hand"
    assert conflicts["slime"].fields == {
        "title": ("slime (my notes)", "slime: An LLM post-training framework"),
        "date": (None, "2025"),
        "authors": (None, "Zhu, Zilin and Xie, Chengxing"),
    }
    assert conflicts["llama3-report"].fields["cite_key"] == (
        None,
        "Dubey2024:Llama",
    )  # matched by its URL
    before = stored(session_on)
    assert (before["slime"].title, before["llama3-report"].cite_key) == ("slime (my notes)", None)
    assert "dubey2024-llama" not in before
    report = imported(session_on, bibliography.read(write(tmp_path, REFS)), update_manual=True)
    assert report.conflicts == [] and sorted(report.updated) == ["llama3-report", "slime"]
    after = stored(session_on)
    # the bibliography's fields, and what it does not say (the kind, the access date) as the person had it
    assert (
        after["slime"].title,
        after["slime"].kind,
        after["slime"].accessed,
        after["slime"].origin,
    ) == ("slime: An LLM post-training framework", "readme", "2026-10-01", "by-hand")
    assert after["llama3-report"].cite_key == "Dubey2024:Llama"


def test_a_data_file_source_is_reported_too(tmp_path, session_on, claims, write_json, sample):
    assert claims("import", write_json(sample)).exit_code == 0
    bib = write(
        tmp_path,
        "@techreport{widget2026, title = {Widget Technical Report v2}, url = {https://example.org/widget},"
        " institution = {Widget Lab}, year = {2026}, month = may}\n",
    )
    report = imported(session_on, bibliography.read(bib))
    assert [(c.key, c.origin, c.fields) for c in report.conflicts] == [
        (
            "widget-report",
            "data-file",
            {"title": ("Widget technical report", "Widget Technical Report v2")},
        )
    ]


def test_two_entries_for_one_page_stop_the_import(tmp_path, session_on, store):
    twice = "@misc{a, title = {A}, url = {https://x.org/p}}\n@misc{b, title = {B}, url = {https://x.org/p/}}\n"
    with pytest.raises(
        InvalidEntry,
        match=r"entry 'b' \(line 2\), field 'url': names the same source \('a'\) as entry 'a'",
    ):
        imported(session_on, bibliography.read(write(tmp_path, twice)))
    assert stored(session_on) == {}


def test_every_format_builds_a_source_the_same_way():
    """bibliography.entries.source_fields: keyed by the citation key in lowercase, titled by the URL or
    the key when the entry has no title, the other fields as given."""
    from claimsdb.bibliography.entries import source_fields

    assert source_fields("Dubey2024:Llama", "https://x.org/a", None, "paper", date="2024") == {
        "key": "dubey2024-llama",
        "cite_key": "Dubey2024:Llama",
        "url": "https://x.org/a",
        "title": "https://x.org/a",
        "kind": "paper",
        "date": "2024",
    }
    assert source_fields("k1", None, None, "other")["title"] == "k1"
    assert source_fields("k1", "https://x.org", "The title", "other")["title"] == "The title"


def test_an_import_report_counts_each_list():
    report = bibliography.ImportReport("refs.bib", "bibtex", added=["a", "b"], unchanged=["c"])
    report.updated["d"] = ["title"]
    assert report.counts() == {
        "added": 2,
        "updated": 1,
        "unchanged": 1,
        "conflicts": 0,
        "without_url": 0,
    }
