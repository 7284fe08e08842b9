"""Issue 20's wording figure: checks of form a proposal must pass to be approved as it stands."""

from __future__ import annotations

import pytest

from curator.bench.wording import approvable_share, problems


@pytest.mark.parametrize(("text", "problem"), [
    ("There were so many great bands! If Dave had to pick a favorite, it would definitely be Aerosmith. "
     "Their performance was incredible.", "opens with 'There'"),
    ("It's a great stress-buster.", "opens with \"It's\""),
    ("Calvin is on cloud nine! Hard work pays off.", "exclaims"),
    ("For Audrey, taking Audrey's dogs for a walk in the park helps Audrey find Audrey's center.",
     "says Audrey 4 times"),
    ("Maya runs. Maya swims. Maya cycles on Sundays.", "3 sentences"),
    ("I keep bees on the roof of my flat.", "keeps the first person"),
    ("Does Maya still work nights?", "asks"),
])
def test_each_check_names_what_a_person_would_edit(text: str, problem: str) -> None:
    assert problem in problems(text)


@pytest.mark.parametrize("text", [
    "Maya works night shifts as a nurse at St. Clair Hospital.",
    "Dave's favourite band is Aerosmith.",
    'The user said: "Ich arbeite seit drei Jahren als Krankenschwester."',  # the person's words, kept on purpose
    "Melanie carves out some me-time each day.",  # a noun, not the chat's "me"
])
def test_a_plain_lasting_statement_passes(text: str) -> None:
    assert problems(text) == []


def test_the_share_counts_clean_proposals() -> None:
    share, count, kinds = approvable_share(["Dave's favourite band is Aerosmith.", "Wow, great!", "I run."])
    assert count == 3 and share == pytest.approx(1 / 3)
    assert kinds["exclaims"] == 1 and kinds["first person kept"] == 1
