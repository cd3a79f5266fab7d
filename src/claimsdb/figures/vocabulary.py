"""Every word list the figure code uses, each once: scales, number words, qualifiers, accelerators,
counted things and their synonyms, the stop words of prose, parts of speech (the unit words and their
normalisation are in `units`).

Parser, matcher, lint and verify read these lists; none keeps a copy. Standard library only.
"""

from __future__ import annotations

import re

# --- punctuation -----------------------------------------------------------------------------------

# Every dash that stands for "-" in a page or a note: hyphen, non-breaking hyphen, figure dash, en and em
# dash, horizontal bar, minus sign, small em dash, small and full-width hyphen-minus. The parser reads any
# of them between two numbers as a range and locate reads them all as "-": "32―33T" on a page is the
# note's "32–33T". The ASCII "-" is not in the set (a regex class needs it last or escaped).
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"

# --- currencies and siunitx ----------------------------------------------------------------------

CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP"}
# Units that say what a figure measures: a page number in another of these is another quantity.
# siunitx: prefixes and units as written in \qty{2.4}{\giga\hertz}.
SI_PREFIXES = {
    "kilo": "k",
    "mega": "M",
    "giga": "G",
    "tera": "T",
    "peta": "P",
    "exa": "E",
    "milli": "m",
    "micro": "µ",
    "nano": "n",
    "kibi": "Ki",
    "mebi": "Mi",
    "gibi": "Gi",
    "tebi": "Ti",
}
SI_UNITS = {
    "hertz": "Hz",
    "byte": "B",
    "bit": "b",
    "second": "s",
    "minute": "min",
    "hour": "h",
    "day": "days",
    "watt": "W",
    "percent": "%",
    "metre": "m",
    "meter": "m",
    "gram": "g",
    "joule": "J",
    "volt": "V",
    "ampere": "A",
    "flops": "FLOPs",
    "flop": "FLOPs",
}

# --- numbers ---------------------------------------------------------------------------------------

SCALES = {"K": 3, "k": 3, "M": 6, "B": 9, "T": 12}
SCALE_WORDS = {
    "hundred": 2,
    "thousand": 3,
    "million": 6,
    "billion": 9,
    "trillion": 12,
    "quadrillion": 15,
}
# Lowercase scales glued to a number that mean one thing only ("$1.8bn", "£3mn"); a lone "b", "m" or
# "t" ("35m": metres or millions) is ambiguous unless a currency sign stands before it ("$35m").
GLUED_LOWER_SCALES = {"bn": 9, "mn": 6, "mln": 6, "bln": 9, "trn": 12}
AFTER_CURRENCY_SCALES = {"b": 9, "m": 6, "t": 12, "k": 3}
ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
FRACTION_WORDS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fifth": 5,
    "fifths": 5,
    "eighth": 8,
    "eighths": 8,
    "tenth": 10,
    "tenths": 10,
    "sixth": 6,
    "sixths": 6,
    "seventh": 7,
    "sevenths": 7,
    "ninth": 9,
    "ninths": 9,
}
VULGAR_FRACTIONS = {
    "½": "0.5",
    "¼": "0.25",
    "¾": "0.75",
    "⅛": "0.125",
    "⅜": "0.375",
    "⅝": "0.625",
    "⅞": "0.875",
    "⅕": "0.2",
    "⅖": "0.4",
    "⅗": "0.6",
    "⅘": "0.8",
    "⅒": "0.1",
    "⅓": "0.333333",
    "⅔": "0.666667",
    "⅙": "0.166667",
    "⅚": "0.833333",
    "⅐": "0.142857",
    "⅑": "0.111111",
}
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
VAGUE_WORDS = (
    "few",
    "couple",
    "handful",
    "dozen",
    "dozens",
    "several",
    "many",
    "multiple",
    "numerous",
    "countless",
    "tens",
    "hundreds",
    "thousands",
    "millions",
    "billions",
    "trillions",
)
PLURAL_SCALES = {
    "hundreds",
    "thousands",
    "millions",
    "billions",
    "trillions",
    "quadrillions",
    "dozen",
    "dozens",
}

# --- qualifiers ------------------------------------------------------------------------------------

QUALIFIER_WORDS = [
    ("no more than", "<="),
    ("not more than", "<="),
    ("no less than", ">="),
    ("not less than", ">="),
    ("no fewer than", ">="),
    ("in excess of", ">"),
    ("on the order of", "~"),
    ("upwards of", ">"),
    ("up to", "up to"),
    ("at least", ">="),
    ("at most", "<="),
    ("more than", ">"),
    ("greater than", ">"),
    ("higher than", ">"),
    ("larger than", ">"),
    ("lower than", "<"),
    ("smaller than", "<"),
    ("less than", "<"),
    ("fewer than", "<"),
    ("just over", ">"),
    ("just under", "<"),
    ("well over", ">"),
    ("well under", "<"),
    ("approximately", "~"),
    ("approx.", "~"),
    ("approx", "~"),
    ("roughly", "~"),
    ("about", "~"),
    ("around", "~"),
    ("circa", "~"),
    ("ca.", "~"),
    ("nearly", "~"),
    ("almost", "~"),
    ("some", "~"),
    ("over", ">"),
    ("under", "<"),
    ("above", ">"),
    ("below", "<"),
    ("exceeding", ">"),
]
QUALIFIER_SYMBOLS = [
    ("<=", "<="),
    (">=", ">="),
    ("≤", "<="),
    ("≥", ">="),
    ("⩽", "<="),
    ("⩾", ">="),
    ("<", "<"),
    (">", ">"),
    ("~", "~"),
    ("≈", "~"),
    ("∼", "~"),
    ("≃", "~"),
]
QUALIFIERS = dict(QUALIFIER_WORDS) | dict(QUALIFIER_SYMBOLS)
# Words before "from X to Y" that make it a change (a transition) rather than a span (a range).
CHANGE_WORDS = re.compile(
    r"(?:increas|decreas|grow|grew|extend|expand|rais|reduc|rose|rise|rising|fell|fall|drop|cut|went|go|goes|"
    r"scal|improv|boost|jump|climb|shrink|shrank|lower|doubl|halv|mov|chang|upgrad|shift|climb|swell|"
    r"push|bump|stretch|speed|sped|accelerat|slow)\w*",
    re.I,
)

# --- accelerators ----------------------------------------------------------------------------------

ACCELERATOR = r"[A-Z]{1,2}[0-9]{2,4}[A-Z]?"  # "H100", "H800", "MI300X", "B300"
ACCELERATOR_WORD = re.compile(rf"(?P<name>{ACCELERATOR})s?")
NOT_ACCELERATOR = re.compile(r"(?:FP|BF|TF|INT|MX|NF|E[0-9]M)[0-9]+[A-Z]?s?|A[0-9.]+[KMBT]")


def accelerator(word: str) -> str | None:
    """The accelerator name if `word` names one ("H100", "H800s", "MI300X"), else None."""
    m = ACCELERATOR_WORD.fullmatch(word)
    if m and not NOT_ACCELERATOR.fullmatch(word):
        return m["name"]
    return None


# --- counted things --------------------------------------------------------------------------------

# Words that name the same counted thing. The first of each group is the canonical form.
COUNTED_SYNONYMS = [
    ("GPUs", "accelerators", "cards"),
    ("interruptions", "failures", "outages"),
    ("instances", "tasks", "scenarios"),
    ("rollouts", "trajectories"),
    ("environments", "envs"),
    ("nodes", "servers", "hosts"),
]
_SYNONYM = {w.lower(): group[0] for group in COUNTED_SYNONYMS for w in group}
_SYNONYM["gpus"] = "GPUs"

# --- stop words ------------------------------------------------------------------------------------

# Articles, prepositions, conjunctions, pronouns and auxiliaries: the words that say nothing about a topic.
FUNCTION_WORDS = set(
    """
a an the and or nor but if so as than then that this these those there here which who whom whose what when where
while whether it its they them their we our us you your he she his her i me my of to in on for with by from at into
onto over under about after before during per via across within without between among against through toward
towards upon is are was were be been being am has have had do does did can could will would may might should must
shall not no also only such each every all any both either neither some most more other same very just too
""".split()
)
# Adjectives that follow a figure but are not what it counts ("37B active", "405B dense").
FIGURE_ADJECTIVES = {
    "active",
    "activated",
    "dense",
    "sparse",
    "peak",
    "average",
    "avg",
    "effective",
    "faster",
    "slower",
    "more",
    "less",
    "fewer",
    "higher",
    "lower",
    "better",
    "worse",
    "larger",
    "smaller",
    "total",
    "overall",
    "combined",
    "apiece",
    "altogether",
    "respectively",
    "concurrently",
    "simultaneously",
}
# What ends a unit phrase after a figure.
PHRASE_STOP_WORDS = (
    (
        FUNCTION_WORDS
        - {
            "some",
            "most",
            "no",
            "all",
            "any",
            "both",
            "same",
            "other",
            "very",
            "just",
            "too",
            "also",
            "i",
            "me",
            "my",
            "he",
            "she",
            "his",
            "her",
            "you",
            "your",
            "us",
            "am",
        }
    )
    | {
        "vs",
        "vs.",
        "versus",
        "i.e.",
        "e.g.",
        "—",
        "–",
        "-",
        "when",
        "while",
        "so",
        "if",
        "but",
    }
    | FIGURE_ADJECTIVES
)
# Words of a claim's subject or statement that do not locate it on a page.
HINT_STOP_WORDS = FUNCTION_WORDS | {
    "using",
    "used",
    "use",
    "based",
    "new",
    "one",
    "two",
    "three",
    "four",
    "five",
    "out",
    "up",
    "then",
    "there",
}
# Words that come before a number without naming anything ("in 3", "the 4").
NOT_NAMES = FUNCTION_WORDS | {
    "using",
    "top",
    "first",
    "last",
    "next",
    "even",
    "exactly",
    "roughly",
    "almost",
    "nearly",
    "another",
    "just",
}
# Words of a subject that do not name it on their own.
GENERIC_SUBJECT_WORDS = {
    "rl",
    "llm",
    "llms",
    "ai",
    "ml",
    "gpu",
    "gpus",
    "cpu",
    "cpus",
    "tpu",
    "moe",
    "api",
    "sft",
    "dpo",
    "ppo",
    "the",
    "and",
    "of",
    "for",
    "a",
    "an",
    "model",
    "models",
    "report",
    "reports",
    "paper",
    "papers",
    "open",
    "large",
    "small",
    "mini",
    "base",
    "chat",
    "instruct",
    "pro",
    "flash",
    "super",
    "ultra",
    "lite",
    "max",
    "thinking",
    "reasoning",
    "task",
    "tasks",
    "stack",
    "stacks",
    "services",
    "service",
    "pipeline",
    "pipelines",
    "production",
    "benchmark",
    "benchmarks",
    "bench",
    "loop",
    "training",
    "team",
    "lab",
    "labs",
    "inc",
    "asynchronous",
    "async",
    "synchronous",
    "sync",
    "engine",
    "engines",
    "system",
    "systems",
}

# --- parts of speech (enough to end a unit phrase) ------------------------------------------------

# A unit or counted thing is a noun; these words never end one.
_ADJECTIVES = set(
    """
diverse high-quality quality long short large small big huge tiny new old open public private synthetic real
different distinct unique additional extra various full partial final initial main major minor key core
general special specific single multiple double first second third last next previous early late good bad best
high low fast slow wide narrow deep shallow heavy light hard easy simple complex modern standard original
mutual random natural human supervised unsupervised parallel sequential local global internal external
chinese english multilingual multimodal frontier pretrained fine-tuned input output
""".split()
)
_VERBS = set(
    """
show shows present presents illustrate illustrates demonstrate demonstrates perform performs achieve achieves
reach reaches require requires make makes give gives outperform outperforms exceed exceeds surpass surpasses
include includes contain contains provide provides enable enables consume consumes become becomes remain remains
describe describes see sees get gets is are was were be been need needs hold holds handle handles deliver
delivers activate activates increase increases decrease decreases rise rises grow grows fall falls
""".split()
)
_NOUNS_IN_LY = {
    "family",
    "supply",
    "assembly",
    "anomaly",
    "reply",
    "rally",
    "ally",
    "fly",
    "monopoly",
    "belly",
    "jelly",
    "july",
    "italy",
    "butterfly",
}
_ADJECTIVE_SUFFIXES = (
    "ive",
    "ous",
    "ful",
    "less",
    "able",
    "ible",
    "ical",
    "ic",
    "ary",
    "ant",
    "ent",
)
_ADJECTIVE_SUFFIX_NOUNS = {
    "objective",
    "objectives",
    "directive",
    "alternative",
    "archive",
    "drive",
    "initiative",
    "primitive",
    "agent",
    "agents",
    "component",
    "student",
    "client",
    "document",
    "experiment",
    "environment",
    "segment",
    "element",
    "moment",
    "percent",
    "patent",
    "token",
    "event",
    "content",
    "parent",
    "constant",
    "variant",
    "assistant",
    "participant",
    "tenant",
    "dictionary",
    "library",
    "summary",
    "boundary",
    "vocabulary",
    "topic",
    "metric",
    "logic",
    "epic",
    "clinic",
    "traffic",
    "graphic",
    "heuristic",
    "mechanic",
    "music",
    "table",
    "cable",
    "variable",
    "variables",
    "bible",
    "vegetable",
    "label",
    "cycles",
    "epoch",
    "department",
    "statement",
    "requirement",
    "deployment",
    "gradient",
    "coefficient",
    "intent",
    "point",
}


def is_modifier(word: str) -> bool:
    """An adjective or adverb as far as a word list and suffixes can tell ("diverse", "synthetically")."""
    low = word.lower().strip(".,;:")
    if not low.isascii() or not low.replace("-", "").isalpha():
        return False
    if low in _ADJECTIVES or low in FIGURE_ADJECTIVES:
        return True
    if low.endswith("ly") and len(low) > 4 and low not in _NOUNS_IN_LY:
        return True
    if low in _ADJECTIVE_SUFFIX_NOUNS:
        return False
    return len(low) > 5 and low.endswith(_ADJECTIVE_SUFFIXES) and not low.endswith("ics")


def is_verb(word: str) -> bool:
    """A verb form that may follow a figure ("illustrates", "input", "trained")."""
    low = word.lower()
    return low in _VERBS or (low.endswith("ed") and not low.endswith("eed") and len(low) > 4)
