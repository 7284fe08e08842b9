"""The reflection-quality judge (exact) and the suite itself on a tiny slice (real model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.bench.observations import (
    Candidate,
    Observation,
    SourceMessage,
    first_person_baseline,
    made_up_words,
    matches,
    score,
    third_person,
)

MESSAGES = {
    "D1:1": SourceMessage("D1:1", "Rosa", "I adopted a grey cat called Biscuit last May. Do you like cats?", "1"),
    "D1:2": SourceMessage("D1:2", "Omar", "I love cats! My sister has 2 of them in Leeds.", "1"),
}
GOLD = [
    Observation("Rosa", "Rosa adopted a grey cat called Biscuit in May.", ("D1:1",), "1"),
    Observation("Omar", "Omar's sister has two cats in Leeds.", ("D1:2",), "1"),
]


def test_a_match_needs_the_cited_message_and_half_the_words() -> None:
    good = Candidate("Rosa adopted Biscuit, a grey cat.", ("D1:1",))
    assert matches(GOLD[0], good)
    assert not matches(GOLD[0], Candidate("Rosa adopted Biscuit, a grey cat.", ("D1:2",)))
    assert not matches(GOLD[0], Candidate("Rosa likes animals.", ("D1:1",)))


def test_made_up_names_numbers_and_dates_are_found_at_the_start_of_a_sentence_too() -> None:
    assert made_up_words(Candidate("Rosa adopted Biscuit last May.", ("D1:1",)), MESSAGES) == []
    assert made_up_words(Candidate("Rafael adopted a cat.", ("D1:1",)), MESSAGES) == ["Rafael"]
    assert made_up_words(Candidate("Omar's sister has 3 cats in Leeds.", ("D1:2",)), MESSAGES) == ["3"]
    assert made_up_words(Candidate("Rosa adopted a cat in June.", ("D1:1",)), MESSAGES) == ["June"]
    # A name that only another turn holds is made up for this item.
    assert made_up_words(Candidate("Omar adopted Biscuit.", ("D1:1",)), MESSAGES) == ["Omar"]
    assert made_up_words(Candidate("A cat.", ()), MESSAGES) == ["<cites no message of the conversation>"]
    # A title that opens with the turn's own verb ("Loves cats" of "I love cats") names no one.
    assert made_up_words(Candidate("Loves cats. Omar loves cats.", ("D1:2",)), MESSAGES) == []
    assert made_up_words(Candidate("Adores cats. Omar adores cats.", ("D1:2",)), MESSAGES) == ["Adores"]


def test_the_baseline_retells_first_person_statements_and_skips_questions() -> None:
    assert third_person("I'm learning to knit and my sister helps me.", "Rosa") == \
        "Rosa is learning to knit and Rosa's sister helps Rosa."
    items = first_person_baseline(MESSAGES.values(), {"Rosa", "Omar"})
    assert [c.text for c in items] == [
        "Rosa adopted a grey cat called Biscuit last May.",
        "Omar love cats!",
        "Omar's sister has 2 of them in Leeds.",
    ]
    assert items[0].cited == ("D1:1",)


def test_scores() -> None:
    candidates = [Candidate("Rosa adopted a grey cat called Biscuit.", ("D1:1",)),
                  Candidate("Rafael owns a cat.", ("D1:1",))]
    result = score(GOLD, candidates, MESSAGES)
    assert (result.observations_matched, result.items_matched, result.items_made_up) == (1, 1, 1)
    assert result.recall == 0.5 and result.precision == 0.5 and result.made_up_rate == 0.5
    assert result.f1 == pytest.approx(0.5)


def _tiny_locomo(folder: Path) -> None:
    """One LoCoMo-shaped conversation of one short session, written here (never from shared/)."""
    turns = [
        ("Rosa", "D1:1", "Hi Omar! I adopted a grey cat called Biscuit last week."),
        ("Omar", "D1:2", "That's lovely! I started working as a baker in Leeds this month."),
        ("Rosa", "D1:3", "Congrats! I work as a librarian, so I love quiet evenings with Biscuit."),
        ("Omar", "D1:4", "I get up at four every morning for the bakery."),
    ]
    record = {
        "speaker_a": "Rosa", "speaker_b": "Omar",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": s, "dia_id": d, "text": t} for s, d, t in turns],
        "session_1_observation": {
            "Rosa": [["Rosa adopted a grey cat called Biscuit.", "D1:1"], ["Rosa works as a librarian.", "D1:3"]],
            "Omar": [["Omar works as a baker in Leeds.", "D1:2"]],
        },
        "qa": [],
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.json").write_text(json.dumps(record), encoding="utf-8")


@pytest.mark.llm
@pytest.mark.slow
def test_the_suite_runs_end_to_end_on_a_tiny_slice(tmp_path: Path) -> None:
    from curator.bench.runner import run_bench

    _tiny_locomo(tmp_path / "data")
    outcomes, _meta = run_bench(data=str(tmp_path / "data"), quick=True, suites=["reflection-quality"],
                               verbose=False, workdir=tmp_path / "work")
    (outcome,) = outcomes
    assert not outcome.error, outcome.details.get("traceback")
    cases = {c["case"]: c for c in outcome.details["cases"]}
    assert set(cases) == {"demo", "locomo tiny"}
    assert cases["locomo tiny"]["sessions"] == 1
    assert cases["demo"]["baseline"]["observations"] == 15
    assert cases["locomo tiny"]["baseline"]["observations"] == 3
    names = {f.name for f in outcome.figures}
    for label in ("demo", "locomo tiny"):
        for figure in ("observation recall", "precision", "F1", "made-up rate", "seconds per session"):
            assert f"{figure}, {label}" in names
    for case in cases.values():  # every staged item is judged, with the messages it cites
        assert case["pipeline"]["items"] == len(case["staged"])
