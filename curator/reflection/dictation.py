"""English said into a microphone: one long run of clauses with no stop or comma inside.

"ok so um i'm in manchester and i just started a new job at a bakery last month i work early
shifts from 5 till 1 and honestly i'm knackered all the time what can i eat before a shift" is
four sentences said without a pause. Read as one, its memory was the whole run retold, question
and all. Its parts are found where a new clause plainly begins: "and"/"but"/"so" before the
speaker ("and i just started"), a subject right after a word of time ("last month i work", "in
december she's vegan"), and a question ("what can i eat ..."). Each part is a span of the
turn's words, so a quote of it is still the person's own.

Only a run typed the way such speech is, with a lower-case "i" and no capital one: a long written
sentence ("Jon has been into dancing since he was a kid and it's been his passion and escape")
is left whole.
"""

from __future__ import annotations

import itertools
import re

RUN_ON_WORDS = 16  # shorter sentences are read as written
MIN_PART = 3  # words of a part at least ("i'm in manchester")

_INNER_MARK = re.compile(r"[,;:!?.]\s")
_LOWER_I = re.compile(r"(?<![\w'’])i(?:['’]?(?:m|ve|d|ll))?(?![\w'’])")
_CAPITAL_I = re.compile(r"(?<![\w'’])I(?:['’](?:m|ve|d|ll))?(?![\w'’])")
_JOINS = frozenset(["and", "but", "so"])
# "and" before the speaker: "... in manchester and i just started ...". Before anyone else it
# goes on about the same thing ("i love tomatoes but my husband is on blood thinners so he has to
# watch the greens"), and stays one sentence.
_SUBJECTS = frozenset(["i", "i'm", "im", "i've", "ive", "i'd", "i'll"])
JOINED_AFTER = 6  # words since the last cut before an "and i" opens a clause ("my wife does bedtime and i do naps")
_OWN_CLAUSE = frozenset(["i", "i'm", "im", "i've", "ive", "she's", "he's", "we're"])
# Said between the joining word and the subject: "and honestly i'm knackered".
_BETWEEN = frozenset(["honestly", "also", "now", "then", "yeah", "like", "um", "uh", "basically", "actually",
                      "obviously", "tbh", "anyway"])
# A clause that ends on a time ("last month", "in december", "from 5 till 1") leaves the next
# subject opening a clause of its own; after a noun it would often be a relative clause ("the
# bakery i work at"), which is left whole.
_TIME = frozenset(["today", "yesterday", "tonight", "tomorrow", "week", "weeks", "month", "months", "year", "years",
                   "ago", "now", "morning", "mornings", "night", "nights", "weekend", "weekends", "lol", "haha",
                   "anyway", "january", "february", "march", "april", "may", "june", "july", "august",
                   "september", "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
                   "friday", "saturday", "sunday", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays",
                   "saturdays", "sundays"])
_ASKS = re.compile(r"^(?:what|how|where|why|which)\s+(?:can|could|should|would|do|does|did|is|are|will)\s+"
                   r"(?:i|you|we)\b|^(?:can|could|would|should|do|does)\s+(?:you|i|we)\b", re.IGNORECASE)
# Words after which a question word opens a clause inside the sentence ("i know what i want").
_HOLDS_A_CLAUSE = frozenset(["know", "knew", "wonder", "wondering", "see", "ask", "asked", "tell", "told", "is",
                             "that's", "thats", "was", "about", "on", "of", "exactly", "matter", "sure", "idea"])


def _bare(word: str) -> str:
    return word.casefold().replace("’", "'").strip(".!?\"'()")


def run_on_parts(sentence: str) -> list[str]:
    """``sentence`` in the clauses it was said in, when it is a long run with no mark inside
    (see the module's note); else ``[sentence]``."""
    words = sentence.split()
    if (len(words) < RUN_ON_WORDS or _INNER_MARK.search(sentence.rstrip(" .!?"))
            or not _LOWER_I.search(sentence) or _CAPITAL_I.search(sentence)):
        return [sentence]
    cuts = [0]
    for i in range(MIN_PART, len(words) - MIN_PART + 1):
        if i - cuts[-1] < MIN_PART:
            continue
        word, before = _bare(words[i]), _bare(words[i - 1])
        if word in _JOINS:
            j = i + 1
            while j < len(words) and _bare(words[j]) in _BETWEEN:
                j += 1
            opens = i - cuts[-1] >= JOINED_AFTER and j < len(words) and _bare(words[j]) in _SUBJECTS
        elif word in _OWN_CLAUSE:
            opens = before in _TIME or before.isdigit()
        else:
            opens = before not in _HOLDS_A_CLAUSE and _ASKS.match(" ".join(words[i:i + 3])) is not None
        if opens:
            cuts.append(i)
    if len(cuts) == 1:
        return [sentence]
    bounds = [*cuts, len(words)]
    return [" ".join(words[a:b]) for a, b in itertools.pairwise(bounds)]
