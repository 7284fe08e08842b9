"""A capable model words the memories code found (``reflection.writer`` = reword).

Code still finds the candidates (:mod:`curator.reflection.statements`): the person's own
sentences, ranked, with planted instructions and corrections kept apart. A model of about a
billion parameters or more then chooses among them and writes each chosen one as a short
third-person sentence in the chat's own language (prompt ``batch_reworder``, one short call
per chosen statement, after the usual choosing call), which code's retelling cannot do for
German or Japanese, and which drops the chatter a copied sentence keeps ("There were so many
great bands! If Dave had to pick a favorite, it would definitely be Aerosmith." -> "Dave's
favorite band is Aerosmith."). Asked for all of them in one JSON reply, a 1.5B copied code's
retelling word for word; asked one at a time, it shortens.

The model's words are not trusted. Each must pass, before it replaces code's wording:

- code's checks, which rest on no English word overlap: every number in the memory is in
  the person's sentence, and so is every name (a capitalised word that does not open a
  sentence, in a language that does not capitalise its nouns), the speaker's own name
  aside; it says whose fact it is; it is in the sentence's language; every day and part of
  the day the person said is kept; three quarters of its longer words are the person's (or
  code's retelling's), compared in the chat's language; no first person is left; one
  statement, not a question, no exclamation, not too long;
- the model's own answer, under a grammar, to "does this sentence say this?" (prompt
  ``memory_check``).

A wording that fails keeps code's wording of the same statement, so the person loses no
memory to a bad rewrite; the failure is a rejection like any other, with its reason, in the
batch log and the status pane. A model that answers NONE (nothing lasting in it) drops the
statement: it chose it a moment before from a list, and looking at it alone it found no fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from curator.index.text import STOP_WORDS
from curator.reflection.gates.chain import DEFAULT_SUPPORT, check_item
from curator.reflection.languages import (
    HAN_KANA_RUN,
    detect,
    names_the_person,
    tables,
    without_person_labels,
)
from curator.reflection.ports import GenerationDefaults, ModelCancelled, ModelClient
from curator.reflection.rephrase import is_first_person, quoted_words
from curator.reflection.schemas import ItemRejection, load_json_object
from curator.reflection.statements import (
    ATTACHED,
    DATE_WORDS,
    DEFAULT_PERSON,
    LAUGHTER,
    Statement,
    asks,
    lasting_cues,
)

REWORD_PROMPT = "batch_reworder"
REWORD_DEFAULTS = GenerationDefaults(temperature=0.0, max_tokens=60)
CHECK_PROMPT = "memory_check"
CHECK_DEFAULTS = GenerationDefaults(temperature=0.0, max_tokens=12)
MAX_CHARS = 220
MAX_WORDS = 30
GATE = "wording"
NOTHING = "NONE"

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_NAME = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?。！？]+\s*")
MOST_NEW_WORDS = 0.25  # a memory with this share of its longer words from outside the turn is refused
_WE = re.compile(r"\b(?:we|we['’](?:ll|re|ve|d)|us|our|ours|ourselves)\b", re.IGNORECASE)
_ENGLISH_NAMES = {"de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
                  "nl": "Dutch", "pl": "Polish", "ru": "Russian", "tr": "Turkish", "zh": "Chinese",
                  "ja": "Japanese"}


def who(statement: Statement) -> str:
    """What the memory calls the person: their name, or, where the chat names no one, the
    chat language's own word for them ("Die Person", "La persona", "用户"; a table's ``person``).

    Shown 'The user said: "Ich arbeite als Busfahrer ..."', the 1.5B copied the German first
    person back, refused every time: in a chat that stores no name (most of them), it never
    worded a memory in another language. Shown 'Die Person said: ...', it wrote "Die Person
    arbeitet als Busfahrer bei den Stadtwerken in Bremen, meistens Frühschicht."
    """
    person = statement.person or statement.turn.speaker or ""
    if person.casefold() == DEFAULT_PERSON:
        table = tables().get(detect(statement.quote))
        if table is not None and table.person:
            return table.person
    return person


def said(statement: Statement) -> str:
    """What the model words from: code's retelling, already about the person by name (shown
    "my sister Ana lives in Porto", a 1.5B gave Porto to the person); where code cannot retell,
    that is the person's own words with their name ('Alex said: "..."'). A retelling that
    does not name the person (they began without "I": "Been only to Rome once.") is shown as
    their words with their name, or the model could not say whose fact it is."""
    person = who(statement)
    if person and person.casefold() not in statement.memory.casefold():
        words = statement.quote
        if statement.earlier is not None:
            # A fact its chat corrected: the first sentence with the new value, not the
            # correction alone ("salgo tarde los miércoles, no los lunes" lost the electrician).
            words = (quoted_words(statement.memory) or [words])[0]
        return f'{person} said: "{ATTACHED.sub("", words).strip()}"'
    return statement.memory


def wording_variables(statement: Statement) -> dict[str, Any]:
    language = detect(statement.quote)
    table = tables().get(language)
    name = _ENGLISH_NAMES.get(language) or (table.name if table is not None else "")
    person = who(statement)
    starting = f", starting with “{person}”" if person != (statement.person or statement.turn.speaker or "") else ""
    return {"said": said(statement), "language": f"Write the note in {name}{starting}." if name else "",
            "before": _context(statement)}


# Words that name something said before them: "I've had them for 3 years", "I first watched it".
_POINTS_BACK = re.compile(r"\b(?:it|them|these|those|there)\b", re.IGNORECASE)


MOST_BORROWED = 2  # words a memory may take from the turn before: what "it" names, not a fact of its own


def _borrowed(statement: Statement, memory: str) -> list[str]:
    """Content words ``memory`` took from the turn before and not from the person's words."""
    if not _context(statement):
        return []
    own = {w.casefold()[:5] for w in _NAME.findall(f"{statement.quote} {statement.memory}")}
    before = {w.casefold()[:5] for w in _NAME.findall(statement.before)}
    return [w for w in _NAME.findall(memory)
            if (len(w) >= 4 or w[:1].isupper()) and w.casefold() not in STOP_WORDS
            and w.casefold()[:5] in before and w.casefold()[:5] not in own]


def _context(statement: Statement) -> str:
    """The turn before the statement, for a statement that points back at something (else "")."""
    if not statement.before or not _POINTS_BACK.search(statement.quote):
        return ""
    return f"Just before, {statement.before}"


def first_line(raw: str) -> str:
    """The memory in a plain-text reply: its first non-empty line, without quotes or an arrow."""
    for line in str(raw).splitlines():
        line = line.strip().lstrip("->").strip().strip('"“”„«»').strip()
        if line:
            return " ".join(line.split())
    return ""


def problems(statement: Statement, memory: str) -> list[str]:
    """Why code will not let ``memory`` stand for ``statement`` (empty: it may)."""
    if not memory:
        return ["no words"]
    found: list[str] = []
    # What "them" names may come from the turn before, when the model was shown it.
    source = f"{statement.quote} {statement.memory} {statement.turn.speaker} {_context(statement)}"
    numbers = set(_NUMBER.findall(source))
    extra = [n for n in _NUMBER.findall(memory) if n not in numbers]
    if extra:
        found.append(f"number {extra[0]} is not in the turn")
    unknown = _new_names(memory, source)
    if unknown:
        found.append(f"name {unknown[0]!r} is not in the turn")
    person = who(statement)
    if person and not _names(memory, person):
        found.append(f"does not say it is about {person}")
    dropped = _dropped_dates(statement, memory) or _dropped_cues(statement, memory)
    if dropped:
        found.append(f"leaves out {dropped[0]!r}")
    borrowed = _borrowed(statement, memory)
    if len(borrowed) > MOST_BORROWED:
        # "Jon won first place, and Gina performed ...": the turn before's own news, merged in.
        found.append(f"takes {', '.join(borrowed[:3])} from the turn before")
    foreign = _foreign_words(statement, memory, person)
    if foreign:
        found.append(f"words not in the turn: {', '.join(foreign[:3])}")
    language, theirs = detect(memory), detect(statement.quote)
    if theirs not in ("", "en") and language != theirs:
        found.append("not in the language of the chat")
    table = tables().get(language)
    if is_first_person(memory) or _WE.search(memory) or (
            table is not None and (table.count("self", memory) > 0 or table.count("said_as_i", memory) > 0)):
        found.append("keeps the first person")
    if asks(memory):
        found.append("asks")
    if "!" in memory or "！" in memory:
        found.append("exclaims")
    if len([s for s in _SENTENCE_END.split(memory) if s.strip()]) > 2 or len(memory.split()) > MAX_WORDS \
            or len(memory) > MAX_CHARS:
        found.append("too long for one memory")
    return found


def _names(memory: str, person: str) -> bool:
    """Whether ``memory`` says whose fact it is: the person's name, or the chat language's word
    for a person who has none, inflected too ("сестра пользователя")."""
    if person.casefold() in memory.casefold():
        return True
    words = person.casefold().split()
    return len(words) == 1 and names_the_person(words[0]) and any(
        names_the_person(w) for w in _NAME.findall(memory.casefold()))


def _dropped_dates(statement: Statement, memory: str) -> list[str]:
    """Days, months and parts of the day the person said that the memory leaves out.

    A 1.5B turned "Il venerdì sera vado a lezione di tango" into "Giulia ha programmatore
    per lezione di tango": the day, the one detail a correction of it would change, was gone.
    """
    # Code's retelling, not the quote: a fact corrected in the same chat holds the new day
    # only ("… los miércoles"), while its quote still denies the old one ("no los lunes").
    table = tables().get(detect(statement.quote))
    said = table.matched("dates", statement.memory) if table is not None else {
        w for w in _NAME.findall(statement.memory.casefold()) if w in DATE_WORDS}
    if not said:
        return []
    folded = memory.casefold()
    return sorted(d for d in said if d not in folded)


def _dropped_cues(statement: Statement, memory: str) -> list[str]:
    """Words of code's retelling that make it a lasting fact (job, sister, moved …) that the
    memory leaves out. The 1.5B turned "Lost Jon's job as a banker yesterday, so they're gonna
    take a shot at starting their own business" into "Jon is starting their own business.":
    shorter, and without the fact."""
    table = tables().get(detect(statement.quote))
    if table is not None:
        return sorted(table.matched("lasting", statement.memory) - table.matched("lasting", memory))
    return sorted(lasting_cues(statement.memory) - lasting_cues(memory))


def _foreign_words(statement: Statement, memory: str, person: str) -> list[str]:
    """Longer words of the memory that are in neither the person's words nor code's retelling.

    Not an English word overlap: words are compared in the chat's own language, a shared
    opening of five letters being the same word ("trabajo", "trabaja"; "vegetariano",
    "vegetariana"). A memory may reword a little; a quarter of its longer words from
    elsewhere is a different sentence ("ha detto che" in a Spanish memory, "programmatore"
    in an Italian one). Scripts without spaces compare runs of Han or katakana instead.
    """
    table = tables().get(detect(statement.quote))
    source = f"{statement.quote} {statement.memory} {_context(statement)}".casefold()
    skip = {w.casefold() for w in person.split()}
    if table is not None and not table.spaced:
        runs = [r for r in HAN_KANA_RUN.findall(without_person_labels(memory)) if r not in skip]
        missing = [r for r in runs if r not in source]
    else:
        known = {w[:5] for w in _NAME.findall(source)}
        words = (re.sub(r"['’]s$", "", w) for w in _NAME.findall(memory))
        runs = [w for w in words if len(w) >= 5 and w.casefold() not in skip]
        missing = [w for w in runs if w.casefold()[:5] not in known]
    return missing if missing and len(missing) >= MOST_NEW_WORDS * len(runs) else []


def _new_names(memory: str, source: str) -> list[str]:
    """Capitalised words of ``memory`` that open no sentence and are not in ``source``.

    Where every noun is capitalised (German) or nothing is (Chinese, Japanese), a capital
    tells nothing, and only numbers are compared. A name may be inflected ("Lisboa",
    "Lisboas"), so a shared opening of five letters counts as the same name.
    """
    table = tables().get(detect(memory))
    if table is not None and (table.capital_nouns or not table.spaced):
        return []
    known = [w.casefold() for w in _NAME.findall(source)]
    out: list[str] = []
    for sentence in _SENTENCE_END.split(memory):
        for word in _NAME.findall(sentence)[1:]:
            if not word[:1].isupper():
                continue
            folded = re.sub(r"['’]s$", "", word.casefold())
            if names_the_person(folded):
                continue  # "La persona", "Die Person": what a chat that names no one calls them
            stem = folded[:5]
            if not any(k == folded or (len(stem) >= 4 and k.startswith(stem)) for k in known):
                out.append(word)
    return out


def _refused_by_gates(statement: Statement, memory: str) -> list[str]:
    """The gate chain's refusal of ``memory`` against the turns it will cite (empty: it passes).

    A wording that passed the checks above but that the batch's gates then refused would lose
    the statement; refused here, code's wording stands instead.
    """
    turns = [statement.turn]
    if statement.earlier is not None:
        turns.insert(0, statement.earlier.turn)  # a corrected fact cites both turns
    if statement.previous is not None and _borrowed(statement, memory):
        turns.insert(0, statement.previous)
    verdict = check_item(memory, turns, threshold=DEFAULT_SUPPORT)
    return [] if verdict.passed else [f"the gates would refuse it ({verdict.reason})"]


def _ask(model: ModelClient, prompt: str, variables: dict[str, Any], defaults: GenerationDefaults,
         key: str) -> str | None:
    """The string ``key`` of the model's JSON answer; None when there is none."""
    try:
        raw = model.call(prompt, variables, None, defaults).text
        value = load_json_object(raw).get(key)
    except ModelCancelled:
        raise
    except Exception:  # no wording or no second opinion: code's wording is the safe side
        return None
    return value if isinstance(value, str) else None


def confirmed(model: ModelClient, statement: Statement, memory: str) -> str:
    """"" when the model answers that the person's words say ``memory``; else why not."""
    context = _context(statement)
    words = f"{context}\nThen {said(statement)}" if context else said(statement)
    answer = _ask(model, CHECK_PROMPT, {"said": words, "memory": memory}, CHECK_DEFAULTS, "answer")
    if answer is None:
        return "the check gave no answer"
    return "" if answer == "yes" else "the model found the turn does not say it"


def approvable_as_retold(statement: Statement) -> bool:
    """Whether code's retelling is already a memory a person approves as it stands: it opens
    with the person's name and passes every check a model's wording must pass.

    Those are left as they are. Reworded, they came out shorter and lost the details LoCoMo's
    gold observations keep ("John's family is the reason why John never gives up." for "...
    Their love gives John strength."): the capable model's F1 was below its choosing alone
    (0.505 against 0.535, 2026-11-26). The model words what code could not: a sentence the
    person began without "I" ("Lost Jon's job as a banker"), one opening with "we" or "it",
    a long one, and every one code could only quote.
    """
    person = statement.person or statement.turn.speaker or ""
    memory = statement.memory
    if not person or not memory.casefold().startswith(person.casefold()):
        return False
    if _context(statement) and _POINTS_BACK.search(memory):
        return False  # "Nate has had them for 3 years": the turn before says what "them" is
    return not problems(statement, memory)


def worded(model: ModelClient, chosen: Sequence[tuple[Statement, str]]
           ) -> tuple[list[tuple[Statement, str, str]], list[ItemRejection]]:
    """Each chosen (statement, category) with the model's memory where it stands, else code's.

    Returns (statement, category, who worded it: "the model" or "code") for each statement
    kept, its ``memory`` and ``title`` replaced where the model's words stand, and a rejection
    for every wording that did not stand. All wordings are asked first, then all checks: each
    kind of call shares its prompt's opening, which the runtime then evaluates once.
    """
    drafts = []
    kept: list[tuple[Statement, str, str]] = []
    for statement, category in chosen:
        if approvable_as_retold(statement):
            kept.append((statement, category, "code"))
            continue
        raw = _ask(model, REWORD_PROMPT, wording_variables(statement), REWORD_DEFAULTS, "memory")
        drafts.append((statement, category, first_line(raw) if raw is not None else ""))
    rejected: list[ItemRejection] = []
    pending: list[tuple[Statement, str, str]] = []
    for statement, category, memory in drafts:
        if memory.rstrip(".").upper() == NOTHING:
            rejected.append(ItemRejection("facts", statement.memory[:70],
                                          "the model found nothing lasting in it when wording it", gate=GATE))
            continue
        why = problems(statement, memory) or _refused_by_gates(statement, memory)
        if why:
            if memory:
                rejected.append(ItemRejection("facts", memory[:70], "; ".join(why) + "; code's wording kept",
                                              gate=GATE))
            kept.append((statement, category, "code"))
        else:
            pending.append((statement, category, memory))
    for statement, category, memory in pending:
        reason = confirmed(model, statement, memory)
        if reason:
            rejected.append(ItemRejection("facts", memory[:70], f"{reason}; code's wording kept", gate=GATE))
            kept.append((statement, category, "code"))
            continue
        # The 1.5B kept the laughter code leaves out of a memory ("…差点出事哈哈。").
        memory = LAUGHTER.sub(r"\1", memory).strip() or memory
        memory = memory if memory.endswith((".", "。")) else memory + "."
        # The title stays code's: its words are the person's own, and a model's paraphrase
        # there would be a name-like capital the turn does not hold ("Continuing her ...").
        kept.append((replace(statement, memory=memory, leans_on_previous=bool(_borrowed(statement, memory))),
                     category, "the model"))
    return kept, rejected
