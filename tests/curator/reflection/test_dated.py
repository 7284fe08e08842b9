"""Facts of the moment are marked as dated (issue 20): the card says which days "next week"
meant, and an approved one is asked about again once that time is over."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from pathlib import Path

import pytest
from fakes.reflection import USER, FakeTurns, ScriptedModel

from curator.clock import ManualClock, parse_iso
from curator.engine import Engine
from curator.reflection.dated import described, moment_ends, moment_of
from curator.reflection.knowledge import VaultKnowledgeIndex
from curator.reflection.micro import MicroReflector, entries_from_turns
from curator.vault.documents import Document
from curator.vault.settings import Settings

FRIDAY = datetime(2026, 11, 27, 15, 30).timestamp()  # local time, as a client stamps a turn


@pytest.mark.parametrize(("text", "first", "last"), [
    ("Maya is working nights next week.", date(2026, 11, 30), date(2026, 12, 6)),
    ("Tomorrow Maya has a dentist appointment at 9.", date(2026, 11, 28), date(2026, 11, 28)),
    ("Maya is going camping this weekend.", date(2026, 11, 28), date(2026, 11, 29)),
    ("Maya is moving to Braga next month.", date(2026, 12, 1), date(2026, 12, 31)),
    ("Maya went camping last week.", date(2026, 11, 16), date(2026, 11, 22)),
    ('The user said: "La settimana prossima lavoro di notte."', date(2026, 11, 30), date(2026, 12, 6)),
    ('The user said: "Nächste Woche arbeite ich nachts."', date(2026, 11, 30), date(2026, 12, 6)),
    ('The user said: "Ce soir je vais au cinéma avec ma sœur."', date(2026, 11, 27), date(2026, 11, 27)),
])
def test_a_relative_time_means_the_days_of_when_it_was_said(text: str, first: date, last: date) -> None:
    moment = moment_of(text, FRIDAY)
    assert moment is not None and (moment.first, moment.last) == (first, last)
    assert moment.said_on == date(2026, 11, 27)


@pytest.mark.parametrize(("text", "day"), [
    # A week's plan names bare weekdays: each is the next such day (it was left undated).
    ("Monday the user has a dentist appt at 9, tuesday is their sister's birthday dinner.", date(2026, 11, 30)),
    ("Next Tuesday the user flies to Rome.", date(2026, 12, 1)),
    ("The user has a job interview on Friday.", date(2026, 11, 27)),  # said on a Friday: today
    # Told of the past, it is the last such day.
    ("On Monday the user went to the dentist and had a filling.", date(2026, 11, 23)),
    ("The user finally finished the report on Tuesday.", date(2026, 11, 24)),
    ("Last Friday the user quit their job.", date(2026, 11, 20)),
    # Other languages: only a weekday said with "next" or "last" (the tense is not read there).
    ('The user said: "Nächsten Montag habe ich ein Vorstellungsgespräch."', date(2026, 11, 30)),
    ('The user said: "Lundi dernier j\'ai commencé un nouveau travail."', date(2026, 11, 23)),
    ('The user said: "El próximo jueves empiezo en el hospital."', date(2026, 12, 3)),
    ('The user said: "Volgende maandag begin ik bij een nieuwe baan."', date(2026, 11, 30)),
])
def test_a_weekday_of_a_plan_or_of_the_past_is_one_day(text: str, day: date) -> None:
    moment = moment_of(text, FRIDAY)
    assert moment is not None and moment.first == moment.last == day, moment
    assert moment.passed == (day < date(2026, 11, 27))


@pytest.mark.parametrize("text", ["The user swims every Monday at the local pool.", "The user swims on Mondays.",
                                  "Friday's meeting is always long.",
                                  'The user said: "Ich arbeite jeden Montag im Café."'])
def test_a_weekday_of_a_routine_is_not_dated(text: str) -> None:
    assert moment_of(text, FRIDAY) is None


def test_a_month_after_december_is_january() -> None:
    moment = moment_of("Maya starts a new job next month.", datetime(2026, 12, 14, 9, 0).timestamp())
    assert moment is not None and (moment.first, moment.last) == (date(2027, 1, 1), date(2027, 1, 31))


@pytest.mark.parametrize("text", ["Maya works mornings.", "Maya runs on weekends.",
                                  "Maya has lived in Porto for years.",
                                  'The user said: "Dreimal pro Woche laufe ich morgens."'])
def test_a_lasting_fact_is_not_dated(text: str) -> None:
    assert moment_of(text, FRIDAY) is None


def test_the_card_line_and_when_an_approved_moment_is_over() -> None:
    moment = moment_of("Maya is working nights next week.", FRIDAY)
    assert moment is not None
    line = described(moment.as_fields())
    assert line.startswith("Said on Fri 27 Nov 2026: “next week” is 30 Nov – 6 Dec 2026.")
    assert "Still true?" in line
    same_month = moment_of("Maya is working nights next week.", datetime(2026, 11, 18, 9, 0).timestamp())
    assert same_month is not None and "“next week” is 23–29 Nov 2026." in same_month.describe()
    assert moment_ends(moment.as_fields()) == datetime(2026, 12, 7, 0, 0).timestamp()
    past = moment_of("Maya went camping last week.", FRIDAY)
    assert past is not None and moment_ends(past.as_fields()) is None  # already over when said
    assert "Still true?" not in described(past.as_fields())
    assert described({"phrase": "next week"}) == "" and described(None) == ""  # a field it cannot read
    # Read after the week is over, the card says so instead of promising a later question.
    late = described(moment.as_fields(), datetime(2026, 12, 9, 10, 0).timestamp())
    assert late.endswith("That time is over: approve it only if it still says something lasting.")


def test_a_staged_moment_is_dated_and_approved_it_is_asked_about_once_it_is_over(tmp_path: Path) -> None:
    clock = ManualClock(FRIDAY + 600)
    engine = Engine(tmp_path / "vault", clock=clock, triggers=False)
    try:
        turns = FakeTurns()
        turns.add(1, "I'm working nights at the hospital next week because of the inventory.")
        turns.add(2, "I have been a vegetarian for six years.")
        turns.turns = {n: replace(t, timestamp=FRIDAY) for n, t in turns.turns.items()}  # said on that Friday
        micro = MicroReflector(engine.paths, engine.store, VaultKnowledgeIndex(engine.store), ScriptedModel([
            {"keep": [{"number": 1, "category": "Facts"}, {"number": 2, "category": "Facts"}]}]), Settings(),
            clock=clock, writer="choose")
        result = micro.run(USER, entries_from_turns(list(turns.turns.values())))
        assert result.status == "completed", result.error
        docs = {s.doc_id: Document.load(engine.paths.user(USER).root / s.path) for s in result.staged}
        nights = next(d for d in docs.values() if "nights" in d.body)
        vegetarian = next(d for d in docs.values() if "vegetarian" in d.body)
        assert nights.get("dated")["first"] == "2026-11-30" and nights.get("dated")["last"] == "2026-12-06"
        assert vegetarian.get("dated") is None
        review = engine.review
        for doc_id in docs:
            review.approve(USER, doc_id, review.show(USER, doc_id).item.content_hash)
        approved = {Document.load(p).id: Document.load(p) for p in engine.store.iter_paths(USER, "knowledge")}
        assert parse_iso(str(approved[nights.id].get("expires_at"))) == datetime(2026, 12, 7).timestamp()
        later = parse_iso(str(approved[vegetarian.id].get("expires_at")))
        assert later is not None and later > datetime(2027, 2, 1).timestamp()  # the usual 90 days
    finally:
        engine.close()
