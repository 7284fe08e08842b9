"""``curator bench``: speed, scale and memory-quality figures, each against a baseline.

Benchmarks are not tests: nothing here runs in the test suite. Every timing is a median
over repeated runs (the machine is shared and noisy), and where a baseline exists it is
measured in the same process, in the same run, so the ratio is what to read.

Modules:
    locomo      reading LoCoMo-format conversations and converting them to generic JSONL
    corpus      larger synthetic corpora made from those turns (or from a word list)
    stats       medians, percentiles, timers
    recall      evidence recall and the rank-bm25 baseline
    report      figures, the table and the JSON document
    suites      one module per suite
    runner      choosing and running suites, quick and full settings
"""
