"""A correction that swaps one value carries the swap into the memory's title and keywords
(the approved German memory read "freitags" in its text and "dienstags" in its title)."""

from __future__ import annotations

from curator.review.applying import swapped_labels
from curator.vault.documents import Document


def _doc(title: str, keywords: list[str]) -> Document:
    return Document.new(doc_id="a474c6acf252", kind="fact", title=title, body="x\n", keywords=keywords)


def test_one_swapped_value_follows_into_title_and_keywords() -> None:
    doc = _doc("Mein Sohn Jonas hat dienstags Klavierunterricht", ["jonas", "dienstags", "klavierunterricht"])
    labels = swapped_labels(doc, 'The user said: "Mein Sohn Jonas hat dienstags Klavierunterricht."',
                            'The user said: "Mein Sohn Jonas hat freitags Klavierunterricht."')
    assert labels == {"title": "Mein Sohn Jonas hat freitags Klavierunterricht",
                      "keywords": ["jonas", "freitags", "klavierunterricht"]}


def test_a_rewritten_memory_leaves_its_labels_to_the_person() -> None:
    doc = _doc("Trip to Lisbon in October", ["lisbon", "october"])
    assert swapped_labels(doc, "Maya travels to Lisbon in October.", "Maya moved the trip; it is off.") == {}
    assert swapped_labels(doc, "Maya travels to Lisbon in October.", "Maya travels to Lisbon in October.") == {}
