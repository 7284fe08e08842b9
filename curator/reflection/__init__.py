"""Reflection: turning conversations into staged, gated, reviewable memories (seeds 000, 002, 003).

The modules here never talk to a model, the index or a GUI directly: they depend on the small
Protocols in :mod:`curator.reflection.ports`, so each piece is testable with fakes and wired to
the real runtime by the engine.
"""
