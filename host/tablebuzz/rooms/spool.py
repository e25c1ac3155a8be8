"""A room's outgoing messages, kept on disk until the broker has acknowledged them.

One append-only JSON-lines file. Its first line names the spool: `{"spool": "tablebuzz-rooms",
"version": 1, "run": "<16 hex>"}`; `run` is drawn once, when the file is made, and stays with it,
so a room restarted on the same spool goes on numbering where it stopped. Then:
- `{"seq": n, "topic": "...", "payload": "...", "retain": false}`: a message to send (n = 1, 2, ...
  with no gaps);
- `{"acked": n}`: every message up to n is in the hub's store (the hub's `ack` topic,
  tablebuzz.rooms.publisher).

Each line is flushed as written (a crash of the host process loses nothing written; `fsync=True`
also survives a power cut of the computer, at a cost of a disk sync per line). A torn last line
is ignored when the file is read back. `compact()` rewrites the file with only the messages not
yet acknowledged, when at least `COMPACT_AFTER` lines could go.

Thread safety: every method takes the spool's lock (the room's loop appends, the MQTT thread
acknowledges).
"""

import bisect
import json
import os
import secrets
import threading
from pathlib import Path

SPOOL_KIND = "tablebuzz-rooms"
COMPACT_AFTER = 5000  # acknowledged lines before the file is rewritten


class SpoolError(ValueError):
    """A file that is not a rooms spool (the message names it)."""


class Spool:
    """The disk spool at `path` (created with its folder when missing). Raises SpoolError for a
    file that is something else, OSError when it cannot be written."""

    def __init__(self, path, fsync=False):
        self.path = Path(path)
        self.fsync = fsync
        self._lock = threading.Lock()
        self.pending = []  # [(seq, topic, payload, retain)] not yet acknowledged, in order
        self.acked = 0
        self.last_seq = 0
        self._dead_lines = 0
        self.run = None
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.run = secrets.token_hex(8)
            self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - kept open
            self._write({"spool": SPOOL_KIND, "version": 1, "run": self.run})

    def _load(self):
        with open(self.path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        try:
            head = json.loads(lines[0])
        except ValueError:
            head = None
        if not isinstance(head, dict) or head.get("spool") != SPOOL_KIND or \
                not isinstance(head.get("run"), str):
            raise SpoolError("%s is not a tablebuzz rooms spool (its first line)" % self.path)
        self.run = head["run"]
        messages = {}
        for text in lines[1:]:
            try:
                obj = json.loads(text)
            except ValueError:
                continue  # a torn last line (a crash mid-write): the message was never sent
            if not isinstance(obj, dict):
                continue
            if isinstance(obj.get("seq"), int):
                messages[obj["seq"]] = (obj["seq"], obj["topic"], obj["payload"],
                                        bool(obj.get("retain")))
                self.last_seq = max(self.last_seq, obj["seq"])
            elif isinstance(obj.get("acked"), int):
                self.acked = max(self.acked, obj["acked"])
        self.last_seq = max(self.last_seq, self.acked)  # a compacted spool with nothing pending
        self.pending = [messages[s] for s in sorted(messages) if s > self.acked]
        self._dead_lines = len(messages) - len(self.pending)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open

    def _write(self, obj):
        self._file.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def append(self, topic, payload, retain=False):
        """Keep one message (payload: str); returns its seq (1, 2, ...)."""
        with self._lock:
            self.last_seq += 1
            seq = self.last_seq
            self._write({"seq": seq, "topic": topic, "payload": payload, "retain": retain})
            self.pending.append((seq, topic, payload, retain))
            return seq

    def next_seq(self):
        """The seq the next `append` will get (a message may carry its own seq)."""
        with self._lock:
            return self.last_seq + 1

    def ack(self, upto):
        """Every message up to `upto` is in the hub's store: forget them."""
        with self._lock:
            if upto <= self.acked:
                return
            self.acked = upto
            before = len(self.pending)
            self.pending = [m for m in self.pending if m[0] > upto]
            self._dead_lines += before - len(self.pending)
            self._write({"acked": upto})
            if self._dead_lines >= COMPACT_AFTER:
                self._compact()

    def unsent_after(self, seq, limit):
        """Up to `limit` unacknowledged messages with a seq above `seq`, oldest first."""
        with self._lock:
            i = bisect.bisect_right(self.pending, (seq, "\uffff"))
            return self.pending[i:i + limit]

    def unsent(self):
        """[(seq, topic, payload, retain)]: the messages not yet acknowledged, oldest first."""
        with self._lock:
            return list(self.pending)

    def compact(self):
        with self._lock:
            self._compact()

    def _compact(self):
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps({"spool": SPOOL_KIND, "version": 1, "run": self.run}) + "\n")
            f.write(json.dumps({"acked": self.acked}) + "\n")
            for seq, topic, payload, retain in self.pending:
                f.write(json.dumps({"seq": seq, "topic": topic, "payload": payload,
                                    "retain": retain}, ensure_ascii=False,
                                   separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self._file.close()
        os.replace(tmp, self.path)
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open
        self._dead_lines = 0

    def close(self):
        with self._lock:
            self._file.close()
