"""A correction's new text: the superseded value never survives into the approved memory."""

from __future__ import annotations

import pytest

from curator.reflection.corrected import corrected_text


@pytest.mark.parametrize(("old", "correction", "expected"), [
    # The one value the correction denies is swapped for the one it brings; the rest stays.
    ("Maya is learning Portuguese because her sister Ana and Maya are going to Lisbon in October.",
     "The Lisbon trip is in September, not October.",
     "Maya is learning Portuguese because her sister Ana and Maya are going to Lisbon in September."),
    ("Maya's sister Ana lives in Porto.",
     "Ana just texted, she moved to Braga last spring, she doesn't live in Porto any more.",
     "Maya's sister Ana lives in Braga."),
    ("The user works 3 night shifts a week.", "The user now works 4 night shifts a week, not 3.",
     "The user works 4 night shifts a week."),
    # Other languages, with no name for the person (the words are the person's own).
    ('The user said: "Meine Schwester wohnt in Porto."',
     'The user said: "Meine Schwester wohnt nicht mehr in Porto, sondern in Braga."',
     'The user said: "Meine Schwester wohnt in Braga."'),
    ('The user said: "Ich arbeite als Krankenschwester in Köln."',
     'The user said: "Ich arbeite nicht mehr als Krankenschwester, jetzt als Lehrerin."',
     'The user said: "Ich arbeite als Lehrerin in Köln."'),
    ('The user said: "Mi hermana vive en Oporto."',
     'The user said: "Mi hermana ya no vive en Oporto, ahora vive en Braga."',
     'The user said: "Mi hermana vive en Braga."'),
    ('The user said: "Ma sœur habite à Porto."',
     'The user said: "Ma sœur n\'habite plus à Porto, elle habite à Braga."',
     'The user said: "Ma sœur habite à Braga."'),
    ('The user said: "Моя сестра живёт в Москве."',
     'The user said: "Моя сестра больше не живёт в Москве, теперь в Казани."',
     'The user said: "Моя сестра живёт в Казани."'),
])
def test_the_denied_value_is_swapped(old: str, correction: str, expected: str) -> None:
    assert corrected_text(old, correction) == expected


@pytest.mark.parametrize(("old", "correction"), [
    ("The user has a dog called Rex.", "The user said the dog died last year."),  # nothing denied
    ("Sam lives in Porto with Ana.", "Sam doesn't live in Porto or with Ana any more."),  # two denied
    ("Sam lives in Porto.", "Sam does not live in Porto, maybe in Braga or Lisbon next."),  # two new values
    ("Sam's flight is on Monday.", "The flight is not on Monday but at 9."),  # a date for a number
    ('The user said: "我住在上海。"', 'The user said: "我不住在上海了，现在住在北京。"'),  # no spaces
])
def test_otherwise_the_correction_stands_alone(old: str, correction: str) -> None:
    assert corrected_text(old, correction) == correction
