"""The consolidation cycle (seed 001): five phases, reviewed as one unit, applied atomically.

Modules: ``scope`` (what a cycle may read), ``budget`` (token allocations and chunking),
``decay`` (decay-scores.json), ``phases`` (the five model phases), ``operations`` (the
six operations and their gates), ``core_memory`` (MEMORY.md), ``summary``
(pending-reflection.md), ``logs`` (evolution.md, reflection-log.md), ``graph`` (graph and
procedure files), ``record`` (a proposed cycle on disk), ``apply`` (all-or-nothing apply,
undo steps, git commit), ``runner`` (one cycle end to end).
"""
