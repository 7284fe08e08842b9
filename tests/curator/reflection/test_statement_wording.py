"""Code's wording of a statement: catching up is left out of the memory, not out of the quote."""

from __future__ import annotations

from fakes.reflection import FakeTurns

from curator.reflection.statements import statements


def test_catching_up_is_not_the_memory(turns: FakeTurns) -> None:
    turns.add(1, "Been a few days since we chatted. In the meantime, I donated my old car to a homeless "
                 "shelter I volunteer at. It was really rewarding.", speaker="Maria")
    [found] = statements(turns.turns.values())
    assert found.memory == ("Maria donated their old car to a homeless shelter they volunteer at. "
                            "It was really rewarding.")
    assert found.title == "Donated their old car to a homeless shelter"
    # The evidence is still every word the person wrote.
    assert found.quote.startswith("Been a few days since we chatted.") and found.quote.endswith("rewarding.")


def test_a_group_of_nothing_but_catching_up_keeps_its_words(turns: FakeTurns) -> None:
    turns.add(1, "It's been ages since we talked, and I moved to Lisbon in May with my two cats.", speaker="Ana")
    [found] = statements(turns.turns.values())
    assert found.memory.startswith("It's been ages since we talked, and Ana moved to Lisbon in May")


def test_a_memory_names_the_person_once_across_its_sentences(turns: FakeTurns) -> None:
    """Issue 20: "Caroline's goal ... Caroline is grateful ... Caroline's dream" needed an edit."""
    turns.add(1, "My goal is to adopt and give kids a loving home. I'm truly grateful for the support "
                 "I've got from my mentors.", speaker="Caroline")
    [found] = statements(turns.turns.values())
    assert found.memory == ("Caroline's goal is to adopt and give kids a loving home. They're truly grateful "
                            "for the support they've got from their mentors.")


def test_the_name_stays_when_they_already_means_others(turns: FakeTurns) -> None:
    turns.add(1, "My friends have been there through everything since I moved from Sweden. They know me "
                 "so well and I trust them with anything.", speaker="Caroline")
    [found] = statements(turns.turns.values())
    assert found.memory == ("Caroline's friends have been there through everything since Caroline moved from "
                            "Sweden. They know Caroline so well and Caroline trusts them with anything.")
