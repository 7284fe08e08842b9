"""The trust scopes of a memory, from least to most trusted (seed 004 §10): new, user, global.

A module of its own so that the window's search filters name them without loading the
document format (YAML front matter).
"""

SCOPES = ("new", "user", "global")
