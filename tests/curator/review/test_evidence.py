"""curator.review.evidence: the words of a turn that support an item."""

from __future__ import annotations

from curator.review.evidence import Highlight, highlights, quote_span, support, word_highlights


def _words(text: str, spans: list[Highlight]) -> list[str]:
    return [text[h.start : h.end] for h in spans]


def test_word_highlights_match_content_stems() -> None:
    text = "I finally adopted two cats last spring, and the cats love Berlin."
    spans = word_highlights("The user adopted a cat in Berlin", text)
    assert _words(text, spans) == ["adopted", "cats", "cats", "Berlin"]
    assert all(h.kind == "word" for h in spans)


def test_stop_words_and_short_tokens_never_highlight() -> None:
    text = "it is a I the and of"
    assert word_highlights("it is a I the and of", text) == []
    assert word_highlights("", "anything at all") == []


def test_quote_span_tolerates_case_spacing_and_punctuation() -> None:
    text = "Well -- I moved to   Lisbon, last year!"
    found = quote_span("moved to lisbon last year", text)
    assert found is not None
    assert text[found.start : found.end] == "moved to   Lisbon, last year"
    assert quote_span("moved to Porto", text) is None
    assert quote_span("", text) is None


def test_highlights_sorted_with_quote_first_at_same_start() -> None:
    text = "I moved to Lisbon."
    spans = highlights("moved Lisbon", text, quote="moved to Lisbon")
    assert spans[0] == Highlight(2, 17, "quote")
    assert [s.kind for s in spans] == ["quote", "word", "word"]


def test_support_reports_missing_words() -> None:
    result = support("User owns a red bicycle", ["I ride my red bicycle", "It is old"])
    assert set(result.supported) == {"red", "bicycle"}
    assert set(result.unsupported) == {"user", "owns"}
    assert result.ratio == 0.5
    assert support("the and of", ["x"]).ratio == 0.0


def test_the_languages_word_for_an_unnamed_person_is_not_counted_against_the_turn() -> None:
    """A capable model words a Chinese chat that names no one as "用户…": the gates take 用户 as
    the person, and the card must not say half of it is missing."""
    assert support("用户对海鲜过敏，不能吃虾。", ["我对海鲜过敏，不能吃虾。"]).ratio == 1.0
    german = support("Die Person arbeitet als Busfahrer in Bremen.", ["Ich arbeite als Busfahrer in Bremen."])
    assert "person" not in german.unsupported
    assert support("The user works in Bremen.", ["I work in Hamburg."]).unsupported  # still a real check


def test_a_memory_in_another_language_is_counted_by_its_claims_not_its_grammar() -> None:
    """A German memory the gates passed read 79 %: "die", "ist", "hat" and the retold verb
    counted as words the turn does not hold. Only the claims count, and a wrong one still shows."""
    german = support("Die Person ist Grundschullehrerin in Dresden und hat eine dritte Klasse mit 26 Kindern.",
                     ["Ich bin Grundschullehrerin in Dresden und habe eine dritte Klasse mit 26 Kindern."])
    assert german.ratio == 1.0 and "die" not in german.supported
    spanish = support("La persona vive en Sevilla con su hermana.", ["Vivo en Sevilla con mi hermana."])
    assert spanish.ratio == 1.0
    russian = support("Пользователь живёт в Казани с сестрой и её котом.", ["Я живу в Казани с сестрой и её котом."])
    assert russian.ratio == 1.0
    wrong = support("Die Person arbeitet als Busfahrer in Hamburg.", ["Ich arbeite als Busfahrer in Bremen."])
    assert wrong.unsupported == ("hamburg",)
    added = support("Die Person ist seit März schwanger und daher erschöpft.", ["Ich bin seit März schwanger."])
    assert set(added.unsupported) == {"daher", "erschöpft"}
