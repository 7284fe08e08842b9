"""Qt item models adapting engine collections (``ItemRole`` carries the engine object)."""
