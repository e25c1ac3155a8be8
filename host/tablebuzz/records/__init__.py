"""Records of the games played: the JSON-lines game files (`store`), a board's journal turned back
into events (`journal_replay`), and a quiz's record as a quizbowl Match (`qbj`)."""
