"""Paragraphs, list items and pasted letters of a turn (curator.reflection.layout)."""

from __future__ import annotations

from curator.reflection.layout import blocks, without_letters


def test_list_items_and_paragraphs_are_blocks_of_their_own() -> None:
    text = "Te dejo lo importante:\n- soy celíaca\n- trabajo de 9 a 6\n  en Valencia\n\nGracias.\n2) no oven"
    assert blocks(text) == ["Te dejo lo importante:", "soy celíaca", "trabajo de 9 a 6\n  en Valencia",
                            "Gracias.", "no oven"]
    # A line wrapped inside a paragraph stays with it; an emote's star is no bullet.
    assert blocks("I work nights\nas a nurse in Leeds") == ["I work nights\nas a nurse in Leeds"]
    assert blocks("*smiles*\nI moved to Leeds") == ["*smiles*\nI moved to Leeds"]
    assert blocks("one line") == ["one line"] and blocks("  ") == []


def test_a_pasted_letter_is_left_out_from_its_salutation_to_its_signature() -> None:
    text = ("Can you fix this letter?\nDear Mr. Smith,\nI am writing to inform you that my son will be absent.\n"
            "Kind regards,\nMaya Chen\nAlso I'm a nurse.")
    assert without_letters(text) == "Can you fix this letter?\nAlso I'm a nurse."
    # No closing formula: the letter runs to the end. No salutation alone on its line: nothing is a letter.
    assert without_letters("Fix please:\nEstimado señor García:\nLe escribo porque ...") == "Fix please:"
    assert without_letters("Dear diary, I moved to Leeds today.") == "Dear diary, I moved to Leeds today."
    assert without_letters("Hi!\nI moved to Leeds") == "Hi!\nI moved to Leeds"
