"""What people look at, drawn only from what the device sends: the scoreboard and the desk
(`show`: server and static pages), the terminal screens (`tui`), the monitor, the one folded view
of the room (`table`, in pieces by job: `race`, `scores`, and one module a game under `games`),
readable sentences (`eventlog`, of the words in `words`; each game's own in its module), the
words of the games' options (`describe`), the photo finish (`photo`) and the desk's question
packet (`packet`)."""
