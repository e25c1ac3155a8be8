"""`tablebuzz show`: the scoreboard and the desk (docs/show.md)."""
