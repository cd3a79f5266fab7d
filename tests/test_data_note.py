"""The data set holds every figure of the note's §1–§5, and only those.

The note ("Production LLM pipelines: what the sources say", 21 September 2026, with revision 2.1 of 22
September) is the data set's only authority. Below, each figure it gives is listed with the place that gives
it: a row of the §1 stage table, or a section. These are facts (the figures as the note writes them), not
the note's sentences. A figure is stated at its place when an active claim citing the note at that place
(its evidence locator) has it: the same raw text, or a figure that the matcher judges the same.

Not figures, and not listed: section and revision numbers (§3.5, §12.2, 2.1), dates, names that hold digits
(Llama 3, Qwen3.5, GPT-2, Terminal-Bench 4, FP8, S1/S2), and number words that name options rather than
measure anything ("one stage or two", "any of the three could lead", "count once each", "keeps one column").
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from claimsdb.cli.app import app
from claimsdb.figures import Context, FigureError, as_quantity, match, parse
from tests.conftest import DATA_FILES

ROWS = {  # §1 stage table: row -> the figures of its heading and cells
    "Llama 3": ["16K H100", "4D"],
    "DeepSeek-V3 / R1": ["14.8T tokens", "2,048 H800", "32K → 128K", "4 nodes", "40 nodes"],
    "Qwen3": ["> 30T tokens"],
    "Kimi K2 / K3": [
        "two components open",
        "15.5T tokens",
        "zero loss spike",
        "4K → 128K",
        "1M",
        "1T",
        "< 30 s",
    ],
    "GLM-4.5": ["355B-A32B"],
    "GLM-5": ["27T tokens", "744B-A40B", "4K → 128K → 200K", "> 1k concurrent rollouts"],
    "Llama 4": ["> 30T tokens", "32K GPUs", "10M"],
    "DeepSeek-V4": ["32–33T tokens", "1M"],
    "MiniMax-M2": ["29.2T tokens", "8K → 32K → 192K"],
    "Nemotron 3 Super": ["25T tokens", "1M", "4,000 env instances per batch"],
    "OLMo 3": ["5.9T", "up to 1,024 H100", "100B", "~50B"],
    "SmolLM3": ["3 stages", "11.1T", "384 H100", "100B", "140B"],
    "Apertus": ["up to 4,096 GPUs", "4K → 64K"],
    "LLM360 K2 / K2-V2": ["480 A100", "four mid-training stages", "512K"],
    "Marin": ["12.7T", "8B"],
    "Arcee Trinity Large": ["2,048 B300", "~117B", "64K"],
    "Mercor 397B": ["397B", "S=3", "300–550 concurrent rollouts"],
}
SECTIONS = {
    "§1 observations": [
        "466 interruptions",
        "54 days",
        "> 90%",
        "12 categories",
        "three GLM sub-stages",
        "four K2-V2 stages",
        "278-node",
    ],
    "§2": [
        "six roles",
        "about 20 s",
        "1T",
        "> 4,000",
        "32,000 environments",
        "up to 100,000 tasks",
        "hundreds of thousands",
        "16:44",
        "12:8",
        "η = 4/8",
        "max_off_policy_steps = 8",
        "4",
        "max_trajectory_age_steps = 1",
        "2–4×",
        "five-part",
    ],
    "§3": ["four verl hooks", "two"],
    "§4": [
        "three modules",
        "28",
        "4",
        "11",
        "51 public",
        "triple",
        "100,000 concurrent tasks",
        "32,000 environments",
    ],
    "§5": [
        "six older or thinner reports",
        "four code chips",
        "535B",
        "18T tokens",
        "MFU 21% → 24%",
        "67B-A2B",
        "two deep-dive pages",
        "all 18 pipelines",
        "twelve stabilizers",
        "59 implementations",
        "ten fleets",
        "twelve staleness entries",
        "ten ledger rows",
        "seven RL-Infra-Bench families",
    ],
}
# The note's shorthand for several values, stored as each value.
SPLIT = {"η = 4/8": ("η = 4", "η = 8")}

PLACES = [(f"§1 table, {row}", figure) for row, figures in ROWS.items() for figure in figures] + [
    (section, figure) for section, figures in SECTIONS.items() for figure in figures
]
EXPECTED = [(place, part) for place, figure in PLACES for part in SPLIT.get(figure, (figure,))]
NOTE = "note-production-pipelines"


@pytest.fixture(scope="module")
def stored(tmp_path_factory, stores) -> list[dict]:
    """The bundled data imported into a fresh store, read back as `claims list` gives it."""
    db = stores.new(tmp_path_factory.mktemp("note"))
    runner = CliRunner()
    imported = runner.invoke(
        app, ["import", *map(str, DATA_FILES), "--db", db], catch_exceptions=False
    )
    assert imported.exit_code == 0, imported.output
    listed = runner.invoke(app, ["list", "--format", "json", "--db", db], catch_exceptions=False)
    assert listed.exit_code == 0, listed.output
    claims = json.loads(listed.stdout)
    assert claims and all(c["status"] == "active" for c in claims)
    stores.drop(db)
    return claims


def places(claim: dict) -> list[str]:
    return [s["locator"] for s in claim["sources"] if s["key"] == NOTE and s["locator"]]


def states(figure: dict, written: str) -> bool:
    """The stored figure is the written one: the same raw text, or the same figure to the matcher."""
    if figure["raw"] == written:
        return True
    try:
        parsed = parse(written)
    except FigureError:
        return False
    return match(as_quantity(figure), parsed, Context(subject=True)).verdict == "same"


def test_the_list_names_each_figure_once_per_place():
    assert len(PLACES) == 98 and len(EXPECTED) == len(set(EXPECTED)) == 99  # η = 4/8 is two values
    assert sum(map(len, ROWS.values())) == 52 and {k: len(v) for k, v in SECTIONS.items()} == {
        "§1 observations": 7,
        "§2": 15,
        "§3": 2,
        "§4": 8,
        "§5": 14,
    }


@pytest.mark.parametrize("place, figure", EXPECTED, ids=[f"{p}: {f}" for p, f in EXPECTED])
def test_every_figure_of_the_note_is_stated_where_the_note_gives_it(stored, place, figure):
    stating = [
        c["key"]
        for c in stored
        if any(p.startswith(place) for p in places(c))
        and any(states(f, figure) for f in c["figures"])
    ]
    assert stating, f"no claim citing the note at {place!r} states {figure!r}"


def test_the_data_set_states_no_figure_the_note_does_not_give(stored):
    extra = [
        (c["key"], f["raw"])
        for c in stored
        for f in c["figures"]
        if not any(
            p.startswith(place) and states(f, figure)
            for p in places(c)
            for place, figure in EXPECTED
        )
    ]
    assert extra == []
    assert sum(len(c["figures"]) for c in stored) == 97


def test_the_matcher_is_not_what_lets_a_figure_in(stored):
    """Most figures are stored as the note writes them; the rest differ only in how the note writes them."""
    raws = {f["raw"] for c in stored for f in c["figures"]}
    by_matcher = sorted({figure for _, figure in EXPECTED} - raws)
    assert by_matcher == ["100,000 concurrent tasks"]  # §4's restatement of "up to 100,000 tasks"


# §1 stage table: (row, stage) -> the note's phrase in that cell. A grid cell of the export shows it:
# as the label of the claim at that place (its parts, "; "-separated, when the data splits the cell over
# claims), or as the claim's figures when the phrase is just those.
CELLS = {
    ("Llama 3", "Data"): "curation, dedup, mixture",
    ("Llama 3", "Pretrain"): "16K H100, 4D parallelism",
    ("Llama 3", "Midtrain"): "long-context continuation, annealing",
    ("Llama 3", "Post-train"): "rejection sampling, SFT, DPO rounds",
    ("Llama 3", "Serve"): "inference optimization, FP8",
    ("DeepSeek-V3 / R1", "Data"): "14.8T tokens",
    ("DeepSeek-V3 / R1", "Pretrain"): "2,048 H800, DualPipe, FP8",
    ("DeepSeek-V3 / R1", "Midtrain"): "32K → 128K (YaRN)",
    (
        "DeepSeek-V3 / R1",
        "Post-train",
    ): "cold start → reasoning RL → rejection sampling + SFT → RL for all scenarios",
    (
        "DeepSeek-V3 / R1",
        "Serve",
    ): "prefill unit 4 nodes, decode unit 40 nodes; DeepEP/DeepGEMM/EPLB open",
    ("Qwen3", "Data"): "> 30T tokens",
    ("Qwen3", "Pretrain"): "General S1, Reasoning S2",
    ("Qwen3", "Midtrain"): "Long Context stage",
    (
        "Qwen3",
        "Post-train",
    ): "long-CoT cold start → reasoning RL → thinking-mode fusion → general RL",
    ("Qwen3", "Agentic RL"): "Qwen3.5: disaggregated async RL (blog only)",
    ("Kimi K2 / K3", "Data"): "15.5T tokens",
    ("Kimi K2 / K3", "Pretrain"): "MuonClip, zero loss spike",
    ("Kimi K2 / K3", "Midtrain"): "4K → 128K; K3 to 1M",
    ("Kimi K2 / K3", "Post-train"): "SFT, joint RL; checkpoint-engine (1T update < 30 s)",
    ("Kimi K2 / K3", "Agentic RL"): "agentic data synthesis, partial rollouts; AgentENV microVMs",
    ("Kimi K2 / K3", "Serve"): "K3 §5.4",
    ("GLM-4.5", "Data"): "corpus",
    ("GLM-4.5", "Pretrain"): "355B-A32B",
    ("GLM-4.5", "Midtrain"): "repo-level code · synthetic reasoning · long-context & agent",
    (
        "GLM-4.5",
        "Post-train",
    ): "expert training → unified training; SFT, reasoning/agentic/general RL on slime",
    ("GLM-4.5", "Agentic RL"): "disaggregated async pools, trajectory pool, Docker runtime",
    ("GLM-4.5", "Serve"): "SGLang commands",
    ("GLM-5", "Data"): "27T tokens",
    ("GLM-5", "Pretrain"): "744B-A40B",
    ("GLM-5", "Midtrain"): "4K → 128K → 200K",
    ("GLM-5", "Post-train"): "SFT → reasoning RL → general RL → cross-stage distillation",
    ("GLM-5", "Agentic RL"): "fully decoupled, > 1k concurrent rollouts, heartbeat fault tolerance",
    ("GLM-5", "Serve"): "PD disaggregation in the loop",
    ("Llama 4", "Pretrain"): "> 30T tokens, FP8, 32K GPUs",
    ("Llama 4", "Midtrain"): "mid-training for 10M context",
    ("Llama 4", "Post-train"): "lightweight SFT → online RL → lightweight DPO",
    ("Llama 4", "Agentic RL"): "fully async online RL framework",
    ("DeepSeek-V4", "Pretrain"): "32–33T tokens, FP4 experts",
    ("DeepSeek-V4", "Midtrain"): "1M context",
    ("DeepSeek-V4", "Post-train"): "domain specialists → on-policy distillation",
    ("DeepSeek-V4", "Agentic RL"): "preemptible generation service (token WAL); DSec sandboxes",
    ("DeepSeek-V4", "Serve"): "on-disk KV cache",
    ("MiniMax-M2", "Pretrain"): "29.2T tokens",
    ("MiniMax-M2", "Midtrain"): "8K → 32K → 192K",
    ("MiniMax-M2", "Post-train"): "SFT, CISPO RL",
    ("MiniMax-M2", "Agentic RL"): "Forge: gateway, data pool, windowed FIFO",
    ("Nemotron 3 Super", "Data"): "data-prep (subset)",
    ("Nemotron 3 Super", "Pretrain"): "Megatron-Bridge, 25T tokens",
    ("Nemotron 3 Super", "Midtrain"): "LC-phase CPT at 1M on GB200",
    ("Nemotron 3 Super", "Post-train"): "SFT → RLVR/SWE-RL/RLHF → MTP healing (NeMo-RL)",
    ("Nemotron 3 Super", "Agentic RL"): "SWE-RL, NeMo-Gym, 4,000 env instances per batch",
    ("Nemotron 3 Super", "Serve"): "quantization, evaluator",
    ("OLMo 3", "Data"): "Dolma 3 tools",
    ("OLMo 3", "Pretrain"): "OLMo-core, 5.9T, up to 1,024 H100",
    ("OLMo 3", "Midtrain"): "Dolmino 100B; Longmino ~50B",
    ("OLMo 3", "Post-train"): "Open Instruct: SFT → DPO → RLVR (OlmoRL async)",
    ("SmolLM3", "Data"): "datatrove",
    ("SmolLM3", "Pretrain"): "nanotron, 3 stages to 11.1T, 384 H100",
    ("SmolLM3", "Midtrain"): "long-context 100B; reasoning mid-training 140B",
    ("SmolLM3", "Post-train"): "TRL: SFT → APO, merging",
    ("Apertus", "Data"): "pretrain-data",
    ("Apertus", "Pretrain"): "Megatron fork, up to 4,096 GPUs",
    ("Apertus", "Midtrain"): "4K → 64K",
    ("Apertus", "Post-train"): "SFT → QRPO",
    ("LLM360 K2 / K2-V2", "Data"): "TxT360",
    ("LLM360 K2 / K2-V2", "Pretrain"): "480 A100, weekly hardware failures",
    ("LLM360 K2 / K2-V2", "Midtrain"): "four mid-training stages to 512K",
    ("LLM360 K2 / K2-V2", "Post-train"): "SFT",
    ("Marin", "Data"): "data browser, executor DAG",
    ("Marin", "Pretrain"): "Levanter on TPU, 12.7T (8B)",
    ("Marin", "Post-train"): "SFT; RL by 2026",
    ("Arcee Trinity Large", "Pretrain"): "2,048 B300, modified TorchTitan",
    ("Arcee Trinity Large", "Midtrain"): "~117B long-context",
    ("Arcee Trinity Large", "Post-train"): "SFT at 64K; RL with prime-rl",
    ("Mercor 397B", "Agentic RL"): "SkyRL async, S=3, 300–550 concurrent rollouts",
    ("Mercor 397B", "Serve"): "vLLM rollout engines",
}
# The note names the row's later model in the cell; the claim's subject is that model, so its label leaves the
# name out.
NAMED_IN_THE_CELL = {("Qwen3", "Agentic RL"): "Qwen3.5: "}
# A cell the data splits over two claims whose parts are not each a run of the note's words (its figures show).
SPLIT_CELLS = {("Mercor 397B", "Agentic RL")}


def parts(phrase: str) -> set[str]:
    return set(phrase.split("; "))


def test_the_grid_labels_are_the_notes_phrases_for_their_cells(stored):
    at: dict[tuple[str, str], list[dict]] = {}
    for claim in stored:
        for place in places(claim):
            row, _, stage = place.removeprefix("§1 table, ").partition(" × ")
            if place.startswith("§1 table, ") and stage:
                at.setdefault((row, stage), []).append(claim)
    assert set(at) == set(CELLS)
    for cell, phrase in CELLS.items():
        labels = [c["label"] for c in at[cell] if c["label"]]
        figures = ", ".join(f["raw"] for c in at[cell] for f in c["figures"])
        if labels:
            assert set().union(*map(parts, labels)) == parts(
                phrase.removeprefix(NAMED_IN_THE_CELL.get(cell, ""))
            ), cell
        else:
            assert figures == phrase or cell in SPLIT_CELLS, cell
    labelled = [c for c in stored if c["label"]]
    assert len([c for c in labelled if c["key"].startswith("pipelines.")]) == 67
    for c in labelled:  # in the RL loop, only a claim without figures: the words of its §2 cell
        if not c["key"].startswith("pipelines."):
            quotes = [s["quote"] for s in c["sources"] if s.get("quote")]
            assert not c["figures"] and any(c["label"] in q for q in quotes), c["key"]
    # a label shows every figure of its claim, as written
    assert all(f["raw"] in c["label"] for c in labelled for f in c["figures"])
