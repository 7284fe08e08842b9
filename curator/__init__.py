"""Memory Curator engine: sources, vault, index, triggers and reflection. Never imports Qt."""

__version__ = "0.1.0"
