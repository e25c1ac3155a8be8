"""`tablebuzz monitor`: the board's events as they come, and commands typed on stdin.

Events go to stdout, as compact JSON lines (the default: pipe them into other tools) or, with
`--pretty`, as the host's readable sentences (tablebuzz.views.eventlog). Everything that is not an
event goes to stderr: console text from the board ("# ..." notices) and the link's own news
("tablebuzz: ..."). The board is reached through the connection layer (tablebuzz.link.connection):
a board that is unplugged is waited for and resynced when it comes back; a port where nothing
answers is reported after 3 s. A port that cannot be opened at all on the first try ends the
monitor with one line and exit status 2.

Commands (one a line on stdin; see `parse_command`): a JSON object as the protocol has it, or
the short forms `hello`, `state`, `arm`, `undo`, `end`, `menu`, `judge yes|no`,
`new GAME [PLAYERS] [OPTIONS-JSON]`, `control NAME`, `act ACTION [key=value ...]`.
"""

import json
import os
import signal
import sys
import threading

from tablebuzz.link.connection import BoardConnection
from tablebuzz.link.serial_link import LinkError
from tablebuzz.views.eventlog import Narrator

SIMPLE = ("hello", "state", "arm", "undo", "end", "menu")
JUDGE_WORDS = {"yes": True, "correct": True, "y": True, "no": False, "wrong": False, "n": False}


class CommandError(ValueError):
    """A typed command that is not one: the message says how to write it."""


def _value(text):
    """key=value values: integers, true/false, null, else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_command(text):
    """The command dict for one typed line (see the module doc). Raises CommandError."""
    text = text.strip()
    if text.startswith("{"):
        try:
            cmd = json.loads(text)
        except ValueError as e:
            raise CommandError("not JSON: %s" % e) from None
        if not isinstance(cmd, dict) or "cmd" not in cmd:
            raise CommandError('a JSON command is an object with a "cmd" field')
        return cmd
    words = text.split()
    if not words:
        raise CommandError("empty command")
    name, rest = words[0].lower(), words[1:]
    if name in SIMPLE and not rest:
        return {"cmd": name}
    if name == "judge" and len(rest) == 1 and rest[0].lower() in JUDGE_WORDS:
        return {"cmd": "judge", "correct": JUDGE_WORDS[rest[0].lower()]}
    if name in ("new", "new_game") and rest:
        cmd = {"cmd": "new_game", "game": rest[0]}
        if len(rest) > 1:
            if not rest[1].isdigit():
                raise CommandError("players is a number: new GAME [PLAYERS] [OPTIONS-JSON]")
            cmd["players"] = int(rest[1])
        if len(rest) > 2:
            options = _value(" ".join(rest[2:]))
            if not isinstance(options, dict):
                raise CommandError('options are a JSON object, e.g. {"false_start": 500}')
            cmd["options"] = options
        return cmd
    if name == "control" and len(rest) == 1:
        return {"cmd": "control", "name": rest[0].lower()}
    if name == "act" and rest:
        cmd = {"cmd": "act", "action": rest[0]}
        for word in rest[1:]:
            key, eq, val = word.partition("=")
            if not eq or not key:
                raise CommandError("act fields are key=value, e.g. act give player=2 value=3")
            cmd[key] = _value(val)
        return cmd
    raise CommandError(
        "unknown command %r: type a JSON command, or hello, state, arm, undo, end, menu, "
        "judge yes|no, new GAME [PLAYERS] [OPTIONS], control NAME, act ACTION [key=value ...]"
        % text[:40]
    )


def _read_commands(link, stdin, err):
    for line in stdin:
        if not line.strip():
            continue
        try:
            link.send(parse_command(line))
        except (CommandError, LinkError) as e:
            err.write("tablebuzz: %s\n" % e)
            err.flush()


def run(link, out, err, pretty=False, stdin=None, stop=None):
    """Print what `link` (a started Connection) brings until `stop()` is true (or forever).

    Returns 0, or 2 after a fatal status (printed as one line on `err`).
    """
    narrator = Narrator()
    if stdin is not None:
        threading.Thread(target=_read_commands, args=(link, stdin, err), daemon=True).start()
    while stop is None or not stop():
        for item in link.wait(0.2):
            if item.kind == "event":
                text = narrator.line(item.event) if pretty else json.dumps(
                    item.event, separators=(",", ":"), ensure_ascii=False)
                out.write(text + "\n")
                out.flush()
            elif item.kind == "notice":
                err.write("# %s\n" % item.text)
                err.flush()
            else:
                text = item.text
                if text.startswith("connected to the board on "):
                    text = "monitoring %s (Ctrl-C to stop; type commands to send them)" % (
                        text[len("connected to the board on "):])
                err.write("tablebuzz: %s\n" % text)
                err.flush()
                if item.fatal:
                    return 2
    return 0


def cmd_monitor(args):
    """`tablebuzz monitor [--port P] [--pretty]`: events until Ctrl-C; exit 0, or 2 when the
    port cannot be opened at first."""
    # Ctrl-C must stop the monitor even when started from a shell that ignores SIGINT
    # (a background job): restore Python's own handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    link = BoardConnection(args.port, first_failure_fatal=True)
    link.start()
    stdin = None if sys.stdin is None or sys.stdin.closed else sys.stdin
    try:
        return run(link, sys.stdout, sys.stderr, getattr(args, "pretty", False), stdin)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `tablebuzz monitor | head`: the reader left; exit quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        link.close()
