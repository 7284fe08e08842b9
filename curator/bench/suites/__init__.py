"""One module per suite; each exposes ``NAME`` and ``run(ctx) -> SuiteOutcome``."""
