"""KoboldCpp / Kobold Lite saved stories (``saved_story.json``), as an import.

The story is one text stream: ``prompt`` then the ``actions`` chunks. Chunk boundaries are
where generation stopped, not turns, so turns are rebuilt from the text by the story's mode
(``savedsettings.opmode``): in chat mode (3) lines start ``<name>: `` for the person
(``chatname``) or a character (``chatopponent``, several joined by ``||$||``); in instruct
mode (4) the text is split at the ``{{[INPUT]}}`` / ``{{[OUTPUT]}}`` placeholders. Story and
adventure modes are prose written together: the prompt is the person's, each action the
model's. Stories carry no times and no ids: turns are time-unknown and keyed by position.
"""

from __future__ import annotations

import re
from pathlib import Path

from curator.sources.adapters.common import (
    Emitter,
    FileAdapter,
    as_dict,
    as_list,
    as_str,
    load_json,
)

INPUT_TAG = "{{[INPUT]}}"
OUTPUT_TAG = "{{[OUTPUT]}}"
SYSTEM_TAG = "{{[SYSTEM]}}"
_TAG_SPLIT = re.compile(r"(\{\{\[(?:INPUT|OUTPUT|SYSTEM)\]\}\})")
# Closing tags of newer Kobold Lite versions: markers, not words anybody wrote.
_END_TAGS = re.compile(r"\{\{\[(?:INPUT|OUTPUT|SYSTEM)_END\]\}\}")
_ROLE_OF_TAG = {INPUT_TAG: "user", OUTPUT_TAG: "assistant", SYSTEM_TAG: "system"}


def chat_turns(text: str, user: str, others: list[str]) -> list[tuple[str, str, str]]:
    """(role, speaker, text) of a chat-mode story, split at ``\\n<name>: ``."""
    names = [n for n in [user, *others] if n]
    if not names:
        return []
    pattern = re.compile(r"(?:^|\n)(" + "|".join(re.escape(n) for n in names) + r"):[ \t]?")
    matches = list(pattern.finditer(text))
    turns = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[match.end() : end].strip()
        if body:
            name = match.group(1)
            turns.append(("user" if name == user else "assistant", name, body))
    return turns


def instruct_turns(text: str) -> list[tuple[str, str, str]]:
    """(role, speaker, text) of an instruct-mode story, split at the placeholders.

    Text before the first placeholder is the scenario's greeting, the assistant's opening
    (Kobold Lite shows it above the first input), never the person's words.
    """
    turns: list[list[str]] = []
    for piece in _TAG_SPLIT.split(_END_TAGS.sub("", text)):
        role = _ROLE_OF_TAG.get(piece)
        if role:
            turns.append([role, role, ""])
        elif turns:
            turns[-1][2] += piece
        elif piece.strip():
            turns.append(["assistant", "assistant", piece])
    return [(r, s, t.strip()) for r, s, t in turns if t.strip()]


# Kobold Lite's own defaults for the two chat names, used when a story was saved without
# its settings.
DEFAULT_USER = "User"
DEFAULT_BOT = "KoboldAI"


def guessed_mode(text: str) -> int | None:
    """The mode of a story saved without ``savedsettings``: instruct when its placeholders
    are in the text, chat when its lines start with the default chat names, else unknown."""
    if _TAG_SPLIT.search(text):
        return 4
    if re.search(rf"(?:^|\n){DEFAULT_USER}:", text) and re.search(rf"(?:^|\n){DEFAULT_BOT}:", text):
        return 3
    return None


class KoboldCppAdapter(FileAdapter):
    """Reads Kobold Lite / KoboldCpp saved stories."""

    name = "koboldcpp"
    description = "KoboldCpp / Kobold Lite saved stories (saved_story*.json), as an import"
    suffixes = (".json",)

    def claim(self, path: Path, head: bytes) -> float:
        if not path.name.endswith(".json") or path.name.endswith(".conversation.json"):
            return 0.0
        if b'"actions"' in head and (b'"gamestarted"' in head or b'"savedsettings"' in head):
            return 0.9
        return 0.0

    def parse(self, unit: Path, out: Emitter) -> None:
        doc = load_json(unit, out.file_name, out.result)
        if doc is None:
            return
        if not isinstance(doc, dict) or not isinstance(doc.get("actions"), list):
            out.result.problem(f"{out.file_name}: no 'actions' list, not a saved story; skipped")
            return
        settings = as_dict(doc.get("savedsettings"))
        prompt = as_str(doc.get("prompt"))
        chunks = [as_str(a) for a in as_list(doc.get("actions"))]
        text = prompt + "".join(chunks)
        mode = settings.get("opmode") if settings else guessed_mode(text)
        if mode == 3:
            others = as_str(settings.get("chatopponent")).split("||$||") if settings else [DEFAULT_BOT]
            turns = chat_turns(text, as_str(settings.get("chatname")) or DEFAULT_USER, others)
        elif mode == 4:
            turns = instruct_turns(text)
        else:
            turns = [("user", "user", prompt.strip())] if prompt.strip() else []
            turns += [("assistant", "assistant", c.strip()) for c in chunks if c.strip()]
        if not turns and text.strip():
            out.result.problem(f"{out.file_name}: no turns could be told apart in the story text; skipped")
        conversation = out.file_name[: -len(".json")]
        for position, (role, speaker, body) in enumerate(turns):
            out.emit(
                conversation=conversation, key=f"pos:{position}", position=position, role=role,
                speaker=speaker, text=body, when=None, title=Path(conversation).name,
                extra={"mode": mode} if isinstance(mode, int) else None,
            )

