"""evolution.md and reflection-log.md stay within the seed's caps; MEMORY.md's rules."""

from __future__ import annotations

from curator.reflection.cycle import core_memory
from curator.reflection.cycle.budget import approx_tokens
from curator.reflection.cycle.logs import (
    EVOLUTION_CAP,
    Evolution,
    EvolutionEntry,
    full_entries,
    log_entry,
    milestone,
    update_evolution,
    update_log,
)


def entry(n: int) -> EvolutionEntry:
    return EvolutionEntry(n, f"2026-01-{1 + n % 28:02d}", n, n // 3, 40, f"Insight number {n} about routines",
                          f"understanding {n}", f"pattern {n}", f"assumption {n}", f"Reflection #{n - 1}",
                          f"thread {n}", milestone(n))


def test_sixty_cycles_keep_evolution_under_cap_and_log_at_twenty_full() -> None:
    evo, evo_archive, log, log_archive = "", "", "", ""
    for n in range(1, 61):
        evo, evo_archive = update_evolution(evo, evo_archive, entry(n), approx_tokens)
        log, log_archive = update_log(log, log_archive, log_entry(n, "2026-01-01", "approved", f"insight {n}",
                                                                  f"- EXTRACT: fact {n}\n- Tokens: 10 in"), n)
        assert approx_tokens(evo) <= EVOLUTION_CAP
    parsed = Evolution.parse(evo)
    assert [n for n, _ in parsed.entries] == list(range(51, 61))
    assert parsed.total == 60 and parsed.milestones == [10, 25, 50]
    # Ten full entries keep the file near its cap: every list is held at the bottom of its range.
    assert {k: len(v) for k, v in parsed.lists.items()} == {
        "Active Threads": 3, "Confirmed Patterns": 5, "Revised Assumptions": 5, "Open Questions": 0}
    assert "## Reflection #1 —" in evo_archive and "## Reflection #50 —" in evo_archive
    assert full_entries(log) == 20
    assert "- #1-10: archived" in log
    assert '## Reflection #11 — 2026-01-01 | approved | Insight: "insight 11"' in log
    assert "## Reflection #40 — 2026-01-01 | approved | Insight: \"insight 40\"\n" in log
    assert "- EXTRACT: fact 40" not in log and "- EXTRACT: fact 40" in log_archive
    assert "- EXTRACT: fact 41" in log


def test_log_keeps_every_entry_in_full_up_to_fifty() -> None:
    log, archive = "", ""
    for n in range(1, 51):
        log, archive = update_log(log, archive, log_entry(n, "2026-01-01", "approved", "x", "- body"), n)
    assert full_entries(log) == 50 and archive == ""


def test_evolution_over_cap_moves_whole_entries_to_the_archive() -> None:
    evo, archive = "", ""
    long = "word " * 300
    for n in range(1, 6):
        big = EvolutionEntry(n, "2026-01-01", 1, 1, 10, long, "", "", "", "", "")
        evo, archive = update_evolution(evo, archive, big, approx_tokens)
    assert approx_tokens(evo) <= EVOLUTION_CAP
    assert [n for n, _ in Evolution.parse(evo).entries] == [3, 4, 5]  # ~500 tokens each
    assert archive.count("## Reflection #") == 2


def test_milestones_are_the_seeds() -> None:
    assert [n for n in range(1, 101) if milestone(n)] == [10, 25, 50, 100]


def count_words(text: str) -> int:
    return len(text.split())


def test_memory_md_four_sections_pinned_verbatim_and_cap() -> None:
    current = "# Core memory\n\n## Critical Facts\n- 📌 Maya is allergic to peanuts.\n- Maya lives in Leeds.\n"
    proposed = {"identity": ["Maya is a nurse"], "active_context": ["Maya plans a trip to Lisbon"] * 2,
                "persona": ["Maya owns a yacht"], "critical_facts": ["Maya is allergic to peanuts"]}
    support = "Maya is a nurse. Maya plans a trip to Lisbon. Maya is allergic to peanuts."
    rewrite = core_memory.build(current, proposed, support, ["Maya is vegetarian."], count_words)
    assert rewrite.text == (
        "# Core memory\n\n## Identity\n- Maya is a nurse\n\n## Active Context\n- Maya plans a trip to Lisbon\n\n"
        "## Persona\n\n## Critical Facts\n- 📌 Maya is allergic to peanuts.\n- 📌 Maya is vegetarian.\n")
    assert rewrite.unsupported == ["Maya owns a yacht"]
    assert rewrite.demoted == ["Maya lives in Leeds. (not kept by this cycle)"]
    assert "Maya is a nurse" in rewrite.promoted


def test_memory_md_cap_drops_whole_lines_and_says_so() -> None:
    lines = [f"Maya fact number {i} about running" for i in range(120)]
    support = " ".join(lines)
    rewrite = core_memory.build("", {"active_context": lines}, support, [], approx_tokens)
    assert rewrite.tokens <= core_memory.CAP_TOKENS
    assert approx_tokens("\n".join(f"- {x}" for x in rewrite.sections["active_context"])) <= 1_000
    kept = rewrite.sections["active_context"]
    assert kept == sorted(kept, key=lines.index) and len(kept) > 10  # whole lines, in the model's order


def test_lists_grow_to_the_top_of_their_range_and_are_cut_to_its_bottom_at_a_milestone() -> None:
    evo = ""
    small = lambda n: EvolutionEntry(n, "2026-01-01", n, 0, 1, "i", "", f"p{n}", f"a{n}", "", f"t{n}",  # noqa: E731
                                     milestone(n))
    for n in range(1, 10):  # nine ordinary, short entries: far below the token cap
        evo, _archive = update_evolution(evo, "", small(n), approx_tokens)
    sizes = {k: len(v) for k, v in Evolution.parse(evo).lists.items()}
    assert sizes == {"Active Threads": 5, "Confirmed Patterns": 7, "Revised Assumptions": 7, "Open Questions": 0}
    evo, archive = update_evolution(evo, "", small(10), approx_tokens)  # #10 is a milestone
    sizes = {k: len(v) for k, v in Evolution.parse(evo).lists.items()}
    assert sizes == {"Active Threads": 3, "Confirmed Patterns": 5, "Revised Assumptions": 5, "Open Questions": 0}
    assert "(Active Threads) t6" in archive and "(Active Threads) t8" not in archive
