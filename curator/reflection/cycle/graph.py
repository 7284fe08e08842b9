"""The entity graph and procedures (seed 001): ``memory/graph/index.md``, ``entities/<name>.md``
and ``memory/procedures/<name>.md``, with Obsidian ``[[links]]``.

Each function takes a file's current text and returns its new text; writing is the apply
step's business (all or nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from curator.reflection.cycle.operations import Operation, entity_slug

_ROW = re.compile(r"^\|\s*(.*?)\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|\s*(.*?)\s*\|\s*$")
_LINK = re.compile(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")


def link(name: str) -> str:
    return f"[[{entity_slug(name)}|{' '.join(name.split())}]]"


@dataclass(frozen=True)
class Edge:
    source: str
    relation: str
    target: str
    since: str


def parse_index(text: str) -> tuple[dict[str, str], list[Edge]]:
    """(entity slug -> updated, edges) from graph/index.md."""
    entities: dict[str, str] = {}
    edges: list[Edge] = []
    section = ""
    for raw in text.splitlines():
        if raw.startswith("## "):
            section = raw[3:].strip().casefold()
            continue
        row = _ROW.match(raw.strip())
        if not row or set(row.group(1)) <= {"-", " "} or row.group(1) in ("entity", "from"):
            continue
        if section == "entities":
            slug = (_LINK.findall(row.group(1)) or [row.group(1)])[0]
            entities[slug] = row.group(3)
        elif section == "edges":
            src = (_LINK.findall(row.group(1)) or [row.group(1)])[0]
            dst = (_LINK.findall(row.group(3)) or [row.group(3)])[0]
            edges.append(Edge(src, row.group(2), dst, row.group(4)))
    return entities, edges


def render_index(entities: dict[str, str], edges: list[Edge]) -> str:
    lines = ["# Graph index", "", "## Entities", "| entity | file | updated |", "|---|---|---|"]
    lines += [f"| [[{slug}]] | entities/{slug}.md | {updated} |" for slug, updated in sorted(entities.items())]
    lines += ["", "## Edges", "| from | relation | to | since |", "|---|---|---|---|"]
    lines += [f"| [[{e.source}]] | {e.relation} | [[{e.target}]] | {e.since} |" for e in edges]
    return "\n".join(lines) + "\n"


def entity_text(current: str, name: str, facts: list[str], links: list[str], number: int) -> str:
    """An entity file with ``facts`` and ``links`` added (each once)."""
    if not current.strip():
        current = f"# {' '.join(name.split())}\n\n## Facts\n\n## Links\n"
    head, _, links_part = current.partition("\n## Links\n")
    fact_lines = [line for line in head.rstrip().splitlines()]
    link_lines = [line for line in links_part.strip().splitlines() if line.strip()]
    for fact in facts:
        line = f"- {fact} (reflection #{number})"
        if not any(fact in existing for existing in fact_lines):
            fact_lines.append(line)
    for item in links:
        line = f"- {item}"
        if line not in link_lines:
            link_lines.append(line)
    return "\n".join(fact_lines).rstrip() + "\n\n## Links\n" + "\n".join(link_lines) + ("\n" if link_lines else "")


def procedure_text(current: str, op: Operation, number: int) -> str:
    """A procedure file from a PATTERN operation (a new section when the file exists)."""
    cited = ", ".join(op.evidence) or "the meta-reflection"
    block = f"{op.content}\n\nLearned in reflection #{number} from {cited}."
    if not current.strip():
        return f"# {' '.join(op.entity.split())}\n\n{block}\n"
    return current.rstrip() + f"\n\n## Update (reflection #{number})\n\n{block}\n"


def linked_names(text: str) -> list[str]:
    return _LINK.findall(text)
