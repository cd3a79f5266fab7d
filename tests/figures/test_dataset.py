"""A table test over every raw figure in the bundled data set, with its parse written out by hand.

Each expected parse was read against the note's meaning; the last test makes a new figure in the
data fail here until its parse is written into the table.
"""

from __future__ import annotations

import json

import pytest

from claimsdb.figures import FigureError, parse
from tests.conftest import DATA_FILES

# raw figure -> the parsed fields that are set (comparator "=" and empty fields left out).
# Where the data overrides the parser (e.g. "4D" unit, "1T" unit), the override is tested in test_data;
# None: the parser cannot read the figure at all, and the data gives every parsed field.
EXPECTED = [
    ("16K H100", dict(kind="value", value=16000, unit="GPUs", counted="H100")),
    ("4D", dict(kind="value", value=4, unit="D")),
    ("14.8T tokens", dict(kind="value", value=14.8e12, unit="tokens")),
    ("2,048 H800", dict(kind="value", value=2048, unit="GPUs", counted="H800")),
    ("32K → 128K", dict(kind="transition", steps=(32000, 128000))),
    ("4 nodes", dict(kind="value", value=4, unit="nodes")),
    ("40 nodes", dict(kind="value", value=40, unit="nodes")),
    ("> 30T tokens", dict(kind="value", comparator=">", value=30e12, unit="tokens")),
    ("15.5T tokens", dict(kind="value", value=15.5e12, unit="tokens")),
    ("zero loss spike", dict(kind="value", value=0, unit="spikes")),
    ("4K → 128K", dict(kind="transition", steps=(4000, 128000))),
    ("1M", dict(kind="value", value=1e6)),
    ("1T", dict(kind="value", value=1e12)),
    ("< 30 s", dict(kind="value", comparator="<", value=30, unit="s")),
    ("355B-A32B", dict(kind="moe", value=355e9, active=32e9, unit="parameters")),
    ("27T tokens", dict(kind="value", value=27e12, unit="tokens")),
    ("744B-A40B", dict(kind="moe", value=744e9, active=40e9, unit="parameters")),
    ("4K → 128K → 200K", dict(kind="transition", steps=(4000, 128000, 200000))),
    ("> 1k concurrent rollouts", dict(kind="value", comparator=">", value=1000, unit="rollouts")),
    ("32K GPUs", dict(kind="value", value=32000, unit="GPUs")),
    ("10M", dict(kind="value", value=10e6)),
    ("32–33T tokens", dict(kind="range", low=32e12, high=33e12, unit="tokens")),
    ("29.2T tokens", dict(kind="value", value=29.2e12, unit="tokens")),
    ("8K → 32K → 192K", dict(kind="transition", steps=(8000, 32000, 192000))),
    ("25T tokens", dict(kind="value", value=25e12, unit="tokens")),
    ("4,000 env instances per batch", dict(kind="value", value=4000, unit="instances")),
    ("5.9T", dict(kind="value", value=5.9e12)),
    (
        "up to 1,024 H100",
        dict(kind="value", comparator="up to", value=1024, unit="GPUs", counted="H100"),
    ),
    ("100B", dict(kind="value", value=100e9)),
    ("~50B", dict(kind="value", comparator="~", value=50e9)),
    ("3 stages", dict(kind="value", value=3, unit="stages")),
    ("11.1T", dict(kind="value", value=11.1e12)),
    ("384 H100", dict(kind="value", value=384, unit="GPUs", counted="H100")),
    ("140B", dict(kind="value", value=140e9)),
    ("up to 4,096 GPUs", dict(kind="value", comparator="up to", value=4096, unit="GPUs")),
    ("4K → 64K", dict(kind="transition", steps=(4000, 64000))),
    ("480 A100", dict(kind="value", value=480, unit="GPUs", counted="A100")),
    ("four mid-training stages", dict(kind="value", value=4, unit="stages")),
    ("512K", dict(kind="value", value=512000)),
    ("12.7T", dict(kind="value", value=12.7e12)),
    ("8B", dict(kind="value", value=8e9)),
    ("2,048 B300", dict(kind="value", value=2048, unit="GPUs", counted="B300")),
    ("~117B", dict(kind="value", comparator="~", value=117e9)),
    ("64K", dict(kind="value", value=64000)),
    ("397B", dict(kind="value", value=397e9)),
    ("S=3", dict(kind="value", value=3, counted="S")),
    ("300–550 concurrent rollouts", dict(kind="range", low=300, high=550, unit="rollouts")),
    ("466 interruptions", dict(kind="value", value=466, unit="interruptions")),
    ("54 days", dict(kind="value", value=54, unit="days")),
    ("> 90%", dict(kind="value", comparator=">", value=90, unit="%")),
    ("12 categories", dict(kind="value", value=12, unit="categories")),
    ("three GLM sub-stages", dict(kind="value", value=3, unit="sub-stages")),
    ("four K2-V2 stages", dict(kind="value", value=4, unit="stages")),
    ("278-node", dict(kind="value", value=278, unit="nodes")),
    ("535B", dict(kind="value", value=535e9)),
    ("18T tokens", dict(kind="value", value=18e12, unit="tokens")),
    ("MFU 21% → 24%", dict(kind="transition", steps=(21, 24), unit="%", counted="MFU")),
    ("67B-A2B", dict(kind="moe", value=67e9, active=2e9, unit="parameters")),
    ("six roles", dict(kind="value", value=6, unit="roles")),
    ("about 20 s", dict(kind="value", comparator="~", value=20, unit="s")),
    ("> 4,000", dict(kind="value", comparator=">", value=4000)),
    ("32,000 environments", dict(kind="value", value=32000, unit="environments")),
    ("up to 100,000 tasks", dict(kind="value", comparator="up to", value=100000, unit="tasks")),
    ("hundreds of thousands", dict(kind="text")),
    ("16:44", dict(kind="ratio", steps=(16, 44))),
    ("12:8", dict(kind="ratio", steps=(12, 8))),
    (
        "η = 4",
        dict(kind="value", value=4, counted="η"),
    ),  # the note's "η = 4/8": two settings, two figures
    ("η = 8", dict(kind="value", value=8, counted="η")),
    ("max_off_policy_steps = 8", dict(kind="value", value=8, counted="max_off_policy_steps")),
    ("4", dict(kind="value", value=4)),
    (
        "max_trajectory_age_steps = 1",
        dict(kind="value", value=1, counted="max_trajectory_age_steps"),
    ),
    ("2–4×", dict(kind="range", low=2, high=4, unit="x")),
    ("five-part", dict(kind="value", value=5, unit="parts")),
    ("four verl hooks", dict(kind="value", value=4, unit="hooks")),
    ("two", dict(kind="value", value=2)),
    ("three modules", dict(kind="value", value=3, unit="modules")),
    ("28", dict(kind="value", value=28)),
    ("11", dict(kind="value", value=11)),
    ("51 public", dict(kind="value", value=51)),  # an adjective is never a unit
    ("two components open", dict(kind="value", value=2, unit="components")),
    ("triple", None),  # no number the parser reads: the data gives value 3 and unit x
    (
        "six older or thinner reports",
        dict(kind="value", value=6, unit="olders"),
    ),  # the data gives unit reports
    ("four code chips", dict(kind="value", value=4, unit="chips")),
    ("two deep-dive pages", dict(kind="value", value=2, unit="pages")),
    (
        "all 18 pipelines",
        dict(kind="value", value=18, unit="pipelines", counted="all"),
    ),  # the data clears counted
    ("twelve stabilizers", dict(kind="value", value=12, unit="stabilizers")),
    ("59 implementations", dict(kind="value", value=59, unit="implementations")),
    ("ten fleets", dict(kind="value", value=10, unit="fleets")),
    ("twelve staleness entries", dict(kind="value", value=12, unit="entries")),
    ("ten ledger rows", dict(kind="value", value=10, unit="rows")),
    ("seven RL-Infra-Bench families", dict(kind="value", value=7, unit="families")),
]


@pytest.mark.parametrize("raw, expected", EXPECTED, ids=[raw for raw, _ in EXPECTED])
def test_every_bundled_figure_parses_as_written_in_the_table(raw, expected):
    if (
        expected is None
    ):  # the parser cannot read it; the data file gives its parsed fields (tested in test_data)
        with pytest.raises(FigureError):
            parse(raw)
        return
    parsed = parse(raw).to_dict()
    got = {
        k: v
        for k, v in parsed.items()
        if k != "raw" and v not in (None, [], ()) and not (k == "comparator" and v == "=")
    }
    if got["kind"] == "transition":
        assert (got.pop("start"), got.pop("end")) == (got["steps"][0], got["steps"][-1])
    if "steps" in got:
        got["steps"] = tuple(got["steps"])
    assert got == {
        k: tuple(float(x) for x in v) if k == "steps" else v for k, v in expected.items()
    }


def test_the_table_covers_exactly_the_figures_of_the_data_set():
    raws = {
        fig if isinstance(fig, str) else fig["raw"]
        for path in DATA_FILES
        for claim in json.loads(path.read_text(encoding="utf-8"))["claims"]
        for fig in claim["figures"]
    }
    assert raws == {raw for raw, _ in EXPECTED}
