"""Memory Curator's Qt face: thin panes over Qt models that drive the ``curator`` engine.

No business rule lives here; everything a pane does is an engine call run off the GUI thread.
"""
