"""Names are not figures: a model, product or benchmark name with its version ("Gemma 3 models",
"Llama 4 Scout", "Gemini 1.5 Pro", "pass@1") is read as a name, decided by how names are written (a
capitalised word right before a small number, then a name, a model size or a plural noun; a version
"X.Y" after a name; "@k"; a number glued to a name), never by a list of models. The sentences below
were written for this test in the way ML-infrastructure papers state their figures; each lists every
figure `scan` must find, so a version read as a count, or a real count lost, fails it.
"""

from __future__ import annotations

import pytest

from claimsdb.figures import scan

# (sentence, the figures as written, in order). A number right after a name ("Whisper 3", "S&P 500")
# belongs to the name unless a unit or scale follows it; a reference's ("Table 3") stands alone.
SENTENCES = [
    (
        "We fine-tune the Gemma 3 models on 64 TPU v5e chips for 3 days.",
        ["64 TPU v5e chips", "3 days"],
    ),
    ("Llama 4 Scout activates 17B parameters out of 109B in total.", ["17B parameters", "109B"]),
    ("Qwen2.5 was pretrained on 18T tokens before instruction tuning.", ["18T tokens"]),
    (
        "GPT-4o answers 88.7% of the questions, while Claude 3 Opus answers 86.8%.",
        ["88.7%", "86.8%"],
    ),
    (
        "On SWE-bench Verified we report pass@1 over 500 tasks with 4 attempts each.",
        ["over 500 tasks", "4 attempts"],
    ),
    ("Terminal-Bench 2.0 contains 89 tasks that run in Docker containers.", ["89 tasks"]),
    ("DeepSeek-V3 uses 671B total parameters with 37B activated per token.", ["671B", "37B"]),
    (
        "The cluster holds 8 H800 GPUs per node and 2,048 GPUs in total.",
        ["8 H800 GPUs", "2,048 GPUs"],
    ),
    ("In 2024 Meta trained its largest model on 16,384 H100 GPUs.", ["2024", "16,384 H100 GPUs"]),
    ("Table 3 shows that throughput rises by 1.8x with FP8.", ["3", "1.8x"]),
    ("Figure 2 plots the loss over 14.8T tokens.", ["2", "over 14.8T tokens"]),
    ("Section 4 describes the 1,024 GPUs used for the ablations.", ["4", "1,024 GPUs"]),
    ("H100 GPUs deliver 989 TFLOPS of dense BF16 compute.", ["989 TFLOPS"]),
    ("Gemini 1.5 Pro handles a context of 1M tokens.", ["1M tokens"]),
    ("Llama 3.1 405B was trained for 54 days on 16K GPUs.", ["405B", "54 days", "16K GPUs"]),
    ("We compare Mistral 7B against Phi 3 Mini on 12 benchmarks.", ["7B", "12 benchmarks"]),
    ("The Llama 2 70B checkpoint needs 140 GB of memory in BF16.", ["70B checkpoint", "140 GB"]),
    ("Our runs on Claude 3.5 Sonnet cost $1,200 in API fees.", ["$1,200"]),
    ("Each of the 3 Llama models was evaluated with 5 seeds.", ["3 Llama models", "5 seeds"]),
    ("MMLU scores rose from 71.3% to 79.5% after the second stage.", ["from 71.3% to 79.5%"]),
    ("We ran Whisper 3 on 680,000 hours of audio.", ["680,000 hours"]),
    ("Using 512 GPUs, the job finished in 11 hours.", ["512 GPUs", "11 hours"]),
    ("Trained 3 models with 7B parameters each.", ["3 models", "7B parameters"]),
    (
        "About 40 engineers maintained the 6,000-node cluster.",
        ["About 40 engineers", "6,000-node cluster"],
    ),
    ("The AlpacaEval 2.0 win rate reached 70.0% at 2K tokens.", ["70.0%", "2K tokens"]),
    ("Stable Diffusion 3 Medium has 2B parameters and runs on 1 GPU.", ["2B parameters", "1 GPU"]),
    (
        "We evaluate on HumanEval and MBPP with pass@10 and 200 samples per problem.",
        ["200 samples"],
    ),
    ("The Mixtral 8x7B model routes each token to 2 of 8 experts.", ["2", "8 experts"]),
    ("Claude Sonnet 4.5 solved 77.2% of the 500 problems.", ["77.2%", "500 problems"]),
    ("Python 3.11 cut the data loader time by 25%.", ["25%"]),
]


@pytest.mark.parametrize(("sentence", "raws"), SENTENCES)
def test_scan_reads_names_as_names(sentence, raws):
    assert [f.raw for f in scan(sentence)] == raws


def test_no_version_is_read_as_a_count():
    """Across the set, no figure's number is a version: every figure with a unit or counted thing
    starts at a number that no capitalised name stands right before."""
    for sentence, _ in SENTENCES:
        for f in scan(sentence):
            before = sentence[: f.start].rstrip().rsplit(" ", 1)[-1]
            if f.quantity.unit or f.quantity.counted:
                assert not (
                    before[:1].isupper()
                    and before.lower()
                    not in ("in", "about", "using", "trained", "each", "our", "the")
                ), (sentence, f.raw)


@pytest.mark.parametrize(
    ("text", "raws"),
    [
        ("pass@1 and maj@16 on 30 problems", ["30 problems"]),  # "@k" is part of a metric's name
        ("the Dolma 3 datasets hold 9T tokens", ["9T tokens"]),  # name, version, plural noun
        ("Olmo 3 7B and Olmo 3 32B", ["7B", "32B"]),  # name, version, model size: the size stays
        ("In 2025 Google released it", ["2025"]),  # a year, then a name: the year alone
        ("We use 3 Llama models", ["3 Llama models"]),  # a count of named things stays a count
        ("Using 8 GPUs", ["8 GPUs"]),  # a gerund is not a name
        ("Roughly 512 GPUs and Perhaps 8 nodes", ["Roughly 512 GPUs", "8 nodes"]),  # nor an adverb
        ("USD 5 and Qwen3 235 billion parameters", ["USD 5", "235 billion parameters"]),
        ("Claude 200 ms per call", ["200 ms"]),  # a unit after the number: a figure after all
        ("It shipped on 9 May and on March 29.", []),  # a day and its month: a date
        ("the S&P 500 rose 0.2% in Game 7", ["0.2%"]),
        ("Figure 2 plots the loss", ["2"]),  # a reference's number alone, never "2 plots"
        ("The Thirty-eighth Annual Conference", []),  # an ordinal in words is not 30/8
    ],
)
def test_scan_names_by_general_rules(text, raws):
    assert [f.raw for f in scan(text)] == raws
