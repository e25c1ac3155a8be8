"""The six games played whole with the journal on, and what a resume must give back (test helpers).

`GAMES` names one full scripted game of each kind (the same scripts the game tests play);
`play(name)` runs one on the simulated flash and returns the Simulation with every save it made;
`fingerprint(referee)` is what a resumed board must equal: the game, its seed, its log (the state
is a fold of it), the tie-break generator and the state a host sees.
"""

import json
from pathlib import Path

from helpers import CONTROLS, timeline
from scripts import difference_game
from scripts_deglingo import TIMER_S, multi_game
from scripts_diddly import diddly_game
from scripts_evidence import evidence_game
from tablebuzz.sim import runner
from tablebuzz.sim.flashfs import FlashFS
from tablebuzz.sim.timeline import parse

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _games():
    return {
        "quiz": ({"seed": "abc123", "players": 6}, (EXAMPLES / "quiz_demo.jsonl").read_text()),
        "difference": ({"seed": "d1ff", "players": 3}, timeline(*difference_game(3)[0])),
        "deglingo": (
            {"seed": "d61", "players": 3, "options": {"timer": TIMER_S}},
            timeline(*multi_game(3)[0]),
        ),
        "redblack": ({"seed": "2b", "players": 2}, (EXAMPLES / "redblack_2p.jsonl").read_text()),
        "diddly": (
            {"seed": "d1dd", "players": 2, "options": {"columns": 3}},
            timeline(*diddly_game(2)[0]),
        ),
        "evidence": ({"seed": "2", "players": 2}, timeline(*evidence_game(2)[0])),
    }


GAMES = _games()


LONG_QUIZ_PLAYERS = 6


def long_quiz(questions):
    """A quiz timeline of `questions` questions: each armed, raced by two stations 20-26 µs
    apart, judged (every third one wrong first, then right)."""
    lines = []
    t = 200_000
    for i in range(questions):
        first, second = 1 + i % LONG_QUIZ_PLAYERS, 1 + (i + 1) % LONG_QUIZ_PLAYERS
        lines.append({"at_us": t, "send": {"cmd": "arm"}})
        lines.append({"at_us": t + 100_000, "press": first})
        lines.append({"at_us": t + 100_020 + i % 7, "press": second})
        lines.append({"at_us": t + 180_000, "release": first})
        lines.append({"at_us": t + 180_000, "release": second})
        lines.append({"at_us": t + 250_000, "send": {"cmd": "judge", "correct": i % 3 != 0}})
        if i % 3 == 0:
            lines.append({"at_us": t + 300_000, "send": {"cmd": "judge", "correct": True}})
        t += 400_000
    return "\n".join(json.dumps(line) for line in lines)


def play_long_quiz(questions, fs=None, false_starts=False):
    """The flash after a long quiz (`false_start_quiz` when `false_starts`), and the board's
    last `score` line."""
    fs = fs if fs is not None else FlashFS()
    head = {"seed": "ab12", "game": "quiz", "players": LONG_QUIZ_PLAYERS, "flash": {},
            "options": {"questions": 0, "target": 0}}
    out = []
    text = false_start_quiz(questions) if false_starts else long_quiz(questions)
    runner.Simulation(head, lambda t, line: out.append(line), fs=fs).run(
        parse(text, LONG_QUIZ_PLAYERS, CONTROLS)
    )
    scores = [line for line in out if line.startswith('{"ev":"score"')]
    return fs, json.loads(scores[-1])


def header(name, script=None):
    """The simulator's header for game `name`'s script (`script`: (head, timeline text), GAMES'
    by default)."""
    head, _ = script or GAMES[name]
    out = {"seed": head["seed"], "game": name, "players": head["players"], "flash": {}}
    out["options"] = head.get("options", {})
    return out


def records(name, script=None):
    head, text = script or GAMES[name]
    return parse(text, head["players"], CONTROLS)


def fingerprint(referee):
    """None in the menu or after the game; else what must survive a power cut exactly."""
    game = referee.game
    if game is None or game.phase == "over":
        return None
    state = dict(referee._state_fields())  # with who is locked out, and until when:
    state["lockouts"] = referee.arbiter.lockouts()
    return (
        game.name,
        game.players,
        sorted(game.options.items()),
        referee.seed,
        list(game.log),
        (game.base_len, game.base, game.next_base),  # the checkpoints the log continues from
        list(referee.arbiter.prng.state()),
        sorted(state.items()),
    )


def kept(referee):
    """What a journal holds of an unfinished game: (name, log, seed); None otherwise."""
    game = referee.game
    if game is None or game.phase == "over":
        return None
    return (game.name, list(game.log), referee.seed)


def kept_in(saved):
    """The same for a refbox.journal.Saved read from a file."""
    return (saved.game, list(saved.log), saved.seed) if saved.resumable() else None


class Played:
    """One whole game on the simulated flash: `fs` (with the files after every operation),
    `saves` [(first op, last op, fingerprint after)], `lines` the device wrote. `script`:
    (head, timeline text) instead of GAMES[name]."""

    def __init__(self, name, probe=None, fs=None, script=None):
        self.name = name
        self.fs = fs if fs is not None else FlashFS()
        if fs is None:
            self.fs.history = []
        self.lines = []
        self.saves = []
        self.kept = [None]  # kept(referee) at every save, for journals read back from disk
        self.sim = runner.Simulation(
            header(name, script), lambda t, line: self.lines.append((t, line)), fs=self.fs
        )
        journal = self.sim.app.journal
        real = journal.sync

        def sync(referee, now):
            before = getattr(self.fs, "ops", 0)
            wrote = real(referee, now)
            if wrote:
                after = getattr(self.fs, "ops", 0)
                self.saves.append((before + 1, after, fingerprint(referee)))
                self.kept.append(kept(referee))
            return wrote

        journal.sync = sync
        if probe is not None:
            self.fs.probe = lambda: probe(self.sim)
        self.sim.run(records(name, script))

    def allowed(self, k):
        """The fingerprints a boot may show after a cut following op `k`: the state of the last
        save finished by then, or of the save op k + 1 belonged to."""
        allowed = [None]  # before the first save: nothing to resume
        for first, last, fp in self.saves:
            if last <= k:
                allowed = [fp]
            elif first <= k + 1:
                return allowed + [fp]
        return allowed


def boot(files):
    """A board powered up on flash holding `files`: (Simulation, lines it wrote)."""
    fs = FlashFS()
    fs.files = dict(files)
    lines = []
    sim = runner.Simulation(
        {"seed": "b007", "flash": {}}, lambda t, line: lines.append(line), fs=fs
    )
    return sim, lines


def false_start_quiz(questions, players=LONG_QUIZ_PLAYERS):
    """A quiz timeline of `questions` questions, each with a false start (a press before ARM:
    a lockout entry in the log), then a race of two stations 20-26 µs apart, judged (every third
    one wrong first, then another station buzzes in and is right). 1.3 s a question."""
    lines = []
    t = 200_000
    for i in range(questions):
        early = 1 + (i + 2) % players
        first, second = 1 + i % players, 1 + (i + 1) % players
        lines.append({"at_us": t, "press": early})
        lines.append({"at_us": t + 30_000, "release": early})
        lines.append({"at_us": t + 100_000, "send": {"cmd": "arm"}})
        lines.append({"at_us": t + 400_000, "press": first})
        lines.append({"at_us": t + 400_020 + i % 7, "press": second})
        lines.append({"at_us": t + 480_000, "release": first})
        lines.append({"at_us": t + 480_000, "release": second})
        lines.append({"at_us": t + 500_000, "send": {"cmd": "judge", "correct": i % 3 != 0}})
        if i % 3 == 0:
            lines.append({"at_us": t + 900_000, "press": second})
            lines.append({"at_us": t + 950_000, "release": second})
            lines.append({"at_us": t + 1_000_000, "send": {"cmd": "judge", "correct": True}})
        t += 1_300_000
    return "\n".join(json.dumps(line) for line in lines)


def with_cut(text, at_us, undos=0, off_us=500_000, shift_us=2_000_000):
    """Timeline `text` with the power cut at `at_us` and back `off_us` later, what came after
    the cut played `shift_us` later (after the boot), then `undos` undo commands 0.3 s apart."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    out = [line for line in lines if line["at_us"] < at_us]
    out.append({"at_us": at_us, "power": "off"})
    out.append({"at_us": at_us + off_us, "power": "on"})
    out += [dict(line, at_us=line["at_us"] + shift_us) for line in lines if line["at_us"] >= at_us]
    t = out[-1]["at_us"] + 500_000
    for i in range(undos):
        out.append({"at_us": t + i * 300_000, "send": {"cmd": "undo"}})
    return "\n".join(json.dumps(line) for line in out)
