"""The composition root (``root.Engine``) and the parts it delegates to.

``from curator.engine import Engine`` is the way in for the CLI, the GUI, the MCP server and
the benchmarks; lower layers never import this package (import-linter checks it).
"""

from curator.engine.rebuild import ReindexReport
from curator.engine.root import LIFECYCLE_SECONDS, Engine
from curator.engine.source_registry import SourceError, SourceRegistry, make_source_id
from curator.engine.status import SourceStatus

__all__ = ["LIFECYCLE_SECONDS", "Engine", "ReindexReport", "SourceError", "SourceRegistry",
           "SourceStatus", "make_source_id"]
