"""The claims lint reads once: every claim of the subjects a manuscript names, with its figures."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlmodel import Session, col

from claimsdb import integrity, views
from claimsdb.figures import Quantity, as_quantity
from claimsdb.figures.matching import SETTING_KEY, measure_words, spelled
from claimsdb.lint.subjects import SubjectIndex
from claimsdb.models import Claim
from claimsdb.trust.rule import EXPORTABLE_STATUS, Policy, RereadPage, page_to_reread


@dataclass(frozen=True)
class IndexedClaim:
    key: str
    subject: str
    tag: str
    trust: str | None
    status: str
    stale: bool  # verified, but the latest verification found the figure changed or gone
    stale_outcome: str | None
    reread_page: RereadPage | None  # the primary page to re-read (first non-note source), if any
    status_reason: str | None = None
    superseded_by: str | None = None
    outdated: str | None = None  # verified, but changed since its re-read: why
    rank: str = "normal"  # among the competing values of its quantity
    preferred: str | None = (
        None  # the value its quantity prefers, when another claim holds it: "20 s (KEY)"
    )
    statement: str = ""
    aliases: tuple[str, ...] = ()  # other names of its subject
    paper_safe: bool = False  # Policy.allows: the one paper-safe rule (its status aside)
    attested: str | None = None  # its re-read is an attestation (not checked on the page): why
    unsigned: str | None = None  # its re-read does not vouch, signatures being required: why
    # every figure, in order, with its name: what a manuscript inserts by reference (lint/references.py)
    figures: tuple[tuple[str | None, Quantity], ...] = ()

    @property
    def active(self) -> bool:
        return self.status == EXPORTABLE_STATUS


@dataclass(frozen=True)
class StoredFigure:
    claim: int  # index into Store.claims
    quantity: Quantity
    name: str | None  # the figure's name in the data ("staleness bound")
    index: int  # its place in Store.figures


class Store:
    """Every claim with its figures (and their names), by subject, under one policy."""

    def __init__(
        self,
        claims: list[IndexedClaim],
        figures: list[tuple[int, Quantity, str | None]],
        policy: Policy,
        subjects: SubjectIndex | None = None,
    ):
        self.policy = policy
        self.claims = claims
        self.by_key = {c.key: i for i, c in enumerate(claims)}
        if subjects is None:
            aliases: dict[str, list[str]] = {}
            for c in claims:
                aliases.setdefault(c.subject, []).extend(c.aliases)
            subjects = SubjectIndex([c.subject for c in claims], aliases)
        self.subjects = (
            subjects  # every subject a manuscript may name; the claims may be those of a few
        )
        self.figures = [StoredFigure(ci, q, name, i) for i, (ci, q, name) in enumerate(figures)]
        self.by_subject: dict[int, list[StoredFigure]] = {}
        for fig in self.figures:
            self.by_subject.setdefault(self.subjects.id[claims[fig.claim].subject], []).append(fig)
        # The keys of the settings the store holds ("max_off_policy_steps = 8", "η = 4"), case-free.
        self.settings = {
            fig.quantity.counted.casefold()
            for fig in self.figures
            if fig.quantity.counted and setting_key(fig.quantity.counted)
        }
        # The figures written without a digit ("hundreds of thousands", "triple"), found by their words.
        phrases = sorted(
            {
                spelled(fig.quantity.raw)
                for fig in self.figures
                if not DIGIT.search(fig.quantity.raw) and spelled(fig.quantity.raw)
            },
            key=len,
            reverse=True,
        )
        firsts = "".join(
            sorted({re.escape(p[0]) for p in phrases})
        )  # a cheap test skips most positions
        self.phrases = (
            re.compile(
                rf"\b(?=[{firsts}])(?:"
                + "|".join(r"[\W_]+".join(map(re.escape, p.split())) + r"(?![\w])" for p in phrases)
                + ")",
                re.I,
            )
            if phrases
            else None
        )
        self._measures: dict[int, tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self.figures)

    def safe(self, ci: int) -> bool:
        """The claim is paper-safe (Policy.allows, the one rule) and current: a stale one that the policy
        lets pass still makes lint warn."""
        c = self.claims[ci]
        return c.active and c.paper_safe and not c.stale

    def measures(self, fig: StoredFigure) -> tuple[str, ...]:
        """The store's words for what a figure measures (figures.matching.measure_words), worked out once."""
        words = self._measures.get(fig.index)
        if words is None:
            words = self._measures[fig.index] = measure_words(
                fig.quantity, fig.name, self.claims[fig.claim].statement
            )
        return words


DIGIT = re.compile(r"\d")


def setting_key(key: str) -> bool:
    """A configuration key ("max_off_policy_steps") or a one-letter symbol ("η", "S")."""
    return bool(SETTING_KEY.fullmatch(key)) or (len(key) == 1 and key.isalpha())


def key_subjects(session: Session, keys: set[str]) -> dict[str, str]:
    """The subject of each of these keys that a claim has (a manuscript's figures by reference)."""
    out: dict[str, str] = {}
    wanted = sorted(keys)
    for i in range(0, len(wanted), 500):
        rows = session.execute(
            select(Claim.key, Claim.subject).where(col(Claim.key).in_(wanted[i : i + 500]))
        )
        out.update({key: subject for key, subject in rows})
    return out


def subject_index(session: Session) -> SubjectIndex:
    """Every subject of the store and its aliases, to find where a manuscript names them."""
    names = views.subject_names(session)
    return SubjectIndex(names, names)


# the fields of a claim's view that an indexed claim holds under the same name
_AS_VIEWED = (
    "key subject tag trust status stale stale_outcome status_reason superseded_by rank statement aliases"
    " attested unsigned"
).split()


def _indexed(
    v: views.ClaimView, policy: Policy, figures: tuple[tuple[str | None, Quantity], ...]
) -> IndexedClaim:
    preferred = next(
        (
            f"{', '.join(c['figures']) or '(no figure)'} ({c['key']})"
            for c in v.competitors
            if c["rank"] == "preferred"
        ),
        None,
    )
    return IndexedClaim(
        **{name: getattr(v, name) for name in _AS_VIEWED},
        reread_page=page_to_reread(v.sources),
        outdated=v.outdated_reason,
        preferred=preferred,
        paper_safe=policy.allows(v),
        figures=figures,
    )


def build_store(
    session: Session,
    policy: Policy,
    *,
    subjects: SubjectIndex | None = None,
    named: set[str] | None = None,
) -> Store:
    """Read the claims and their figures once: every claim, or (`named`) only those of the subjects a
    manuscript names, which is all lint can match (`subjects`: the index of every subject). Withdrawn and
    superseded claims are in the store but never make a figure safe."""
    indexed: list[IndexedClaim] = []
    figures: list[tuple[int, Quantity, str | None]] = []
    ids = views.select_ids(session) if named is None else views.of_subjects(session, sorted(named))
    for ci, v in enumerate(views.load(session, ids)):
        integrity.ensure_intact([v])
        own = tuple((f["name"], as_quantity(f)) for f in v.figures)
        indexed.append(_indexed(v, policy, own))
        for name, q in own:
            if q.numbers() or q.kind == "text":
                figures.append((ci, q, name))
    return Store(indexed, figures, policy, subjects)
