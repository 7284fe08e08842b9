"""LoCoMo-format conversations: reading them and converting them to the generic JSONL format.

A LoCoMo file holds one conversation (``speaker_a``, ``speaker_b``, ``session_N`` lists of
turns ``{speaker, dia_id, text[, blip_caption]}``, ``session_N_date_time``, gold
``events_session_N`` and ``qa``), or, as in the original release, a list of such records
with the sessions nested under ``conversation`` and the events under ``event_summary``.
Both shapes are accepted; files are found by content, never by name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_SESSION_RE = re.compile(r"^session_(\d+)$")
_EVENTS_RE = re.compile(r"^events_session_(\d+)$")
_OBSERVATION_RE = re.compile(r"^session_(\d+)_observation$")
# Evidence ids are "D<session>:<turn>"; a few gold entries are mistyped ("D:11:26",
# "D8:6; D9:17"), so they are split and repaired rather than dropped.
_DIA_RE = re.compile(r"D:?(\d+):(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M%p on %d %B, %Y", "%d %B, %Y", "%d %B %Y")
QUALITY_CATEGORIES = (1, 2, 3, 4)


@dataclass(frozen=True)
class LocomoTurn:
    """One turn of a conversation, with the text as the curator will index it."""

    dia_id: str
    session: int
    speaker: str
    text: str
    timestamp: datetime


@dataclass(frozen=True)
class LocomoQuestion:
    """A question with its category and normalised evidence ids."""

    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass
class LocomoConversation:
    """A whole conversation: turns in order, questions and gold per-session events."""

    conv_id: str
    speaker_a: str
    speaker_b: str
    turns: list[LocomoTurn]
    questions: list[LocomoQuestion] = field(default_factory=list)
    events: dict[int, list[str]] = field(default_factory=dict)
    # Gold observations per session: (speaker, text, evidence dia_ids).
    observations: dict[int, list[tuple[str, str, tuple[str, ...]]]] = field(default_factory=dict)

    def quality_questions(self) -> list[LocomoQuestion]:
        """Questions of categories 1-4 that name at least one evidence turn."""
        return [q for q in self.questions if q.category in QUALITY_CATEGORIES and q.evidence]


def parse_session_date(value: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` as a UTC datetime (LoCoMo dates carry no zone)."""
    text = " ".join(str(value).replace("\u202f", " ").split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def normalise_evidence(raw: Any) -> tuple[str, ...]:
    """Evidence entries as ``D<s>:<t>`` ids, repaired where the gold data is mistyped."""
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        for match in _DIA_RE.finditer(str(item)):
            dia = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia not in out:
                out.append(dia)
    return tuple(out)


def turn_text(turn: dict[str, Any]) -> str:
    """The text as indexed: the turn's words, plus the caption of a shared photo."""
    text = str(turn.get("text") or "").strip()
    caption = str(turn.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def _records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return
    if isinstance(data, dict):
        yield path.stem, data
    elif isinstance(data, list):
        for i, item in enumerate(data):
            if isinstance(item, dict):
                yield str(item.get("sample_id") or f"{path.stem}-{i}"), item


def parse_conversation(conv_id: str, record: dict[str, Any]) -> LocomoConversation | None:
    """A conversation from one LoCoMo record, or None when the record is not one."""
    body = record.get("conversation") if isinstance(record.get("conversation"), dict) else record
    if not isinstance(body, dict) or "speaker_a" not in body:
        return None
    sessions = sorted(int(m.group(1)) for k in body if (m := _SESSION_RE.match(k)) and isinstance(body[k], list))
    if not sessions:
        return None
    turns: list[LocomoTurn] = []
    fallback = datetime(2023, 1, 1, tzinfo=UTC)
    for number in sessions:
        start = parse_session_date(
            str(body.get(f"session_{number}_date_time", ""))
        ) or fallback + timedelta(days=number)
        for i, raw in enumerate(body[f"session_{number}"]):
            if not isinstance(raw, dict) or not raw.get("dia_id"):
                continue
            text = turn_text(raw)
            if not text:
                continue
            # Seconds apart inside a session, so order and session date both survive.
            turns.append(LocomoTurn(str(raw["dia_id"]), number, str(raw.get("speaker") or ""), text,
                                    start + timedelta(seconds=30 * i)))
    summary = record.get("event_summary")
    events_src: dict[str, Any] = summary if isinstance(summary, dict) else record
    events: dict[int, list[str]] = {}
    for key, value in events_src.items():
        match = _EVENTS_RE.match(key)
        if match and isinstance(value, dict):
            items = [
                str(e)
                for speaker, lst in value.items()
                if speaker != "date" and isinstance(lst, list)
                for e in lst
            ]
            events[int(match.group(1))] = items
    questions = []
    observed = record.get("observation")
    observations = _observations(observed if isinstance(observed, dict) else body)
    for q in record.get("qa") or []:
        if not isinstance(q, dict):
            continue
        try:
            category = int(q.get("category", 0))
        except (TypeError, ValueError):
            continue
        questions.append(
            LocomoQuestion(
                str(q.get("question") or ""), category, normalise_evidence(q.get("evidence") or [])
            )
        )
    return LocomoConversation(conv_id, str(body.get("speaker_a") or ""), str(body.get("speaker_b") or ""),
                              turns, questions, events, observations)


def _observations(source: dict[str, Any]) -> dict[int, list[tuple[str, str, tuple[str, ...]]]]:
    """``session_N_observation``: ``{speaker: [[text, dia_id or ids], ...]}`` per session."""
    out: dict[int, list[tuple[str, str, tuple[str, ...]]]] = {}
    for key, value in source.items():
        match = _OBSERVATION_RE.match(key)
        if not match or not isinstance(value, dict):
            continue
        items = out.setdefault(int(match.group(1)), [])
        for speaker, entries in value.items():
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, list) and len(entry) >= 2 and str(entry[0]).strip():
                    evidence = normalise_evidence(entry[1])
                    if evidence:
                        items.append((str(speaker), str(entry[0]).strip(), evidence))
    return out


def load_folder(folder: Path) -> list[LocomoConversation]:
    """Every LoCoMo conversation in the ``*.json`` files of ``folder`` (sorted by file name)."""
    conversations: list[LocomoConversation] = []
    for path in sorted(Path(folder).glob("*.json")):
        for conv_id, record in _records(path):
            conv = parse_conversation(conv_id, record)
            if conv is not None and conv.turns:
                conversations.append(conv)
    return conversations


def jsonl_lines(conv: LocomoConversation, *, two_people: bool = False) -> list[str]:
    """The conversation in the generic JSONL chat format, one message per line.

    ``speaker_a`` plays the user and ``speaker_b`` the assistant (the format needs a role);
    the names travel in ``speaker``. The dia_id is the message id, so a search hit maps back
    to it through the turn's message key. With ``two_people`` both speakers are users (LoCoMo
    is two people talking, and its gold observations are about both) and each session is a
    conversation of its own, as a chat client would store it.
    """
    lines = []
    for turn in conv.turns:
        role = "assistant" if turn.speaker == conv.speaker_b and conv.speaker_b != conv.speaker_a else "user"
        if two_people:
            role = "user"
        lines.append(json.dumps({
            "id": turn.dia_id,
            "conversation": f"{conv.conv_id}-s{turn.session}" if two_people else conv.conv_id,
            "role": role,
            "speaker": turn.speaker,
            "content": turn.text,
            "timestamp": turn.timestamp.isoformat().replace("+00:00", "Z"),
        }, ensure_ascii=False))
    return lines


def write_jsonl(conv: LocomoConversation, folder: Path, *, two_people: bool = False) -> Path:
    """Write the conversation as ``<folder>/<conv_id>.jsonl``; returns the file."""
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", conv.conv_id).strip("-.") or "conversation"
    path = folder / f"{safe}.jsonl"
    path.write_text("\n".join(jsonl_lines(conv, two_people=two_people)) + "\n", encoding="utf-8")
    return path


def dia_id_of_key(key: str) -> str | None:
    """The dia_id a turn's message key carries (``id:D3:7`` -> ``D3:7``)."""
    return key[3:] if key.startswith("id:") else None
