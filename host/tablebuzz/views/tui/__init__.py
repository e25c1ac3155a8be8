"""The terminal screens: the interactive simulator (`simulator`: `tablebuzz sim`, `tui --sim`) and
a real board's screen (`board`: `tablebuzz tui --port`), built from the same widgets (`widgets`)
and ended with their terminal (`terminal`)."""
