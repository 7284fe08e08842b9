"""Item 8 of issue 11: property-based round trips (hypothesis) of what the curator writes and reads.

Bounded by example count (never by time), with a fixed seed so CI runs are repeatable.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from curator.sources.adapters import get_adapter
from curator.sources.validation import turn_problem, unique_keys
from curator.vault.documents import Document
from curator.vault.settings import OPTIONS, Settings, SourceConfig, load_settings, save_settings

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Any text a person or a model could produce: every plane, controls, bidi and zero-width
# characters, lone line breaks; only surrogates (which UTF-8 cannot hold) are left out.
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)
LINE = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=80)


@seed(11)
@EXAMPLES
@given(title=LINE, body=TEXT, topic=LINE, keywords=st.lists(LINE, max_size=4))
def test_frontmatter_round_trip_keeps_every_field(title, body, topic, keywords):
    doc = Document.new(doc_id="abc123def456", kind="fact", title=title, body=body, primary_topic=topic,
                       keywords=keywords, source_turns=[1, 2], confidence=0.5)
    with tempfile.TemporaryDirectory() as tmp:
        path = doc.save(Path(tmp) / "doc.md")
        again = Document.load(path)
        assert again.id == doc.id and again.title == doc.title
        assert again.get("primary_topic") == topic and again.keywords == doc.keywords
        assert again.body.strip() == doc.body.strip()
        assert set(again.meta) == set(doc.meta)  # nothing in a value becomes a new key
        assert Document.load(again.save()).to_text() == again.to_text()  # a second trip changes nothing


def _option_value(option):
    if option.type is bool:
        return st.booleans()
    if option.choices:
        return st.sampled_from(option.choices)
    if option.type is int:
        low = int(option.minimum) if option.minimum is not None else -1000
        high = int(option.maximum) if option.maximum is not None else 10**6
        return st.integers(low, high)
    if option.type is float:
        low = option.minimum if option.minimum is not None else -1000.0
        high = option.maximum if option.maximum is not None else 1e6
        return st.floats(low, high, allow_nan=False, allow_infinity=False)
    return LINE


@st.composite
def any_settings(draw):
    values = {o.key: draw(_option_value(o)) for o in OPTIONS if draw(st.booleans())}
    sources = draw(st.lists(st.builds(SourceConfig, path=LINE.filter(bool), adapter=st.sampled_from(["jsonl"]),
                                      user_id=st.sampled_from(["default", "ana"]),
                                      id=st.from_regex(r"[a-z]{3,8}", fullmatch=True),
                                      enabled=st.booleans()), max_size=3))
    result = Settings()
    for key, value in values.items():
        result.set(key, value)
    result.sources = sources
    return result


@seed(12)
@EXAMPLES
@given(original=any_settings())
def test_settings_round_trip(original):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "curator.yaml"
        save_settings(path, original)
        save_settings(path, original)  # the second save keeps the first as the last good copy
        loaded, warnings = load_settings(path)
        assert loaded.to_dict() == original.to_dict()
        assert not [w for w in warnings if "could not be read" in w]
        path.write_bytes(b"")  # and a file emptied after that falls back to it
        fallback, warnings = load_settings(path)
        assert fallback.to_dict() == original.to_dict() and warnings


MESSAGE = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant", "system"]),
    "content": TEXT,
    "id": st.one_of(st.none(), st.sampled_from(["a", "b", "c"]), st.text(min_size=1, max_size=5)),
    "timestamp": st.one_of(st.integers(0, 4_000_000_000), st.floats(allow_nan=True, allow_infinity=True),
                           st.sampled_from(["NaN", "2026-01-02T03:04:05Z", "garbage", None])),
})


@seed(13)
@EXAMPLES
@given(messages=st.lists(MESSAGE, max_size=12))
def test_jsonl_adapter_keeps_every_good_message_and_says_why_for_the_rest(messages):
    adapter = get_adapter("jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        unit = root / "chat.jsonl"
        unit.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
        result = adapter.read(root, unit, "src", None)
    turns, renamed = unique_keys([t for t in result.turns if turn_problem(t) is None])
    keys = [(t.conversation, t.key) for t in turns]
    assert len(keys) == len(set(keys))  # a repeated id never merges two messages
    with_text = [m for m in messages if m["content"].strip()]
    # Every message with text is a turn (maybe refused later with a reason); none is lost silently.
    assert len(result.turns) + len(result.problems) >= len(with_text)
    assert [t.text for t in result.turns] == [t.text for t in result.turns if t.text.strip()]
    assert renamed == len(result.turns) - len({(t.conversation, t.key) for t in result.turns}) or renamed >= 0
