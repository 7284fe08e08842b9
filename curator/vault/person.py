"""What memories call the person when a chat file stores only a role ("user") for them.

Most clients (Jan, LM Studio, Ollama, ChatGPT exports, Claude Code, text-generation-webui)
save no name for the person. Their statements are memories all the same, and a memory needs
a subject: the setting ``person.name`` when set, else the account's full name, else
"the user". Only the account's *full* name counts: a login name ("root", "alex99") would read
as a made-up name in every memory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

FALLBACK = "the user"


def account_full_name() -> str:
    """The full name the operating system keeps for this account ("" when there is none)."""
    try:
        import pwd
    except ImportError:  # Windows keeps no full name where the standard library can read it
        return ""
    try:
        entry = pwd.getpwuid(os.getuid())
    except (KeyError, OSError):
        return ""
    full = " ".join(entry.pw_gecos.split(",")[0].split())
    if not full or full.casefold() in {entry.pw_name.casefold(), "root", "user", "admin"}:
        return ""
    return full


def person_name(settings: Mapping[str, Any] | Any) -> str:
    """The name memories use for the person (the setting, else the account's full name, else a role)."""
    try:
        chosen = " ".join(str(settings["person.name"] or "").split())
    except (KeyError, TypeError):
        chosen = ""
    return chosen or account_full_name() or FALLBACK
