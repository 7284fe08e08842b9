"""The one gate chain (curator.reflection.gates.chain) that batch, micro, summary and cycle share."""

from __future__ import annotations

from fakes.reflection import FakeTurns

from curator.reflection.gates.chain import (
    Evidence,
    check_item,
    form_problems,
    same_quote,
    unsupported_words,
)


def test_a_made_up_name_at_the_start_of_a_sentence_fails(turns: FakeTurns) -> None:
    t = turns.add(4, "I grow tomatoes and basil on my balcony.")
    verdict = check_item("Rafael grows tomatoes and basil on the balcony.", [t])
    assert not verdict.passed and verdict.gate == "names" and verdict.failing_words == ("Rafael",)
    assert check_item("Maya grows tomatoes and basil on the balcony.", [t]).passed  # the speaker


def test_numbers_dates_and_places_must_occur(turns: FakeTurns) -> None:
    t = turns.add(1, "My flight to Lisbon is on 14 March, I run 10k on Sundays.")
    assert check_item("Maya has a flight to Lisbon on 14 March.", [t]).passed
    assert check_item("Maya has a flight to Porto on 14 March.", [t]).failing_words == ("Porto",)
    assert check_item("Maya has a flight to Lisbon on 15 March.", [t]).failing_words == ("15",)
    assert check_item("Maya runs twenty kilometres on Sundays.", [t]).failing_words == ("twenty",)
    assert check_item("On Sundays Maya runs 10k.", [t]).passed


def test_each_quote_is_checked_in_its_own_turn(turns: FakeTurns) -> None:
    a = turns.add(1, "I walk Pixel every morning.")
    b = turns.add(2, "Tom walks him in the evening.", speaker="Maya")
    text = "Maya walks Pixel every morning, and Tom walks him in the evening."
    ok = check_item(
        text,
        [a, b],
        [Evidence(1, "I walk Pixel every morning"), Evidence(2, "Tom walks him in the evening.")],
    )
    assert ok.passed and ok.gates == ("form", "evidence", "names", "support")
    crossed = check_item(text, [a, b], [Evidence(2, "I walk Pixel every morning")])
    assert not crossed.passed and crossed.gate == "evidence"


def test_broken_words_stray_json_and_markup_fail(turns: FakeTurns) -> None:
    t = turns.add(1, "Deborah comes to sit here sometimes, it helps me stay connected. I want to expand.")
    for text in ("Deborah comes to sit here sometimes, it helps me stayConn-a-",
                 "Maya wants to expand. },", 'Maya wants {"expand": 1}', "Maya wants to <b>expand</b>.",
                 "Maya wants to expand\u200b.", "Maya wants to expand. `code`"):
        verdict = check_item(text, [t])
        assert not verdict.passed and verdict.gate == "form", text
    assert form_problems("Maya's dog, Pixel, is 3 years old (a rescue).") == []
    # Two hyphens between words are a dash, not a word cut off.
    assert form_problems("Exciting things are happening--John is exploring endorsement deals.") == []


def test_prompt_placeholders_cannot_pass(turns: FakeTurns) -> None:
    t = turns.add(1, "I like tea.")
    assert check_item("<NAME> likes tea.", [t]).gate == "form"


def test_unsupported_words_mark_what_a_summary_made_up(turns: FakeTurns) -> None:
    t = turns.add(1, "We talked about my trip to Lisbon in May.")
    assert unsupported_words("Maya plans a trip to Milan in May with a Pomodoro timer.", [t]) == \
        ["plans", "Milan", "Pomodoro", "timer"]


def test_two_items_from_the_same_quote_are_one() -> None:
    assert same_quote("I walk Pixel every morning.", "i walk  pixel every morning")
    assert not same_quote("I walk Pixel.", "I feed Pixel.")


def test_repeated_sentences_are_tidied_and_then_rejected(turns: FakeTurns) -> None:
    from curator.reflection.gates.chain import tidy

    t = turns.add(1, "I want to get organised before winter.")
    looping = "Maya wants to get organised before winter. Maya wants to get organised before winter. Maya wants to be"
    assert tidy(looping) == "Maya wants to get organised before winter."
    assert check_item(looping, [t]).gate == "form"


def test_a_quotation_holds_only_words_the_turn_has(turns: FakeTurns) -> None:
    """'The user said: "..."' claims the person's own words: a rewritten word in it is made up."""
    t = turns.add(1, "Pues mira, estoy aprendiendo alemán porque en marzo me mudo a Múnich, jaja.", speaker="user")
    garbled = check_item('The user said: "Estoy aprendiendo alemán porque en marzo the user mudo a Múnich."', [t])
    assert not garbled.passed and garbled.gate == "quoted"
    # The person's words without the chatter code leaves out are still theirs.
    kept = check_item('The user said: "Estoy aprendiendo alemán porque en marzo me mudo a Múnich."', [t])
    assert kept.passed and "quoted" in kept.gates


def test_a_summary_of_quotations_is_checked_quotation_by_quotation(turns: FakeTurns) -> None:
    a = turns.add(1, "Eu moro em Curitiba e trabalho como enfermeira num hospital público.", speaker="user")
    b = turns.add(2, "Tenho plantão na segunda e na quarta à noite.", speaker="user")
    summary = ('The user said: "Eu moro em Curitiba e trabalho como enfermeira num hospital público." '
               'The user said: "Tenho plantão na segunda e na quarta à noite."')
    assert check_item(summary, [a, b], threshold=0).passed
    changed = summary.replace("na quarta", "na quinta")
    verdict = check_item(changed, [a, b], threshold=0)
    assert not verdict.passed and verdict.gate == "quoted"
