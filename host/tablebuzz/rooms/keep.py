"""The hub's disk store (docs/rooms.md "The hub survives a restart"): what the hub received, in
one SQLite file (the standard library's sqlite3), so that a hub killed and started again shows
the same rooms, standings, QBJ and export.

Tables:
- `messages(id, topic, payload, received)`: every `events` and `records` message that changed
  the hub's state (a duplicate is not kept), in the order received;
- `latest(topic, payload, received)`: the latest `view` and `status` of each room;
- `problems(id, room, topic, why, at)`: the messages set aside;
- `settings(key, value)`: the hub's secret (tablebuzz.rooms.logins), drawn on first use.

The hub writes a message here before paho acknowledges it to the broker (the PUBACK goes when
`on_message` returns), so a message the broker counts as delivered is on disk: a SIGKILL of the
hub loses nothing the broker will not send again (its kept session). Each message is its own
transaction in WAL mode with `synchronous=NORMAL`: it survives the process being killed; a power
cut of the computer may lose the last ones (the broker's session sends them again, Mosquitto's
persistence permitting). `restore(state)` folds everything back into a new HubState.
"""

import sqlite3
from pathlib import Path

SCHEMA = """
create table if not exists messages (id integer primary key, topic text not null,
    payload blob not null, received real not null);
create table if not exists latest (topic text primary key, payload blob not null,
    received real not null);
create table if not exists problems (id integer primary key, room text, topic text,
    why text not null, at real);
create table if not exists settings (key text primary key, value text not null);
"""


class StoreError(OSError):
    """A store file that cannot be opened or is not a hub's store (the message names it)."""


class HubStore:
    """The store at `path` (created with its folder). Raises StoreError. Thread safety: the
    hub calls it under its own lock."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("pragma journal_mode=wal")
            self.db.execute("pragma synchronous=normal")
            self.db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise StoreError("the hub's store %s: %s" % (self.path, e)) from None

    def secret(self):
        """The hub's secret (hex): the one kept here, drawn and kept the first time."""
        from tablebuzz.rooms import logins

        row = self.db.execute("select value from settings where key = 'secret'").fetchone()
        if row is not None:
            return row[0]
        value = logins.new_secret()
        self.db.execute("insert into settings values ('secret', ?)", (value,))
        return value

    def keep(self, kind, topic, payload, now):
        """One message that changed the state (HubState.keep); `now`: time.time(). Raises
        StoreError when SQLite cannot write it (a full disk: SQLITE_FULL, a read-only file)."""
        try:
            if kind in ("view", "status"):
                self.db.execute("insert or replace into latest values (?, ?, ?)",
                                (topic, payload, now))
            else:
                self.db.execute("insert into messages (topic, payload, received) "
                                "values (?, ?, ?)", (topic, payload, now))
        except sqlite3.Error as e:
            raise StoreError("the hub's store %s: %s" % (self.path, e)) from None

    def keep_problem(self, problem):
        """One message set aside (HubState.keep_problem). Raises StoreError as `keep` does."""
        try:
            self.db.execute("insert into problems (room, topic, why, at) values (?, ?, ?, ?)",
                            (problem["room"], problem["topic"], problem["why"], problem["at"]))
        except sqlite3.Error as e:
            raise StoreError("the hub's store %s: %s" % (self.path, e)) from None

    def restore(self, state, problems=50):
        """Fold every kept message into `state` (a new HubState, its keep hooks unset) and give
        it the latest `problems` set aside. Returns the number of messages folded. The messages
        passed the hub's checks when they came: their schema is not run again (a restart of a
        tournament's hub reads tens of thousands)."""
        count = 0
        for query in ("select topic, payload, received from messages order by id",
                      "select topic, payload, received from latest"):
            for topic, payload, received in self.db.execute(query):
                state.apply(topic, bytes(payload), received, checked_before=True)
                count += 1
        rows = self.db.execute("select room, topic, why, at from problems order by id desc "
                               "limit ?", (problems,)).fetchall()
        state.problems = [{"room": r, "topic": t, "why": w, "at": a}
                          for r, t, w, a in reversed(rows)]
        return count

    def close(self):
        self.db.close()
