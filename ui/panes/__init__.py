"""Review, evidence, diff, contradictions, reflections, knowledge and status panes."""
