"""The wording figure (issue 20): the share of proposals a person could approve as they stand.

Each check is a reason the person would have to edit a proposal before approving it:

- it opens with chatter or a word pointing back ("Wow", "Nah", "It", "That", "We", "There");
- it exclaims (a memory states, it does not cheer);
- it is long: more than two sentences or more than 30 words;
- it says the same name three times or more ("For Audrey, ... Audrey's ... Audrey");
- it asks something;
- it keeps the chat's first person ("I", "my") outside a quotation, so it is a copy, not a
  memory about someone. A memory that quotes the person on purpose ('Alex said: "..."',
  for a language code cannot retell) is judged on the words it quotes, the first person aside.

The checks are plain code over the text, the same for every model and language, so the
figure can be set beside F1 for each.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

MAX_SENTENCES = 2
MAX_WORDS = 30
NAME_REPEATS = 3

_OPENER_WORDS = """
    nah nope yeah yep yes no wow oh ah aw aww haha lol omg well so and but anyway hey hi hello
    thanks ok okay sure cool great awesome totally definitely exactly hmm um uh
    it that this these those there they we he she them its let's lets
"""
_OPENERS = frozenset(_OPENER_WORDS.split())
_QUOTED = re.compile(r"^(?P<who>[^\"“„:]{1,60}) said: [\"“„](?P<words>.*)[\"”“]\s*$", re.DOTALL)
# "me-time" is a noun, not the chat's "me".
_FIRST_PERSON = re.compile(r"\b(?:I|I['’](?:m|ve|ll|d)|my|me|mine|myself)\b(?!-)")
_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)


def problems(text: str) -> list[str]:
    """Why a person would edit ``text`` before approving it (empty: approvable as it stands)."""
    text = " ".join(text.split())
    quoted = _QUOTED.match(text)
    body = quoted.group("words") if quoted else text
    found: list[str] = []
    words = _WORD.findall(body)
    if words and re.split(r"['’]", words[0].casefold())[0] in _OPENERS:  # "It's", "That's" too
        found.append(f"opens with {words[0]!r}")
    if "!" in body or "！" in body:
        found.append("exclaims")
    sentences = [s for s in _SENTENCE.findall(body) if s.strip(" .!?。！？")]
    if len(sentences) > MAX_SENTENCES:
        found.append(f"{len(sentences)} sentences")
    if len(words) > MAX_WORDS:
        found.append(f"{len(words)} words")
    names = Counter(re.sub(r"['’]s$", "", w) for w in _WORD.findall(text) if w[:1].isupper() and w != "I")
    repeated = [n for n, c in names.items() if c >= NAME_REPEATS]
    if repeated:
        found.append(f"says {repeated[0]} {names[repeated[0]]} times")
    if body.rstrip().endswith(("?", "？")):
        found.append("asks")
    if not quoted and _FIRST_PERSON.search(body):
        found.append("keeps the first person")
    return found


def approvable_share(texts: Iterable[str]) -> tuple[float, int, Counter[str]]:
    """(share approvable as they stand, how many texts, how often each kind of problem)."""
    total = 0
    clean = 0
    kinds: Counter[str] = Counter()
    for text in texts:
        total += 1
        found = problems(text)
        if not found:
            clean += 1
        kinds.update(_kind(p) for p in found)
    return (clean / total if total else 0.0), total, kinds


def _kind(problem: str) -> str:
    if problem.endswith(("sentences", "words")):
        return "too long"
    if problem.startswith("says "):
        return "name repeated"
    return {"opens": "opens with chatter or a pointer", "exclaims": "exclaims", "asks": "asks",
            "keeps": "first person kept"}.get(problem.split(" ")[0], problem)
