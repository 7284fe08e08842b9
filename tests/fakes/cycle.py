"""Scripted answers for the five consolidation-cycle phases (chosen by each prompt's system text)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any


def turn_of(messages: list[dict[str, str]], words: str) -> str:
    """The label of the shown turn whose text contains ``words``."""
    for line in messages[-1]["content"].splitlines():
        match = re.match(r"\[(turn \d+)\] (.*)", line)
        if match and words in match.group(2):
            return match.group(1)
    return "turn 999"


def phase_answers(extra_ops: list[dict[str, Any]] | None = None) -> Callable[[list[dict[str, str]]], str]:
    """One scripted answer per phase, chosen by the prompt's system text."""

    def answer(messages: list[dict[str, str]]) -> str:
        system = messages[0]["content"]
        if system.startswith("You plan a memory consolidation"):
            return json.dumps({"tasks": [{"kind": "extract", "task": "Record that Maya is a night-shift nurse"},
                                         {"kind": "connect", "task": "Connect Maya and her dog Pixel"}]})
        if system.startswith("You review the history"):
            return json.dumps({"insights": ["This is the first reflection, so the picture of Maya is new"],
                               "observations": ["Maya shares practical routines"],
                               "guidance": "Focus on her work and her dog"})
        if system.startswith("You carry out a memory consolidation"):
            nurse = turn_of(messages, "night shifts")
            pixel = turn_of(messages, "Pixel")
            ops = [
                {"operation": "EXTRACT", "evidence": [nurse], "entity": "Maya", "relation": "", "other": "",
                 "content": "Maya works night shifts as a nurse", "reason": "stated by Maya",
                 "evolution_context": ""},
                {"operation": "CONNECT", "evidence": [pixel], "entity": "Maya", "relation": "owns",
                 "other": "Pixel", "content": "Maya has a border collie called Pixel", "reason": "stated",
                 "evolution_context": ""},
                {"operation": "EXTRACT", "evidence": [nurse], "entity": "Maya", "relation": "", "other": "",
                 "content": "Maya flies helicopters for the navy", "reason": "invented", "evolution_context": ""},
                {"operation": "EVOLVE", "evidence": [], "entity": "", "relation": "", "other": "",
                 "content": "The picture of Maya is new", "reason": "first reflection",
                 "evolution_context": "opens the first thread"},
            ] + (extra_ops or [])
            return json.dumps({"operations": ops})
        if system.startswith("You rewrite a core memory"):
            return json.dumps({"identity": ["Maya is a nurse who works night shifts"],
                               "active_context": ["Maya has a border collie called Pixel"],
                               "persona": [], "critical_facts": ["Maya is allergic to peanuts",
                                                                 "Maya owns a yacht in Monaco"]})
        if system.startswith("You write the reflective part"):
            return json.dumps({"learning": "A first reflection sets the baseline.",
                               "understanding": "Maya works nights and cares for Pixel.",
                               "themes": "Work and routines.", "assumptions": "none yet",
                               "questions": ["Does Maya still work night shifts?"]})
        raise AssertionError(f"unexpected prompt: {system[:60]}")

    return answer
