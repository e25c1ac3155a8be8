"""refbox.outbox.Outbox.send, the race line's way out: straight to the console when nothing waits
before it, else in order behind what does; a write the host takes only in part keeps the rest
queued, whole and in order (the same promise as `drain`)."""

from refbox.outbox import Outbox


class Console:
    """A console that takes at most `room` bytes a write (None: all)."""

    def __init__(self, room=None):
        self.room = room
        self.out = b""
        self.writes = 0

    def writable(self):
        return self.room is None or self.room > 0

    def write(self, data, start, end):
        self.writes += 1
        took = end - start if self.room is None else min(self.room, end - start)
        self.out += bytes(data[start : start + took])
        if self.room is not None:
            self.room -= took
        return took


def ticks():
    return 0


def test_an_empty_queue_sends_the_line_in_one_write():
    box, console = Outbox(), Console()
    assert box.send(b'{"ev":"race"}\n', console, ticks) == 14
    assert console.out == b'{"ev":"race"}\n' and console.writes == 1
    assert box.size == 0 and not box.careful


def test_a_line_queued_before_goes_first():
    box, console = Outbox(), Console()
    box.put_line('{"ev":"press"}')
    box.send(b'{"ev":"race"}\n', console, ticks)
    assert console.out == b'{"ev":"press"}\n{"ev":"race"}\n'
    assert box.size == 0


def test_a_short_write_keeps_the_rest_queued_and_whole():
    box, console = Outbox(), Console(room=5)
    assert box.send(b'{"ev":"race"}\n', console, ticks) == 5
    assert box.careful and box.size == 9 and box.waits == 1
    box.put_line('{"ev":"press"}')  # behind the race line's rest
    console.room = None
    while box.size:
        box.flush(console, ticks)
    assert console.out == b'{"ev":"race"}\n{"ev":"press"}\n'
    assert not box.careful


def test_a_host_not_reading_gets_the_line_later():
    box, console = Outbox(), Console(room=0)
    assert box.send(b'{"ev":"race"}\n', console, ticks) == 0
    assert box.size == 14
    console.room = None
    box.flush(console, ticks)
    assert console.out == b'{"ev":"race"}\n'


def test_a_full_queue_counts_the_line_and_says_so():
    box, console = Outbox(), Console(room=0)
    while box.put_line("x" * 500):
        pass
    dropped = box.dropped
    assert box.send(b'{"ev":"race"}\n', console, ticks) == 0
    assert box.dropped == dropped + 1  # not queued: counted for the output_overflow report
