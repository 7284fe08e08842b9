"""Caps, gates, confidence, BM25 normalisation and contradiction detection."""

from __future__ import annotations

import pytest
from fakes.reflection import USER, FakeTurns, add_knowledge

from curator.reflection.contradictions import ContradictionDetector, compare
from curator.reflection.gates.quality import (
    Proposal,
    QualityGates,
    apply_caps,
    confidence_for,
    keyword_support,
    parse_ref,
)
from curator.reflection.gates.similarity import normalised_scores
from curator.reflection.knowledge import VaultKnowledgeIndex
from curator.reflection.ports import KnowledgeDoc
from curator.reflection.schemas import BatchOutput, Correction, NewFact, OpenQuestion
from curator.vault.store import DocumentStore


def test_caps_truncate_2_1_2_2() -> None:
    out = BatchOutput(
        new_facts=[NewFact(f"t{i}", f"fact {i}", [1], [], "Facts") for i in range(4)],
        corrections=[Correction("x", f"c{i}", [1], "same") for i in range(3)],
        open_questions=[OpenQuestion(f"q{i}?", [1], "") for i in range(2)],
    )
    cut = apply_caps(out)
    assert (len(out.new_facts), len(out.corrections), len(out.connections), len(out.open_questions)) == (2, 1, 0, 2)
    assert [(r.item, r.gate) for r in cut] == [("new_facts: fact 2", "cap"), ("new_facts: fact 3", "cap"),
                                              ("corrections: c1", "cap"), ("corrections: c2", "cap")]


def test_confidence_by_source_turns(turns: FakeTurns) -> None:
    a, b, c = turns.add(1, "a"), turns.add(2, "b"), turns.add(3, "c")
    approved = turns.add(4, "d", extra={"validation": "APPROVE", "quality": 0.85})
    assert confidence_for([a]) == 0.60
    assert confidence_for([a, b]) == 0.75
    assert confidence_for([a, b, c]) == 0.75
    assert confidence_for([a, b, approved]) == 0.85


def test_keyword_gate_rejects_made_up_facts(turns: FakeTurns) -> None:
    t = turns.add(1, "I work night shifts as a nurse at St. Clair Hospital.")
    assert keyword_support("The user works night shifts as a nurse.", [t], 0.6).passed
    made_up = keyword_support("The user is a professional pilot flying cargo planes.", [t], 0.6)
    assert not made_up.passed and "unsupported" in made_up.reason
    name = keyword_support("The user works night shifts with Zhivago.", [t], 0.6)
    assert not name.passed and name.reason == "names, numbers or dates not in the cited turns: Zhivago"
    assert not keyword_support("The user said it.", [t], 0.6).passed


@pytest.mark.parametrize("raw,expected", [
    ("abc123def456", "abc123def456"),
    ("Facts/maya-nurse--abc123def456.md", "abc123def456"),
    ("../../.ssh/authorized_keys", None),
    ("/etc/passwd", None),
    ("C:\\Windows\\win.ini", None),
    ("fact.md:stream", None),
    ("Facts/file_a.md", None),
    ("%2e%2e%2f", None),
])
def test_references_are_ids_never_paths(raw: str, expected: str | None) -> None:
    assert parse_ref(raw) == expected


def test_related_file_gate_resolves_only_known_knowledge_ids(store: DocumentStore, knowledge: VaultKnowledgeIndex,
                                                              turns: FakeTurns) -> None:
    add_knowledge(store, "abc123def456", "Nurse", "Maya is a nurse.")
    gates = QualityGates(USER, turns, knowledge)
    ok = Proposal("fact", "new_facts", "t", "x", refs={"related_existing": ["Facts/nurse--abc123def456.md"]})
    assert gates.related_file(ok) is None and ok.ref_ids("related_existing") == ["abc123def456"]
    bad = Proposal("fact", "new_facts", "t", "x", refs={"related_existing": ["../../etc/passwd"]})
    rejection = gates.related_file(bad)
    assert rejection is not None and rejection.gate == "related_file" and "not a document id" in rejection.reason
    unknown = Proposal("fact", "new_facts", "t", "x", refs={"related_existing": ["ffffffffffff"]})
    assert "not a Knowledge document" in gates.related_file(unknown).reason  # type: ignore[union-attr]


def test_turn_existence_gate(turns: FakeTurns, knowledge: VaultKnowledgeIndex) -> None:
    turns.add(1, "hello there")
    turns.add(2, "gone", status="removed")
    gates = QualityGates(USER, turns, knowledge)
    assert gates.turn_existence(Proposal("fact", "new_facts", "t", "x", source_turns=[1])) is None
    rej = gates.turn_existence(Proposal("fact", "new_facts", "t", "x", source_turns=[1, 2, 99]))
    assert rej is not None and rej.reason == "turns 2, 99 do not exist"


def test_bm25_normalisation_is_0_to_1() -> None:
    scores = normalised_scores("Maya is a nurse at St Clair", ["Maya is a nurse at St Clair", "The sky is blue", ""])
    assert scores[0] == pytest.approx(1.0)
    assert scores[1] == 0.0 and scores[2] == 0.0


def test_dedup_gate(store: DocumentStore, knowledge: VaultKnowledgeIndex, turns: FakeTurns) -> None:
    add_knowledge(store, "abc123def456", "Nurse", "Maya works night shifts as a nurse at St. Clair Hospital.")
    gates = QualityGates(USER, turns, knowledge)
    dup = Proposal("fact", "new_facts", "t", "Maya works night shifts as a nurse at St. Clair Hospital.")
    rej = gates.dedup(dup)
    assert rej is not None and rej.reason.startswith("already known: similar to abc123def456 (1.00)")
    assert gates.dedup(Proposal("fact", "new_facts", "t", "Maya has a border collie called Pixel.")) is None


def test_drift_guard(turns: FakeTurns, knowledge: VaultKnowledgeIndex) -> None:
    gates = QualityGates(USER, turns, knowledge)
    strong = KnowledgeDoc("abc123def456", "t", "x", confidence=0.95)
    one = Proposal("correction", "corrections", "c", "x", source_turns=[1], resolved={"existing_file": [strong]})
    assert gates.drift_guard(one).gate == "drift_guard"  # type: ignore[union-attr]
    two = Proposal("correction", "corrections", "c", "x", source_turns=[1, 2], resolved={"existing_file": [strong]})
    assert gates.drift_guard(two) is None


@pytest.mark.parametrize("proposed,existing,kind", [
    ("Maya's sister Ana lives in Braga.", "Maya's sister Ana lives in Porto.", "place"),
    ("Maya runs 5 times a week.", "Maya runs 3 times a week.", "number"),
    ("The Lisbon trip is in September.", "The Lisbon trip is in October.", "date"),
    ("Maya's dog is called Pixel.", "Maya's dog is called Rex.", "name"),
    ("Maya does not eat meat.", "Maya eats meat.", "negation"),
])
def test_contradictions_detected(proposed: str, existing: str, kind: str) -> None:
    found = compare(proposed, existing)
    assert found is not None and found[0] == (kind,)


@pytest.mark.parametrize("proposed,existing", [
    ("Maya has a dog called Pixel.", "Maya has a dog."),  # added detail, not a disagreement
    ("Maya's sister Ana lives in Braga.", "Maya is learning Portuguese."),  # other subject
    ("Maya runs 3 times a week.", "Maya runs 3 times a week."),
])
def test_non_contradictions(proposed: str, existing: str) -> None:
    assert compare(proposed, existing) is None


def test_detector_picks_the_conflicting_document() -> None:
    docs = [KnowledgeDoc("aaaaaaaaaaaa", "x", "Maya is learning Portuguese."),
            KnowledgeDoc("bbbbbbbbbbbb", "y", "Maya's sister Ana lives in Porto.")]
    conflict = ContradictionDetector().find("Maya's sister Ana lives in Braga.", docs)
    assert conflict is not None and conflict.existing.doc_id == "bbbbbbbbbbbb"
    assert conflict.details == ("place: porto -> braga",)


def test_model_confirmation_speaks_the_bundled_prompts_language() -> None:
    from fakes.reflection import ScriptedModel

    from curator.reflection.contradictions import ModelConfirmer
    from curator.reflection.prompts import load_prompt

    model = ScriptedModel([{"verdict": "contradict", "reason": "two different cities"},
                           {"verdict": "compatible", "reason": "both can be true"}, "not json"])
    confirmer = ModelConfirmer(model)
    assert confirmer.confirm("Ana lives in Braga.", "Ana lives in Porto.", "Sister Ana") == (
        True,
        "two different cities",
    )
    assert confirmer.confirm("Ana likes Braga.", "Ana lives in Porto.") == (False, "both can be true")
    verdict, reason = confirmer.confirm("x", "y")
    assert verdict is None and "unavailable" in reason
    # the variables the confirmer sends fill exactly the bundled prompt's placeholders
    load_prompt("contradiction_check").request(model.calls[0]["variables"])
    assert model.calls[0]["variables"]["subject"] == "Sister Ana"
