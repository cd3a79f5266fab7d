"""A small tree of an HTML page (html.parser), to check what a page draws rather than grep its text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list = field(default_factory=list)  # Nodes and str

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.walk()

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [
            n
            for n in self.walk()
            if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)
        ]

    def texts(self):
        """Every text piece in the tree, with the element holding it."""
        for c in self.children:
            if isinstance(c, str):
                yield c, self
            else:
                yield from c.texts()


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.node = Node("#document", {})

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.node)
        self.node.children.append(node)
        if tag not in VOID:
            self.node = node

    def handle_endtag(self, tag):
        node = self.node
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.node = node.parent

    def handle_data(self, data):
        self.node.children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


@dataclass(frozen=True)
class Chip:
    key: str
    classes: frozenset[str]
    text: str
    marks: tuple[str, ...]
    href: str


def chips(html: str) -> list[Chip]:
    """Every figure drawn with its tag (a.fig with the claim's key)."""
    out = []
    for a in parse(html).find_all("a", "fig"):
        marks = tuple(m.text() for m in a.find_all("span", "mark"))
        out.append(
            Chip(
                a.attrs.get("data-key", ""),
                frozenset(a.classes),
                a.text(),
                marks,
                a.attrs.get("href", ""),
            )
        )
    return out


def by_key(html: str) -> dict[str, list[Chip]]:
    out: dict[str, list[Chip]] = {}
    for c in chips(html):
        out.setdefault(c.key, []).append(c)
    return out


def holders(html: str, text: str) -> list[Node]:
    """The elements whose own text holds `text`."""
    return [node for piece, node in parse(html).texts() if text in piece]


def marked(node: Node) -> bool:
    """Inside an element drawn as not paper-safe ("unsafe") that says so in words."""
    for element in [node, *node.ancestors()]:
        if "unsafe" in element.classes:
            return any(
                m.text() in ("unverified", "not re-read") for m in element.find_all("span", "mark")
            )
    return False
