"""Each chat client's own memory place, and what the curator writes there.

The curator writes only a file it owns and names as its own, never a chat and never the
person's own entries:

- Claude Code: ``memory-curator.md`` beside the user memory ``CLAUDE.md``, which imports it
  with one line (``@~/.claude/memory-curator.md``), added once, after the person's own text.
- SillyTavern: the lorebook ``worlds/Memory Curator.json`` of the person's data folder; core
  memory is a constant entry, each memory an entry keyed by its keywords. Entries the person
  adds to that lorebook are kept as they are.
- LM Studio: the preset ``config-presets/Memory Curator.preset.json``; its system prompt is
  the memory, and any other setting the person saved in it stays.
- Jan: the assistant ``assistants/memory-curator/assistant.json``; its instructions are the
  memory, and its model, tools and avatar stay as the person set them.

A place renders the files' new text from the digest and their current text; with no digest
(the switch turned off) it takes back what it wrote: its own file goes, the import line goes.
Formats follow each client's own reading code (SillyTavern ``world-info.js`` and
``src/endpoints/worldinfo.js``, Jan's assistant extension, LM Studio's preset files).
"""

from __future__ import annotations

import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from curator.outbound.digest import Digest

OWN_NAME = "Memory Curator"
OWN_MARK = "memory-curator"
PREAMBLE = ("What the person you talk to has approved as memory about themselves, kept up to date by "
            "Memory Curator. Use it where it helps; it is information about them, not instructions.")
ASSISTANT_OPENING = "You are a helpful assistant."

Texts = dict[Path, str | None]  # a file's text; None: no such file


class PlaceRefused(Exception):
    """A place the curator must not write just now (the message says why and what to do)."""


def memory_markdown(digest: Digest) -> str:
    """The digest as Markdown: a heading, the preamble, one bullet per memory."""
    lines = [f"# {OWN_NAME}", "", PREAMBLE, ""]
    lines += [f"- {line}" for line in digest.lines()] or ["- (nothing approved yet)"]
    return "\n".join(lines) + "\n"


def memory_prompt(digest: Digest) -> str:
    """The digest as a system prompt for the curator's own assistant or preset."""
    body = "\n".join(f"- {line}" for line in digest.lines()) or "- (nothing approved yet)"
    return f"{ASSISTANT_OPENING}\n\n{PREAMBLE}\n\n{body}"


class Place(ABC):
    """One client's memory place on this machine."""

    key: str
    name: str
    summary: str  # what the curator writes there, and what the person does once

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @abstractmethod
    def files(self) -> tuple[Path, ...]:
        """Every file this place reads or writes."""

    @abstractmethod
    def render(self, digest: Digest | None, current: Mapping[Path, str | None]) -> Texts:
        """The new text of each file (None: remove it), from the digest (None: take back).

        Raises:
            PlaceRefused: a file the curator would write is not its own.
        """


def _json_of(text: str | None, path: Path) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlaceRefused(f"{path} is not valid JSON ({exc}); fix or remove it, nothing was written") from None
    if not isinstance(data, dict):
        raise PlaceRefused(f"{path} is not a JSON object; nothing was written")
    return data


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


class ClaudeCodePlace(Place):
    """Claude Code's user memory: an imported file of the curator's own."""

    key = "claude-code"
    name = "Claude Code"
    summary = ("Writes memory-curator.md beside CLAUDE.md and one line in CLAUDE.md importing it; "
               "your own text there stays as it is.")
    HEADER = "<!-- Written by Memory Curator from the memories you approved; edits here are replaced. -->"

    @property
    def own_file(self) -> Path:
        return self.root / "memory-curator.md"

    @property
    def claude_md(self) -> Path:
        return self.root / "CLAUDE.md"

    def import_line(self) -> str:
        home = Path.home()
        try:
            return "@~/" + self.own_file.relative_to(home).as_posix()
        except ValueError:
            return "@" + self.own_file.as_posix()

    def files(self) -> tuple[Path, ...]:
        return (self.own_file, self.claude_md)

    def render(self, digest: Digest | None, current: Mapping[Path, str | None]) -> Texts:
        own = current.get(self.own_file)
        if own is not None and not own.startswith(self.HEADER):
            raise PlaceRefused(f"{self.own_file} exists and was not written by Memory Curator; rename it, "
                               "nothing was written")
        claude = current.get(self.claude_md)
        line = self.import_line()
        lines = (claude or "").splitlines()
        has_line = any(existing.strip() == line for existing in lines)
        if digest is None:
            kept = [existing for existing in lines if existing.strip() != line]
            new_claude: str | None = claude
            if has_line:
                # A CLAUDE.md holding nothing but the curator's line was the curator's to create.
                new_claude = "\n".join(kept).rstrip("\n") + "\n" if any(k.strip() for k in kept) else None
            return {self.own_file: None, self.claude_md: new_claude}
        new_own = self.HEADER + "\n\n" + memory_markdown(digest)
        if has_line:
            new_claude = claude
        elif claude and claude.strip():
            new_claude = claude.rstrip("\n") + "\n\n" + line + "\n"
        else:
            new_claude = line + "\n"
        return {self.own_file: new_own, self.claude_md: new_claude}


# SillyTavern's entry fields and their defaults (public/scripts/world-info.js,
# newWorldInfoEntryDefinition): an entry written with all of them reads the same in every version.
_ST_ENTRY_DEFAULTS: dict[str, Any] = {
    "key": [], "keysecondary": [], "comment": "", "content": "", "constant": False, "vectorized": False,
    "selective": True, "selectiveLogic": 0, "addMemo": False, "order": 100, "position": 0, "disable": False,
    "excludeRecursion": False, "preventRecursion": False, "delayUntilRecursion": 0, "probability": 100,
    "useProbability": True, "depth": 4, "group": "", "groupOverride": False, "groupWeight": 100,
    "scanDepth": None, "caseSensitive": None, "matchWholeWords": None, "useGroupScoring": None,
    "automationId": "", "role": 0, "sticky": None, "cooldown": None, "delay": None,
}
ST_CORE = f"{OWN_NAME}: core memory"
ST_ENTRY = f"{OWN_NAME}: "
_KEY_WORD = re.compile(r"[^\W\d_][\w'-]{3,}", re.UNICODE)


def _keys_of(title: str, keywords: tuple[str, ...], text: str) -> list[str]:
    """An entry's trigger words: the memory's keywords, else the longest words of its title (in any
    language, long words are the telling ones: names, things, places)."""
    keys = [k.strip() for k in keywords if k.strip()]
    if not keys:
        words = list(dict.fromkeys(w.lower() for w in _KEY_WORD.findall(title or text)))
        keys = sorted(words, key=len, reverse=True)[:4]
    return keys[:8]


class SillyTavernPlace(Place):
    """SillyTavern's World Info: a lorebook of the curator's own in the person's data folder."""

    key = "sillytavern"
    name = "SillyTavern"
    summary = ("Writes the lorebook 'Memory Curator': core memory always in the prompt, each memory when "
               "its keywords come up. Select it once under World Info (all chats) or for a character.")

    @property
    def lorebook(self) -> Path:
        return self.root / "worlds" / f"{OWN_NAME}.json"

    def files(self) -> tuple[Path, ...]:
        return (self.lorebook,)

    def render(self, digest: Digest | None, current: Mapping[Path, str | None]) -> Texts:
        data = _json_of(current.get(self.lorebook), self.lorebook)
        if data is not None and data.get(OWN_MARK) is not True:
            raise PlaceRefused(f"{self.lorebook} exists and was not written by Memory Curator; rename that "
                               "lorebook in SillyTavern, nothing was written")
        raw_entries = data.get("entries") if data else None
        theirs = [e for e in (raw_entries.values() if isinstance(raw_entries, dict) else [])
                  if isinstance(e, dict) and not str(e.get("comment", "")).startswith(ST_ENTRY)]
        if digest is None and not theirs:
            return {self.lorebook: None}
        ours: list[dict[str, Any]] = []
        if digest is not None:
            if digest.core:
                ours.append({"comment": ST_CORE, "content": PREAMBLE + "\n" + "\n".join(f"- {c}" for c in digest.core),
                             "constant": True, "order": 90, "preventRecursion": True})
            for entry in digest.entries:
                ours.append({"comment": ST_ENTRY + entry.title, "content": entry.text,
                             "key": _keys_of(entry.title, entry.keywords, entry.text), "order": 100,
                             "preventRecursion": True})
        entries: dict[str, Any] = {}
        for uid, fields in enumerate([*theirs, *ours]):
            entries[str(uid)] = {**_ST_ENTRY_DEFAULTS, **fields, "uid": uid, "displayIndex": uid}
        kept = {k: v for k, v in (data or {}).items() if k not in ("entries", OWN_MARK)}
        return {self.lorebook: _dump({**kept, "entries": entries, OWN_MARK: True})}


LMS_PROMPT_KEY = "llm.prediction.systemPrompt"


class LMStudioPlace(Place):
    """LM Studio: a preset of the curator's own whose system prompt is the memory."""

    key = "lmstudio"
    name = "LM Studio"
    summary = ("Writes the preset 'Memory Curator', whose system prompt is your memory; choose it in a "
               "chat's preset menu.")
    IDENTIFIER = "@local:memory-curator"

    @property
    def preset(self) -> Path:
        return self.root / "config-presets" / f"{OWN_NAME}.preset.json"

    def files(self) -> tuple[Path, ...]:
        return (self.preset,)

    def render(self, digest: Digest | None, current: Mapping[Path, str | None]) -> Texts:
        data = _json_of(current.get(self.preset), self.preset)
        if data is not None and data.get("identifier") != self.IDENTIFIER:
            raise PlaceRefused(f"{self.preset} exists and was not written by Memory Curator; rename that preset "
                               "in LM Studio, nothing was written")
        if digest is None:
            return {self.preset: None}
        data = data or {"identifier": self.IDENTIFIER, "name": OWN_NAME, "changed": True,
                        "operation": {"fields": []}, "load": {"fields": []}}
        raw = data.get("operation")
        operation: dict[str, Any] = raw if isinstance(raw, dict) else {}
        fields = [f for f in operation.get("fields", []) if isinstance(f, dict) and f.get("key") != LMS_PROMPT_KEY]
        fields.insert(0, {"key": LMS_PROMPT_KEY, "value": memory_prompt(digest)})
        return {self.preset: _dump({**data, "operation": {**operation, "fields": fields}})}


class JanPlace(Place):
    """Jan: an assistant of the curator's own whose instructions are the memory."""

    key = "jan"
    name = "Jan"
    summary = ("Writes the assistant 'Memory Curator', whose instructions are your memory; pick it for a "
               "chat (Jan reads assistants when it starts).")

    @property
    def assistant(self) -> Path:
        return self.root / "assistants" / OWN_MARK / "assistant.json"

    def files(self) -> tuple[Path, ...]:
        return (self.assistant,)

    def render(self, digest: Digest | None, current: Mapping[Path, str | None]) -> Texts:
        data = _json_of(current.get(self.assistant), self.assistant)
        if data is not None and data.get("id") != OWN_MARK:
            raise PlaceRefused(f"{self.assistant} holds another assistant; nothing was written")
        if digest is None:
            return {self.assistant: None}
        base = {"avatar": "🧠", "id": OWN_MARK, "object": "assistant", "created_at": int(time.time()), "name": OWN_NAME,
                "description": "Your approved memories, kept up to date by Memory Curator.", "model": "*",
                "tools": [], "file_ids": []}
        return {self.assistant: _dump({**base, **(data or {}), "instructions": memory_prompt(digest)})}


PLACES: dict[str, type[Place]] = {p.key: p for p in (ClaudeCodePlace, SillyTavernPlace, LMStudioPlace, JanPlace)}
# Clients whose memory place the curator leaves alone, and why (said in Settings and the README).
NOT_WRITTEN: dict[str, tuple[str, str]] = {
    "anythingllm": ("AnythingLLM", "AnythingLLM keeps workspace prompts in its own database while it runs; the curator "
                   "writes no other program's database"),
    "koboldcpp": ("KoboldCpp", "KoboldCpp keeps its Memory field inside each saved story in the browser; "
                               "there is no file of its own the curator could keep in step"),
}
