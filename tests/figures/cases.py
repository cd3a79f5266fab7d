"""One table of (stored, written, context) cases and the verdict each must get.

tests/figures/test_match.py asserts these verdicts on `match` itself; tests/test_one_verdict.py asserts
that trace, lint and verify reach the same verdict on every case that each of them can express.
The subject of every case is the model "Heron-3"; `subject` says whether the written figure's sentence
names it, `words` what stands before the number in that sentence.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    stored: str
    written: str
    verdict: str
    subject: bool = True
    words: str = ""
    name: str | None = None

    @property
    def id(self) -> str:
        return (
            f"{self.stored} | {self.written} | {'S' if self.subject else '-'} {self.words}".strip()
        )


CASES = [
    # the same figure, in every written form
    Case("2,048 H800", "2,048 H800", "same"),
    Case("2,048 H800", "2048 H800 GPUs", "same"),
    Case("16K H100", "16,000 H100 GPUs", "same"),
    Case("16K H100", "16 thousand H100", "same"),
    Case("14.8T tokens", "14.8 trillion tokens", "same"),
    Case("14.8T tokens", "14.8 trillion diverse and high-quality tokens", "same"),
    Case("14.8T tokens", "14,800B tokens", "same"),
    Case("466 interruptions", "466 job interruptions", "same"),
    Case("466 interruptions", "466 failures", "same"),  # counted-thing synonyms
    Case("54 days", "54-day", "same"),
    Case("54 days", "54-day snapshot period", "same"),
    Case("> 90%", "higher than 90%", "same"),
    Case("> 90%", "90%", "same"),  # the comparator may differ; the reason says so
    Case("up to 100,000 tasks", "100,000 concurrent tasks", "same"),
    Case("up to 100,000 tasks", "100,000 instances", "same"),  # synonyms
    Case("about 20 s", "20s", "same"),
    Case("about 20 s", "20 seconds", "same"),
    Case("4 nodes", "4 nodes", "same"),
    Case("3.8e25 FLOPs", "3.8 × 10^25 FLOPs", "same"),
    Case("3.8e25 FLOPs", "3.8×10²⁵ FLOPs", "same"),
    Case("10,000 GPUs", "10 000 GPUs", "same"),
    Case("32–33T tokens", "32–33T tokens", "same"),
    Case("32K → 128K", "32K → 128K", "same"),
    Case("4K → 128K → 200K", "4K → 128K", "same"),  # steps of the change, in order
    Case("4K → 128K", "128K", "contained"),  # one step of the change does not state the change
    Case("355B-A32B", "355B-A32B", "same"),
    Case("355B-A32B", "355B parameters", "same"),  # the total size
    Case("355B-A32B", "32B parameters", "same"),  # the active size
    Case("16:44", "16:44", "same"),
    Case("2–4×", "2–4×", "same"),
    Case("28", "28", "same"),  # a bare stored number, its subject named
    Case("11", "11 tasks", "same"),  # WeirdML counts 11 tasks: same for lint and trace alike
    Case("100B", "100B", "same", name="Dolmino"),
    # a bare written number: the context must say what it counts
    Case("278 nodes", "278", "same", words="node occupancy reached"),
    Case("2,048 H800", "2,048", "same", words="H800 count:"),
    Case(
        "466 interruptions", "466", "unrelated"
    ),  # a bare number never matches a figure with a unit
    Case("54 days", "54", "unrelated"),
    Case("2–4×", "3.1", "unrelated"),  # "Llama 3.1" is not inside "2–4×"
    Case("2–4×", "3", "unrelated"),
    # rounding: the written value is more precise
    Case("5.9T", "5.93T", "rounded"),
    Case("5.9T tokens", "5.93 trillion tokens", "rounded"),
    Case("16K H100", "16,384 H100", "rounded"),
    Case("~50B", "48B", "rounded"),  # approximate stored value, within 10 %
    Case("1T parameters", "671B parameters", "different"),  # not a more precise 1T
    Case("S=3", "3.47s", "unrelated"),  # the setting S is not seconds
    Case("~50B", "50B", "same"),
    # contained in a range
    Case("32–33T tokens", "32.5T tokens", "contained"),
    Case("32–33T tokens", "32T tokens", "contained"),  # an end of the range is not the range
    Case("40–60K sandboxes", "50–70K sandboxes", "contained"),  # overlapping ranges
    Case("2–4×", "3×", "contained"),
    # the same measure of the named subject, another value: "differs from the store"
    Case("up to 100,000 tasks", "10,000 concurrent tasks", "different"),
    Case("14.8T tokens", "15T tokens", "different"),  # a rounding of the stored value is not it
    Case("2,048 H800", "2,000 H800", "different"),
    Case("466 interruptions", "419 interruptions", "different"),
    Case("> 90%", "95%", "different"),  # a bound is not a range
    Case("4 nodes", "8 nodes", "different"),
    Case("5.9T tokens", "5.8T tokens", "different"),
    # not the same measure, or too far apart, or nobody named
    Case("14.8T tokens", "128K tokens", "unrelated"),  # another quantity, not a revision
    Case("2,048 H800", "2,048 B300", "unrelated"),  # another accelerator
    Case("2,048 H800", "2,048 H100 GPUs", "unrelated"),
    Case("54 days", "54 hours", "unrelated"),
    Case("466 interruptions", "466 GPUs", "unrelated"),
    Case("16:44", "16", "unrelated"),  # the parts of a ratio are not numbers on their own
    Case("1/4", "1/4 of the nodes", "same"),  # a slash fraction alone, and before "of" (0.25)
    Case("1/8 of the GPUs", "1/8", "same"),
    Case("1/4", "0.25", "same"),
    Case("1:4", "1/4 of the nodes", "unrelated"),  # one part to four is a fifth of the whole
    Case("4/1", "4", "unrelated"),  # not a fraction: the parts of a ratio
    Case("4 nodes", "4 GPUs", "unrelated"),
    Case(
        "14.8T tokens", "14.8T tokens", "unrelated", subject=False
    ),  # nobody named: anybody's number
    Case("11", "11", "unrelated", subject=False),  # a bare benchmark cell
    Case("54 days", "54 days", "unrelated", subject=False),
    Case("up to 100,000 tasks", "10,000 tasks", "unrelated", subject=False),
    Case("21% → 24%", "21", "unrelated"),
    Case("4", "2–4× speedups", "unrelated"),  # a bare stored value inside a written range
    Case("3×", "2–4× speedups", "contained"),
    Case(
        "397B", "1T models", "unrelated", name="model size"
    ),  # a name is not enough for "different"
    Case("hundreds of thousands", "hundreds of thousands", "same"),
    Case("hundreds of thousands", "200,000", "unrelated"),
]
