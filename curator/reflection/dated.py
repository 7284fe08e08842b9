"""Facts of the moment ("works nights next week"): which days a memory's relative time means.

A chat says "next week", "tomorrow", "this weekend"; a memory approved from it is read weeks
later, when "next week" means another week. Issue 20 asks for such facts to be left out or
marked as dated. They are marked: a proposal that holds one gets ``dated`` (the words, the day
they were said, the first and last day they mean), the review card says what they mean, and
an approved memory of a moment that has not passed yet comes back as "Still true?" the day
after it ends, instead of after the usual 90 days.

English phrases are written here, weekdays among them; other languages list theirs in their
table (``moments``: ``"nächste woche = next week"``), each naming one of :data:`PERIODS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from curator.reflection.languages import tables

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# The relative times a memory is dated by; :func:`span_of` says which days each means (weeks
# start on Monday). A weekday named alone is the next one ("monday i have a dentist appt"), or
# the last one where the sentence tells of the past ("On Monday the user went to the dentist").
PERIODS = ("today", "tonight", "tomorrow", "yesterday", "this week", "next week", "last week",
           "this weekend", "next weekend", "last weekend", "this month", "next month", "last month",
           *WEEKDAYS, *(f"last {day}" for day in WEEKDAYS))
_PAST = frozenset({"yesterday", "last week", "last weekend", "last month", *(f"last {day}" for day in WEEKDAYS)})

_ENGLISH = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|(?:this|next|last) (?:week(?:end)?|month))\b", re.IGNORECASE)
# "every Monday", "on Mondays" are routines, never one day.
_WEEKDAY = re.compile(rf"(?<!every )(?<!each )\b(?:(this|next|last) )?({'|'.join(WEEKDAYS)})\b(?!s\b|'s\b)",
                      re.IGNORECASE)
# A sentence telling of the past: an irregular past tense, or a regular one after its subject.
_TOLD_OF_PAST = re.compile(r"\b(?:went|was|were|had|did|got|saw|met|made|took|came|left|ate|bought|gave|told|"
                           r"felt|ran|spent|found|lost|won)\b|\b(?:I|we|they|he|she|user)\s+(?:\w+ly\s+)?\w+ed\b",
                           re.IGNORECASE)


@dataclass(frozen=True)
class Moment:
    """A relative time in a memory and the days it meant when it was said."""

    phrase: str  # as the memory says it ("next week")
    period: str  # one of PERIODS
    said_on: date
    first: date
    last: date

    @property
    def passed(self) -> bool:
        """Whether the time it names was already over when it was said ("last week")."""
        return self.period in _PAST

    def describe(self) -> str:
        """What the card says: 'Said on Fri 27 Nov 2026: "next week" is 30 Nov – 6 Dec 2026.'"""
        if self.first == self.last:
            span = _day(self.first)
        elif (self.first.year, self.first.month) == (self.last.year, self.last.month):
            span = f"{self.first.day}–{_day(self.last)}"  # "23–29 Nov 2026"
        else:
            span = f"{_day(self.first, year=False)} – {_day(self.last)}"
        return f"Said on {self.said_on.strftime('%a')} {_day(self.said_on)}: “{self.phrase}” is {span}."

    def as_fields(self) -> dict[str, str]:
        return {"phrase": self.phrase, "period": self.period, "said_on": self.said_on.isoformat(),
                "first": self.first.isoformat(), "last": self.last.isoformat()}


def _day(day: date, *, year: bool = True) -> str:
    return f"{day.day} {day.strftime('%b')}" + (f" {day.year}" if year else "")


def moment_of(text: str, said_at: float) -> Moment | None:
    """The first relative time of ``text`` (English, or a language table's ``moments``), as the
    days it meant on the day of ``said_at`` (epoch seconds, in this machine's time zone)."""
    found = _find(text)
    if found is None:
        return None
    phrase, period = found
    said_on = datetime.fromtimestamp(said_at).date()
    first, last = span_of(period, said_on)
    return Moment(phrase, period, said_on, first, last)


def _find(text: str) -> tuple[str, str] | None:
    match = _ENGLISH.search(text)
    best: tuple[int, str, str] | None = None
    if match is not None:
        best = (match.start(), match.group(0), " ".join(match.group(1).lower().split()))
    day = _WEEKDAY.search(text)
    if day is not None and (best is None or day.start() < best[0]):
        said_which = (day.group(1) or "").lower()  # "next Tuesday" is ahead whatever the tense
        told = said_which == "last" or (not said_which and _TOLD_OF_PAST.search(text) is not None)
        best = (day.start(), day.group(0), ("last " if told else "") + day.group(2).lower())
    folded = text.casefold()
    for table in tables().values():
        for entry in table.lists.get("moments", ()):
            phrase, _, period = (part.strip() for part in entry.partition("="))
            if period not in PERIODS or not phrase:
                continue
            at = _where(folded, phrase, table.spaced)
            if at >= 0 and (best is None or at < best[0]):
                best = (at, text[at:at + len(phrase)], period)
    return (best[1], best[2]) if best is not None else None


def _where(folded: str, phrase: str, spaced: bool) -> int:
    """Where ``phrase`` stands in ``folded`` as whole words (anywhere, in scripts without spaces)."""
    if not spaced:
        return folded.find(phrase)
    match = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", folded)
    return match.start() if match else -1


def span_of(period: str, said_on: date) -> tuple[date, date]:
    """The first and last day ``period`` means on ``said_on``."""
    if period in ("today", "tonight"):
        return said_on, said_on
    if period in ("tomorrow", "yesterday"):
        day = said_on + timedelta(days=1 if period == "tomorrow" else -1)
        return day, day
    weekday = period.split()[-1]
    if weekday in WEEKDAYS:
        ahead = (WEEKDAYS.index(weekday) - said_on.weekday()) % 7
        # The next one, today included; the last one, today left out ("on Monday I went", said
        # on a Monday, is a week ago: today it would say "today").
        day = said_on + timedelta(days=ahead) if not period.startswith("last ") else \
            said_on - timedelta(days=(7 - ahead) % 7 or 7)
        return day, day
    shift = {"this": 0, "next": 1, "last": -1}[period.split()[0]]
    unit = period.split()[1]
    if unit == "month":
        month = said_on.month - 1 + shift
        first = date(said_on.year + month // 12, month % 12 + 1, 1)
        after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        return first, after - timedelta(days=1)
    monday = said_on - timedelta(days=said_on.weekday()) + timedelta(weeks=shift)
    if unit == "weekend":
        return monday + timedelta(days=5), monday + timedelta(days=6)
    return monday, monday + timedelta(days=6)


def moment_ends(dated: object) -> float | None:
    """When the moment of a memory's ``dated`` field is over (the local midnight after its last
    day), or None: no field, or a moment already past when it was said ("last week")."""
    if not isinstance(dated, dict) or dated.get("period") not in PERIODS or dated.get("period") in _PAST:
        return None
    try:
        last = date.fromisoformat(str(dated.get("last")))
    except ValueError:
        return None
    return datetime.combine(last + timedelta(days=1), time()).timestamp()


def described(dated: object, now: float | None = None) -> str:
    """The card's line for a memory's ``dated`` field ("" when it has none or it cannot be read);
    ``now``: the time the card is read, to say when the moment is already over."""
    if not isinstance(dated, dict):
        return ""
    try:
        moment = Moment(str(dated["phrase"]), str(dated["period"]), date.fromisoformat(str(dated["said_on"])),
                        date.fromisoformat(str(dated["first"])), date.fromisoformat(str(dated["last"])))
    except (KeyError, ValueError):
        return ""
    ends = moment_ends(dated)
    if moment.passed:
        after = ""
    elif now is not None and ends is not None and ends <= now:
        after = " That time is over: approve it only if it still says something lasting."
    else:
        after = " Approved, it comes back as “Still true?” once that is over."
    return moment.describe() + after
