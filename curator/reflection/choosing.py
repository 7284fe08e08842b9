"""What a small model is asked when it chooses, and what its answer means.

With ``reflection.writer`` = choose (the default for models under about a billion
parameters), batch and micro-reflection do not ask the model to write: they offer it the
person's own statements (:mod:`curator.reflection.statements`), numbered, and it answers
with numbers and a category (prompt ``batch_chooser``). Some statements are not the model's
to choose: an instruction-like one is always staged (and flagged by the untrusted-output
checks), and a correction of a fact that is known or waiting for review is always shown.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from curator.reflection.corrected import corrected_text
from curator.reflection.languages import HAN_KANA_RUN, Table, detect, tables
from curator.reflection.narrowing import NARROWING_KEY, ChoiceNarrowing
from curator.reflection.ports import GenerationDefaults, KnowledgeDoc, ModelCancelled, ModelClient
from curator.reflection.rephrase import is_quotation
from curator.reflection.schemas import NewFact, SchemaError, load_json_object
from curator.reflection.statements import Statement

log = logging.getLogger(__name__)

CHOOSER_PROMPT = "batch_chooser"
CHOOSER_DEFAULTS = GenerationDefaults(temperature=0.0, max_tokens=320)
# Times a menu is asked again after a reply that named one statement over and over.
MORE_ROUNDS = 2
WRITERS = ("model", "choose", "reword")
FINDS = ("choose", "reword")  # writers for which code finds the candidates (and swaps a correction's value)
CATEGORIES = ("Facts", "Patterns", "Concepts")
BATCH_OFFER = 5  # statements a batch offers, best ranked first
OFFER_PER_FACT = 2  # statements a micro-reflection offers per fact it may keep
PLANTED = "an instruction-like statement, flagged"
FOUND_CORRECTION = "a correction found by code"
FOLDED = "a fact its chat corrected, found by code"
CHOSEN = "chosen by the model"
MIN_SHARED_NAMES = 2  # names, places or months a correction shares with the fact it corrects


@dataclass(frozen=True)
class Menu:
    """One choosing call: statements numbered from 1, of which at most ``most`` are kept."""

    offered: tuple[Statement, ...]
    most: int

    def variables(self) -> dict[str, Any]:
        return {
            "people": ", ".join(sorted({s.turn.speaker for s in self.offered})),
            "statements": "\n".join(f"{i}. {s.offered}" for i, s in enumerate(self.offered, 1)),
            "most": str(self.most),
            NARROWING_KEY: ChoiceNarrowing(len(self.offered), self.most),
        }

    def read(self, raw: str) -> list[tuple[Statement, str]]:
        """The chosen statements with their categories; raises SchemaError on a useless reply."""
        return [(self.offered[n - 1], category) for n, category in choices(raw, len(self.offered), self.most)]

    def without(self, chosen: Sequence[Statement]) -> Menu | None:
        """The menu of what is left once ``chosen`` are kept (None: nothing left, or no room)."""
        left = tuple(s for s in self.offered if all(s is not c for c in chosen))
        room = self.most - len(chosen)
        return Menu(left, room) if left and room > 0 else None


def looped(raw: str) -> bool:
    """Whether a reply named one statement more than once: a small model answering greedily
    wrote "4" four times for four statements it was shown, and three were lost."""
    try:
        keep = load_json_object(raw).get("keep")
    except SchemaError:
        return False
    numbers = [e.get("number") for e in keep if isinstance(e, dict)] if isinstance(keep, list) else []
    return len(numbers) > len(set(map(str, numbers)))


def more_choices(model: ModelClient, menu: Menu, raw: str,
                 chosen: Sequence[tuple[Statement, str]]) -> list[tuple[Statement, str]]:
    """What ``model`` keeps when asked again without what it chose, after a looping reply.

    A failed second call only ends the asking (what was chosen stands); a cancelled one is raised.
    """
    more: list[tuple[Statement, str]] = []
    last = [s for s, _c in chosen]
    for _ in range(MORE_ROUNDS):
        if not looped(raw):
            break
        rest = menu.without(last)
        if rest is None:
            break
        try:
            raw = model.call(CHOOSER_PROMPT, rest.variables(), None, CHOOSER_DEFAULTS).text
            picked = rest.read(raw)
        except ModelCancelled:
            raise
        except Exception as exc:  # a failed second call keeps what the first chose
            log.info("asking again after a looping reply failed: %s", exc)
            break
        if not picked:
            break
        more += picked
        menu, last = rest, [s for s, _c in picked]
    return more


@dataclass(frozen=True)
class Selection:
    """What code keeps whatever the model says, and what the model is asked to choose from."""

    preset: tuple[tuple[Statement, str], ...]  # (statement, why it is kept)
    menu: Menu | None


def choices(raw: str, count: int, most: int) -> list[tuple[int, str]]:
    """(number, category) pairs of a reply: listed numbers only, each once, at most ``most``."""
    data = load_json_object(raw)
    keep = data.get("keep")
    if not isinstance(keep, list):
        raise SchemaError("reply has no list 'keep'")
    out: list[tuple[int, str]] = []
    for entry in keep:
        if not isinstance(entry, dict):
            continue
        number, category = entry.get("number"), entry.get("category")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
            continue
        if number in {n for n, _c in out}:
            continue
        out.append((number, category if category in CATEGORIES else "Facts"))
    return out[:most]


def select(found: Sequence[Statement], cap: int, offer: int,
           existing: Sequence[KnowledgeDoc] = ()) -> Selection:
    """Planted instructions first, then corrections of ``existing``, then a menu for the rest.

    Everything stays within ``cap`` (seed 000's 2 facts per batch, ``micro.max_facts``).
    """
    planted = [s for s in found if s.instruction][:cap]
    people = sorted({s.turn.speaker for s in found if s.turn.speaker})
    found = folded_corrections(found, existing, people)
    # A fact the chat itself corrected (folded above) is code's to propose, as a correction of a
    # known fact is: left to a small chooser, the first value alone could stay staged, the
    # correction unseen ("vive en Lyon", then "no, vive en Grenoble, no en Lyon").
    fixes = [s for s in found if not s.instruction and (s.earlier is not None or corrected(s, existing, people))]
    fixes = fixes[:max(0, cap - len(planted))]
    preset = [(s, PLANTED) for s in planted] + [(s, FOLDED if s.earlier is not None else FOUND_CORRECTION)
                                                for s in fixes]
    room = cap - len(preset)
    offered = tuple(s for s in found if not s.instruction and s not in fixes)[:offer]
    return Selection(tuple(preset), Menu(offered, room) if offered and room > 0 else None)


def folded_corrections(found: Sequence[Statement], existing: Sequence[KnowledgeDoc],
                       people: Sequence[str]) -> list[Statement]:
    """``found`` with each correction of an earlier statement of the same chat folded into it.

    "Lavoro il martedì ... Anzi, il giovedì, non il martedì" in one chat is one memory, the
    fact as corrected, citing both turns; two (the old value and its correction, unlinked)
    would ask the person to approve a fact the chat itself takes back. A correction of a
    known or staged fact is left alone: it becomes a correction of that fact.
    """
    out = list(found)
    for fix in found:
        if not fix.corrects or fix.instruction or corrected(fix, existing, people):
            continue
        earlier = [s for s in out if not s.corrects and not s.instruction and s.turn.number < fix.turn.number]
        target = corrected(fix, [KnowledgeDoc(str(i), s.title, s.memory) for i, s in enumerate(earlier)], people)
        if not target:
            continue
        fact = next(s for s in earlier if s.memory == target)
        memory = corrected_text(fact.memory, fix.memory)
        title = fix.title
        said = ""
        if is_quotation(fact.memory):
            # The person is shown their own words: the first sentence and the correction, as code
            # quotes them, titled by the correction; the first sentence with a value swapped in,
            # which they never said, is only what a model wording it reads (its title read "Mi
            # hermana vive en Santander y dice que ..."). The correction alone lost the rest of
            # what it corrects: "No es Zaragoza, es Huesca." said nothing of working nights as a nurse.
            said = f"{fact.memory} {fix.memory}" if is_quotation(fix.memory) else fix.memory
        elif memory != fix.memory.strip():  # one value swapped: the fact's own title, swapped too
            swapped = corrected_text(fact.title, fix.memory)
            title = fact.title if swapped == fix.memory.strip() else swapped
        out[out.index(fact)] = replace(fact, turn=fix.turn, quote=fix.quote, verbatim=fix.verbatim, memory=memory,
                                       title=title, earlier=fact, correction_said=said)
        out.remove(fix)
    return out


def corrected(statement: Statement, existing: Sequence[KnowledgeDoc], people: Sequence[str] = ()) -> str:
    """The text of the known fact a correcting statement replaces ("" when none is clear).

    The fact that shares the most names, places, months or weekdays with the statement, at
    least two ("Lisbon", "October"; "Ana", "Porto"; "Jonas", "dienstag"); a tie is no clear
    target. The names of the people talking do not count: "actually, Caroline, ..." corrects
    nothing about Caroline. Days and months are read with the statement's language table, so
    "dienstags" and "Dienstag" are the same day.
    """
    if not statement.corrects or not existing:
        return ""
    table = tables().get(detect(statement.quote))
    names = (statement.names() | _keys(table, statement.quote)) - {p.casefold() for p in people}
    scored = sorted(((len(names & (names_of(d.text) | _keys(table, d.text))), d.text) for d in existing),
                    reverse=True)
    if scored[0][0] < MIN_SHARED_NAMES or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return _value_swapped(statement, existing)
    return scored[0][1]


def _value_swapped(statement: Statement, existing: Sequence[KnowledgeDoc]) -> str:
    """The one fact whose value the statement denies and replaces ("it's three twelve-hour
    shifts now, not four" of "works four twelve-hour shifts"): where no names are shared, a
    denied value the fact holds, and one new value of its kind, still tell which fact it is."""
    swapped = [d.text for d in existing if corrected_text(d.text, statement.memory) != statement.memory.strip()]
    return swapped[0] if len(swapped) == 1 else ""


def _keys(table: Table | None, text: str) -> set[str]:
    """What a correction and its fact share besides names, in a language with a table: months
    and weekdays (the entry's own spelling: "dienstags" is "dienstag"), the lasting cues both
    name, and, where words are spaced, their longer words ("trabajo", "tardes", "yoga"): in
    German every noun is capitalised and in Chinese or Japanese nothing is, so names alone
    rarely tell which fact is corrected."""
    if table is None:
        return set()
    keys = table.matched("dates", text) | table.matched("lasting", text)
    if not table.spaced:  # Chinese, Japanese: runs of Han or katakana ("図書館", "ピアノ") are its nouns
        keys |= set(HAN_KANA_RUN.findall(text))
    if table.spaced:
        plain = set(table.lists.get("stop", ())) | set(table.lists.get("correction", ())) \
            | set(table.lists.get("negation", ()))
        keys |= {w for w in table.words(text) if len(w) >= 4 and w not in plain}
    return keys


def names_of(text: str) -> set[str]:
    """Capitalised words of ``text`` after its first (names, places, months), folded."""
    words = text.split()
    # Punctuation and a possessive come off ("Tom's" -> tom); a name's own final s stays ("Jonas").
    return {re.sub(r"['’]s$", "", w.strip(".,;:!?\"“”()")).casefold()
            for i, w in enumerate(words) if i > 0 and w[:1].isupper()}


def new_fact(statement: Statement, category: str, how: str, by: str = "code") -> NewFact:
    """A batch item for ``statement`` (worded ``by`` code or the model), the turn's own words as evidence."""
    turn = statement.turn.number
    cited = [(turn, statement.evidence)]
    if statement.earlier is not None:  # a fact corrected in the same chat rests on both turns
        cited.insert(0, (statement.earlier.turn.number, statement.earlier.evidence))
    if statement.previous_evidence and statement.previous is not None:  # what "them" named
        cited.insert(0, (statement.previous.number, statement.previous_evidence))
    if statement.named_by is not None:  # who "we" is
        cited.insert(0, (statement.named_by.number, statement.named_by_evidence))
    return NewFact(title=statement.title, content=statement.proposed, source_turns=[t for t, _q in cited],
                   related_existing=[], category=category, notes=[f"{how}; worded by {by}"], evidence=cited)
