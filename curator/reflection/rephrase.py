"""First-person sentences rewritten as memories about a named person, by code.

A small model often copies the person's sentence ("I work night shifts as a nurse.") where a
memory should read "Maya works night shifts as a nurse.". This module does the subject
substitution and the verb agreement for the common patterns and leaves anything it does not
understand alone; the gate chain judges the result like any other text (the speaker's name
is always in the cited turn's metadata, so the rewrite never invents a word).
"""

from __future__ import annotations

import re

# Speaker labels that are roles, not names: "user works nights" would be worse than "I".
GENERIC_SPEAKERS = frozenset({"", "user", "human", "me", "you", "person", "speaker", "assistant", "ai", "bot"})

_CONTRACTIONS = {"i'm": "is", "i've": "has", "i'll": "will", "i'd": "would"}
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "go": "goes", "was": "was", "were": "was",
              "are": "are",  # "Ana and I are": a plural subject keeps "are"
              "wanna": "wants to", "gonna": "is going to", "gotta": "has to"}  # never "Jon wannas"
# Adverbs between "I" and its verb ("I still work"): the verb after them agrees instead.
_ADVERBS = frozenset(
    ["also", "just", "still", "never", "always", "often", "usually", "really", "already", "recently",
     "sometimes", "only", "even", "actually", "definitely", "totally", "absolutely", "finally", "probably",
     "first", "last", "once", "ever", "rarely", "mostly", "kinda", "honestly", "literally", "currently",
     "personally", "seriously", "then", "now", "soon", "hardly", "barely", "nearly", "almost", "too"]
)
# Irregular past tenses keep their form with any subject ("I took" -> "Joanna took", never "tooks").
_PAST_WORDS = """
    ate became began bought brought built came caught chose did drank drew drove fell felt flew forgot
    found gave got grew had heard held hung kept knew led left lent let lost made meant met paid put quit
    ran rang read rode said sang sat saw sent set shot slept sold spent spoke stood stole stuck swam
    taught told thought threw took understood went woke won wore wrote
    beat bent bit bled bore bound bred broke burnt clung crept cut dealt dove dreamt dug fed fled flung
    fought forgave froze ground hid hit hurt knelt lay leapt learnt lit mistook rose sank shook shone
    shrank shut slid sought sped spat split sprang spun stank strode struck stung swept swore swung
    tore wept withdrew wound
"""
_PAST = frozenset(_PAST_WORDS.split())
# Present tenses that end as a past one does: "I need" -> "Maya needs", never "Maya need".
_PRESENT_ED = frozenset(["need", "feed", "seed", "speed", "breed", "bleed", "weed", "embed", "succeed", "proceed",
                         "exceed", "heed", "shred"])
_PREFIXES = ("re", "un", "mis", "over", "under", "out", "with", "fore")
# Negated auxiliaries after "I": only "don't", "haven't" and "am not" change with the subject.
_NEGATED = {"don't": "doesn't", "don’t": "doesn’t", "haven't": "hasn't", "haven’t": "hasn’t",
            "wasn't": "wasn't", "weren't": "wasn't"}
# Words after "I" that keep their form with a third-person subject.
_INVARIANT = frozenset(
    ["can", "could", "will", "would", "shall", "should", "may", "might", "must", "did", "had", "used"]
) | _ADVERBS
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|my|My|me|myself|mine|Mine)\b|\bI['’](?:m|ve|ll|d)\b")
# "I" is always a subject in English, so every one is rewritten (with its contraction).
_SUBJECT_RE = re.compile(r"()\bI(?:['’](m|ve|ll|d))?\b(\s+)?([A-Za-z]+n['’]t|[A-Za-z]+)?")


def third_person_verb(verb: str) -> str:
    """``verb`` as it agrees with he/she/a name ("work" -> "works", "study" -> "studies")."""
    lower = verb.lower()
    if lower.endswith(("n't", "n’t")):
        return _NEGATED.get(lower, verb)  # can't, couldn't, won't, didn't: as they are
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _INVARIANT or lower in _PAST or (lower.endswith(("ed", "s")) and lower not in _PRESENT_ED):
        return verb
    if any(lower.startswith(p) and lower[len(p):] in _PAST for p in _PREFIXES):
        return verb  # "retook", "overslept", "misunderstood", never "retooks"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    if lower.endswith(("sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


# A memory code could not retell, kept as the person's own words: 'The user said: "..."'.
_QUOTATION = re.compile(r'^[^"“„:]{1,60} said: ["“„].*["”“]$', re.DOTALL)


def is_quotation(text: str) -> bool:
    """Whether ``text`` quotes the person ('Alex said: "..."'): its words are theirs, to be
    rewritten by no rule (the English "me" rule made a French "je me suis trompé" into "je the
    user suis trompé")."""
    return _QUOTATION.match(text.strip()) is not None


# Where one quotation ends and the next begins, in a summary made of them:
# 'The user said: "..." The user said: "..."'.
_NEXT_QUOTATION = re.compile(r'(?<=["”“])\s+(?=[^"“„:\s][^"“„:]{0,59} said: ["“„])')


def quoted_words(text: str) -> list[str] | None:
    """The person's words each quotation of ``text`` holds ('Alex said: "..."' -> ["..."]), or
    None when ``text`` is not made of quotations."""
    if not is_quotation(text):
        return None
    parts = _NEXT_QUOTATION.split(text.strip())
    if not all(is_quotation(part) for part in parts):
        return None
    return [part.split(" said: ", 1)[1].strip()[1:-1] for part in parts]


def is_first_person(text: str) -> bool:
    """Whether ``text`` speaks as "I" (a copied sentence rather than a memory)."""
    return _FIRST_PERSON.search(text) is not None


# The verb of a plural subject that "I" is part of ("Ana and I was" is no English either).
_PLURAL_VERBS = {"was": "were", "wasn't": "weren't", "wasn’t": "weren’t"}


def _compound(before: str) -> bool:
    """Whether the "I" after ``before`` is part of a compound subject ("Ana and I", "my sister and
    I"): those keep the name ("Ana and they" reads as a mistake); "nights, and I" is a clause."""
    words = before.split()
    if len(words) < 2 or words[-1].lower() not in ("and", "or", "&"):
        return False
    other = words[-2]
    if other.endswith((",", ";")):
        return False
    if len(words) >= 3 and words[-3].lower() in _PLACE_WORDS:
        return False  # "a paramedic in Leeds and I work": a place, then a clause of its own
    return other[:1].isupper() or (len(words) >= 3 and words[-3].lower() in ("my", "our", "his", "her"))


# The person and someone of theirs as one subject: "my partner and I", "me and my sister".
# The words of a companion are a noun and its adjectives ("my older sister"), never a verb: "my
# wife does bedtime and I do naps" is two clauses, and read as one made "The user and their wife
# does bedtime do naps".
_NOT_COMPANION = (r"(?!(?:does|do|did|is|are|was|were|has|have|had|goes|went|gets|got|makes|made|takes|took|"
                  r"can|could|will|would|should|likes|loves|wants|works|lives|says|said|handles|cooks|drives)\b)")
_WITH_ME = re.compile(rf"\b(?:[Mm]y ((?:{_NOT_COMPANION}[a-z]+ ){{0,2}}?{_NOT_COMPANION}[a-z]+(?: [A-Z][a-z]+)?) "
                      r"(?:and|&) I\b(?!['’])|"
                      r"[Mm]e and my ((?:[a-z]+ ){0,2}?[a-z]+(?: [A-Z][a-z]+)?)\b)")
# "We" in a memory about the person is them and theirs: "The user and their partner adopted a
# greyhound. We're thinking about moving" -> "They're thinking about moving"; "Melanie's kids are
# excited about summer break. We're thinking about going camping" -> "They're thinking ...";
# "John is passionate about education in our community" -> "in their community".
_WE_WORDS = {"we": "they", "our": "their", "ours": "theirs", "us": "them"}
_WE_RE = re.compile(r"\b(we|our|ours|us)\b", re.IGNORECASE)


def companion_of(text: str) -> str | None:
    """Who the person does things with, said as "my partner and I" or "me and my sister"."""
    found = _WITH_ME.findall(text)
    return (found[-1][0] or found[-1][1]) if found else None


_WE_SUBJECT = re.compile(r"\b[Ww]e(?:['’](re|ve|ll|d))?\b")
_WE_VERBS = {"re": " are", "ve": " have", "ll": " will", "d": " would"}


def we_as(sentence: str, companion: str) -> str:
    """``sentence`` with its first "we" said as the person and ``companion`` ("We're moving" ->
    "My partner and I are moving"), for the rules of :func:`as_memory` to retell."""
    def subject(match: re.Match[str]) -> str:
        lead = "My" if match.group(0)[:1] == "W" else "my"
        return f"{lead} {companion} and I{_WE_VERBS.get((match.group(1) or '').lower(), '')}"

    return _WE_SUBJECT.sub(subject, sentence, count=1)


def we_resolved(memory: str, name: str) -> str:
    """``memory`` with each "we" after the person is named said as "they" (see :data:`_WE_WORDS`)."""
    if name.casefold() in GENERIC_SPEAKERS:
        return memory
    said = re.search(rf"\b{re.escape(name)}\b", memory, re.IGNORECASE)
    if said is None:
        return memory

    def they(match: re.Match[str]) -> str:
        if match.group(1).isupper() and len(match.group(1)) > 1:
            return match.group(1)  # "the US", "OUR" shouted: not a "we"
        word = _WE_WORDS[match.group(1).lower()]
        return word.capitalize() if match.group(1)[:1].isupper() else word

    return memory[:said.end()] + _WE_RE.sub(they, memory[said.end():])


_PLACE_WORDS = frozenset(["in", "at", "from", "to", "near", "around", "outside", "inside", "for", "of", "on"])

_OTHERS = re.compile(r"\b(?:they|them|their|theirs|they['’](?:re|ve|ll|d))\b", re.IGNORECASE)


# "my friends", "my two kids": a plural the person owns, which a later "they" could mean.
_OWNED_PLURAL = re.compile(
    r"\b[Mm]y\s+(?:(?:two|three|four|five|little|older|younger|best|closest|old|new|dear|close)\s+)?"
    r"[a-z]+[^s'\s]s\b")


def speaks_of_others(text: str) -> bool:
    """Whether a "they" in ``text`` could mean other people (so it cannot stand for the person):
    it already says "they" of others, or names people the person has ("my friends")."""
    return _OTHERS.search(text) is not None or _OWNED_PLURAL.search(text) is not None


# "I" once the person is named: "they" takes the verb "I" takes, except these.
_THEY_VERBS = {"am": "are", "was": "were", "wasn't": "weren't", "wasn’t": "weren’t"}
_THEY_CONTRACTIONS = {"m": "'re", "ve": "'ve", "ll": "'ll", "d": "'d"}
_THEY_DROPPED = {"m": "are", "ve": "have", "ll": "will", "d": "would"}
_JOINED = re.compile(r"(?:^|\s)(?:and|but|or|yet)\s*$", re.IGNORECASE)


def _again(before: str, previous: str | None, contraction: str | None, space: str, word: str) -> tuple[str, str]:
    """A later "I" of a named person, and how its subject was said (``name`` or ``they``).

    Right after "and"/"but", with the person the subject of the clause before in the same
    sentence, the subject is dropped and the verb agrees with how that one was said ("Maya is
    allergic to peanuts and studies Portuguese", "They don't eat meat and don't drink");
    elsewhere it is "they".
    """
    if previous and _JOINED.search(before) and word and (contraction or word.lower() not in _ADVERBS):
        if contraction:
            key = contraction.lower()
            verb = _CONTRACTIONS["i'" + key] if previous == "name" else _THEY_DROPPED[key]
            return f"{verb}{space}{word}", previous
        if previous == "name":
            return third_person_verb(word), previous
        return _THEY_VERBS.get(word.lower(), word), previous
    starts = not before.strip() or before.rstrip()[-1] in ".!?"
    they = "They" if starts else "they"
    if contraction:
        return f"{they}{_THEY_CONTRACTIONS[contraction.lower()]}{space}{word}", "they"
    return f"{they}{space}{_THEY_VERBS.get(word.lower(), word)}", "they"


def as_memory(text: str, speaker: str, *, named: bool = False, again: bool = True) -> str:
    """``text`` with the speaker as subject; unchanged when the speaker has no real name.

    ``named``: an earlier sentence of the same memory already names the person (and uses no
    "they" for others), so this one says "they" and "their" from its first "I" and "my".
    ``again=False``: every "I" is the name (the retelling the chooser model is shown, which
    measured better for its choices; see ``Statement.shown``).

    "I work night shifts, so my sleep suffers." -> "Maya works night shifts, so their sleep
    suffers." Only "I", "my", "me", "myself" and the contractions are rewritten; the rest of
    the sentence keeps the person's own words.
    """
    name = " ".join(speaker.split())
    if name.casefold() in GENERIC_SPEAKERS or not is_first_person(text):
        return text

    plural = _OTHERS.search(text) is not None
    # "My partner and I adopted a dog": the person first, as a memory says it ("Maya and their
    # partner adopted a dog"), where the rules below made "Maya's partner and Maya".
    text = _WITH_ME.sub(lambda m: f"{name} and their {m.group(1) or m.group(2)}", text)
    # Once the name is said, a later "I" is not the name again ("Jon has been into dancing since
    # Jon was a kid ... so Jon can teach", issue 20): after "and"/"but" the subject is dropped
    # ("and studies Portuguese"), elsewhere it is "they". Not where "they" already means others,
    # nor beside a compound subject ("Ana and Maya ..., and Maya was excited"): the name stays.
    pronouns = again and not plural and not any(_compound(text[: m.start()]) for m in _SUBJECT_RE.finditer(text))
    said_before = re.compile(rf"\b{re.escape(name)}\b|\b(?:I|[Mm]y|me|mine)\b|\bI['’]")

    # How the person's last subject was said, and where it ended (a sentence end forgets it).
    last: list[tuple[str, int]] = []

    def said_in_sentence(before: str) -> str | None:
        if not last or re.search(r"[.!?;]", before[last[-1][1]:]):
            return None
        return last[-1][0]

    def subject(match: re.Match[str]) -> str:
        lead, contraction, space, word = match.group(1), match.group(2), match.group(3) or "", match.group(4) or ""
        before = text[: match.start()]
        if not contraction and _compound(before):
            # "Ana and Maya go": a plural subject takes the verb "I" takes ("was" becomes "were").
            return f"{lead}{name}{space}{_PLURAL_VERBS.get(word.lower(), word)}"
        # After "my friends" a "they" would mean the friends: the name again.
        if pronouns and (named or said_before.search(before)) and not _OWNED_PLURAL.search(before):
            rendered, how = _again(before, said_in_sentence(before), contraction, space, word)
            last.append((how, match.end()))
            return rendered
        last.append(("name", match.end()))
        if contraction:
            return f"{lead}{name} {_CONTRACTIONS['i' + chr(39) + contraction.lower()]}{space}{word}"
        if word.lower() in _ADVERBS:
            return f"{lead}{name}{space}{word}"  # "I also want" -> "Maya also wants" (next pass)
        return f"{lead}{name}{space}{third_person_verb(word) if word else ''}"

    out = _SUBJECT_RE.sub(subject, text)
    # An adverb between subject and verb: "Maya also want" -> "Maya also wants".
    # Several of them too: "Nate probably also have" was left so.
    # A negated verb whole: "still haven't" had become "still havens't".
    out = re.sub(rf"\b{re.escape(name)} ((?:(?:{'|'.join(sorted(_ADVERBS))}) )+)([a-z]+(?:n['’]t)?)(?![\w'’])",
                 lambda m: f"{name} {m.group(1)}{third_person_verb(m.group(2))}", out)
    out = _coordinated(out, name)
    out = re.sub(r"\bmyself\b", "themselves", out)
    # Once the name is said, "my" and "me" become "their" and "them": "which refreshes Melanie
    # and helps Melanie stay present for Melanie's family" read as a riddle (issue 20).
    # Not where "they" already means others ("my kids; they keep me going"): the name stays.
    said = re.compile(rf"\b{re.escape(name)}\b|\b[Mm]y\b|\bmine\b|\bme\b(?!-)")

    def pronoun(match: re.Match[str]) -> str:
        known = named or said.search(out, 0, match.start()) is not None  # the name, or a "my" that becomes it
        if match.group(0) == "me":
            return "them" if known and not plural else name
        # "to have my husband and kids; they keep me going": "their husband" is clear while no
        # "they" for others has come yet.
        ahead = again and plural and _OTHERS.search(out, 0, match.start()) is None
        if known and (not plural or ahead):
            return "theirs" if match.group(0) == "mine" else "their"  # "mine is dying": theirs, not "their is"
        return f"{name}'s"

    out = re.sub(r"\b[Mm]y\b|\bmine\b|\bme\b(?!-)", pronoun, out)
    return out[:1].upper() + out[1:]


# Verbs a person says of themselves after "and" with their "I" left out ("I bike to work every
# day and want to keep doing that"): the second verb agrees with the name too. A closed list,
# since after "and" most words are not verbs ("I like apples and pears").
_COORDINATED_WORDS = """
    want need love like hope plan try have do go work live walk run bike cycle cook play teach study spend
    take make get enjoy know use keep prefer hate help write swim drive ride volunteer train practice practise
    visit miss feel wish sing dance paint draw bake care look
"""
_COORDINATED = frozenset(_COORDINATED_WORDS.split())
# "is excited to work hard and make", "wants to cook and bake": the verb after "and" goes with
# "to" ("bikes to work every day and want" is a place, and the verb goes with the name).
_TO_DO = re.compile(r"\b(?:excited|eager|happy|ready|able|going|wants?|wanted|needs?|needed|hopes?|hoping|plans?|"
                    r"planning|tries|trying|likes?|loves?|decided|learning|starting|about|has|have|got)\s+to\s+\w+",
                    re.IGNORECASE)
_OTHER_SUBJECT = re.compile(r"\b(?:he|she|it|we|they|you|i|who|that|which)\b|['’]s\b", re.IGNORECASE)


def _coordinated(out: str, name: str) -> str:
    """``out`` with each verb of :data:`_COORDINATED` after "and" agreeing with the name, where
    the name is the clause's subject and no other subject comes between them ("The user bikes to
    work every day and want" -> "... and wants")."""
    # The name's own verb agrees already ("bikes", "is", "does"): not a modal ("can cook and bake")
    # nor a past tense, after which the verb after "and" has no ending to take.
    pattern = re.compile(rf"\b{re.escape(name)}\s+(?P<own>[a-z]*s)\b(?P<between>[^.;!?,]*?)\band\s+(?P<verb>[a-z]+)\b",
                         re.IGNORECASE)

    def agree(match: re.Match[str]) -> str:
        verb, between = match.group("verb"), match.group("between")
        if (verb not in _COORDINATED or _OTHER_SUBJECT.search(between)
                or _TO_DO.search(match.group("own") + between)):
            return match.group(0)
        start = match.start("verb") - match.start()
        return match.group(0)[:start] + third_person_verb(verb)

    return pattern.sub(agree, out)


# A chat drops the "I" that opens a sentence ("Lost my job yesterday", "Been to Rome once",
# "Gonna check out career options"): a memory that opens so reads as a fragment to approve.
# Past tenses that also open a sentence as something else ("Bit tired today", "Ground beef is ...",
# "Rose is my sister", "Fed up with ..."): no "I" is put before them.
_AMBIGUOUS_PAST = frozenset(["read", "put", "set", "let", "quit", "hit", "cut", "hurt", "shot", "bit", "bound",
                             "bore", "dove", "fed", "ground", "lay", "lit", "rose", "shut", "split", "wound"])
_NOT_PAST = frozenset(["need", "feed", "seed", "speed", "breed", "bleed", "weed", "shed", "bed", "red", "wed",
                       "led", "embed", "indeed", "succeed", "proceed", "exceed", "hundred", "deed", "sled",
                       "iced", "aged", "heed", "reed"])
_FEELING_AFTER = frozenset(["to", "about", "for", "with", "by", "that", "of", "at"])  # "Excited to", "Stoked about"
_OPENING_ADVERBS = frozenset(["just", "still", "finally", "also", "recently", "actually", "really", "totally",
                              "definitely", "already", "never", "always", "currently", "even", "only"])
_IT_HAS_BEEN = frozenset(["a", "an", "quite", "such", "so", "pretty", "really", "super", "kinda", "ages", "forever",
                          "too", "way", "the", "one", "crazy", "hectic", "wild", "tough", "great", "awesome", "fun",
                          "nice", "amazing", "rough", "hard", "long", "ok", "okay", "good", "lovely", "insane"])
_DROPPED_OPENERS = {"been": "I've been", "gonna": "I'm going to", "wanna": "I want to", "gotta": "I have to",
                    # "Can't wait for the seafood", "Didn't expect that": the chat dropped the "I".
                    "can't": "I can't", "can’t": "I can’t", "cant": "I can't", "didn't": "I didn't",
                    "didn’t": "I didn’t", "couldn't": "I couldn't", "couldn’t": "I couldn’t",
                    "haven't": "I haven't", "haven’t": "I haven’t"}


def with_subject(sentence: str) -> str:
    """``sentence`` with the "I" a chat left out at its start put back ("Lost my job" -> "I lost
    my job"); unchanged when it opens otherwise (a gerund, an imperative, a name)."""
    words = sentence.split(maxsplit=3)
    if len(words) < 3:
        return sentence
    first = words[0].lower()
    if first == "been" and words[1].lower() in _IT_HAS_BEEN:
        return sentence  # "Been a crazy few days": the dropped subject was "it"
    if first in _DROPPED_OPENERS:
        return f"{_DROPPED_OPENERS[first]} {sentence.split(maxsplit=1)[1]}"
    if re.search(r"\b(?:me|myself)\b", " ".join(words[:3]), re.IGNORECASE):
        return sentence  # "Really made me think": the dropped subject was "it", not "I"
    adverb = first in _OPENING_ADVERBS
    verb = (words[1] if adverb else words[0]).lower().strip(",")
    after = (words[2] if adverb else words[1]).lower()
    if adverb and verb.endswith("ing") and len(verb) > 5:
        return f"I'm {first} {sentence.split(maxsplit=1)[1]}"  # "Still following my passion"
    past = (verb in _PAST and verb not in _AMBIGUOUS_PAST) or (
        verb.endswith("ed") and len(verb) > 3 and verb not in _NOT_PAST and after not in _FEELING_AFTER)
    if past or (verb in ("love", "had") and after not in ("it", "that", "this", "you", "your")):
        return "I " + sentence[:1].lower() + sentence[1:]
    return sentence

