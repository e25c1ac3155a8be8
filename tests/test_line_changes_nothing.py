"""A line changes nothing but its own answer (issue 19 item 1; docs/protocol.md "Commands").

Whatever line arrives, valid or refused, read-only or not, at whatever moment, the presses, their
order, the races, the lockouts and every deadline come out exactly as in the stream without it.
Proved two ways, on both interpreters:
- the issue's four cases as explicit timelines (a swapped press pair, a valid press made a false
  start, a late buzz beating the quiz's `buzz_s`, a late buzz beating Déglingo's timer);
- every example game (examples/*.jsonl) and every scripted whole game (tests/scripts*.py, as
  tests/journal_games.py plays them) with `state` lines and refused lines (an unknown control
  name, bad JSON, an unknown command) slipped in at every millisecond around each press, release,
  noise pulse and each event the game sent (lockouts and their ends, race decisions, timers, dead
  questions, time-outs: a deadline's event comes 1-2 ms after it, so the window before it holds
  the deadline). The slipped lines' answers removed, the stream must be the stream without them.

`make test` runs a fixed selection: offsets -4..+4 ms around every moment, in two runs per game
(the even and the odd offsets; each run carries hundreds of slipped lines), with a sub-ms phase
that changes from ms to ms, and a third run (-2..+2 ms) in which a 0.5 ms noise closure on an
idle station comes just before every press and every event (in both streams), so that lines
arrive while the press horizon is held back, as in the issue's cases; the MicroPython lane a
smaller fixed set. TABLEBUZZ_SLIP=full runs every offset from -8 to +8 ms alone, at three
sub-ms phases, with and without the noise (several minutes).
"""

import json
import os

import pytest
from helpers import CONTROLS, run_raw, timeline, timeline_records
from journal_games import GAMES as SCRIPTED
from slips import KINDS, answers_removed, first_difference, slip, with_sentinel
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse
from test_errors_change_nothing import EXAMPLES, _example, _head

MS = 1000
FULL = os.environ.get("TABLEBUZZ_SLIP") == "full"
STATE_ONLY = (KINDS[0],)
BOGUS = KINDS[1]  # an unknown control name


def _sessions():
    out = {}
    for path in EXAMPLES:
        setup, records = _example(path)
        out[path.stem] = (_head(setup), records)
    for name, (head, text) in SCRIPTED.items():
        h = {"game": name, "players": head["players"], "seed": head["seed"]}
        h["options"] = head.get("options", {})
        out["script_" + name] = (h, timeline_records(text))
    out["timed_quiz"] = _timed_quiz()
    return out


def _timed_quiz():
    """A quiz whose timers run out: a question dead on `buzz_s`, an answer timed out on
    `answer_s` (with its 5 s warning) that passes the race on, a press just after a false
    start's lockout ends and one just before a buzz window closes."""
    head = {"game": "quiz", "players": 4, "seed": "7", "bounce": "typical"}
    head["options"] = {"buzz_s": 1, "answer_s": 6, "answer_timeout": "wrong"}

    def tap(p, at):
        return [{"at_us": at, "press": p}, {"at_us": at + 80 * MS, "release": p}]

    records = [{"at_us": 100 * MS, "control": "arm"}]  # nobody buzzes: dead at ~1.1 s
    records += [{"at_us": 1500 * MS, "control": "arm"}] + tap(2, 2000 * MS)  # timed out at 8 s
    records += tap(3, 8300 * MS) + [{"at_us": 9000 * MS, "control": "yes"}]
    records += tap(4, 9200 * MS) + [{"at_us": 9400 * MS, "control": "arm"}]  # a false start
    records += tap(4, 9450 * MS + 40)  # ~40 µs after its 250 ms lockout ends
    records += [{"at_us": 9800 * MS, "control": "no"}]
    records += tap(1, 10810 * MS + 700)  # ~300 µs before the reopened window closes
    return head, sorted(records, key=lambda r: r["at_us"])


SESSIONS = _sessions()


def _run(head, records, interpreter="cpython"):
    text = timeline(*with_sentinel(records, 30 * 10**6))
    return simulate.run(dict(head), parse(text, head["players"], CONTROLS), interpreter)


def _moments(records, plain):
    """µs around which lines are slipped: every contact record, every event after the set-up."""
    times = set()
    for rec in records:
        if "press" in rec or "release" in rec or "glitch" in rec:
            times.add(float(rec["at_us"]))
    for ns, _ in plain[3:]:
        times.add(ns / 1000)
    return sorted(times)


def _deaf(records, plain):
    """[(from µs, to µs)]: from each power cut to 1 ms after the `hello` of the boot that follows
    it. No line can reach the board then (the USB device is gone until the new boot brings it
    back: tablebuzz.sim.runner drops console bytes while no board runs), so none is slipped
    there: a line sent into a dead board gets no answer because nothing received it."""
    out = []
    hellos = [ns / 1000 for ns, line in plain if line.startswith('{"ev":"hello"')]
    off = None
    for rec in records:
        if rec.get("power") == "off" and off is None:
            off = rec["at_us"]
        elif rec.get("power") == "on" and off is not None:
            after = [h for h in hellos if h >= rec["at_us"]]
            out.append((off, (after[0] if after else float("inf")) + MS))
            off = None
    if off is not None:
        out.append((off, float("inf")))
    return out


def _slip_times(moments, offsets_ms, phase_us, deaf=()):
    """A slip time for every moment and offset; its sub-ms part changes from ms to ms. None
    falls in a `deaf` window (_deaf)."""
    out = set()
    for m in moments:
        ms = int(m) // MS
        sub = (phase_us + 137 * ms) % MS
        for off in offsets_ms:
            at = ms * MS + off * MS + sub
            if at > 2 * MS and not any(a <= at <= b for a, b in deaf):
                out.add(at)
    return sorted(out)


_MIXED = {}  # (records' id, slip times) -> CPython's stream with the lines slipped in


def _check(name, head, records, slip_at, interpreter="cpython", plain=None):
    """Run with and without the slipped lines; the streams must agree once the answers are out.
    CPython's mixed stream is kept (_cpython_mixed): the MicroPython lane compares with it."""
    plain = plain if plain is not None else _run(head, records)
    mixed_records, slipped = slip(records, slip_at)
    mixed = _run(head, mixed_records, interpreter)
    if interpreter == "cpython":
        _MIXED[(id(records), tuple(slip_at))] = mixed  # (a session's records live in _PLAIN)
    kept = answers_removed(mixed, slipped)
    without = [line for _, line in plain]
    with_ = [line for _, line in kept]
    assert with_ == without, "%s (%s, %d lines slipped): %s" % (
        name, interpreter, len(slipped), first_difference(without, with_)
    )
    return mixed


def _cpython_mixed(head, records, slip_at):
    """CPython's stream of `records` (a session's, as _plain keeps them) with lines slipped at
    `slip_at`: the one a CPython test of the session already checked, else a new run."""
    key = (id(records), tuple(slip_at))
    if key not in _MIXED:
        _MIXED[key] = _run(head, slip(records, slip_at)[0])
    return _MIXED[key]


def _with_noise(head, records, plain):
    """The records with a 0.5 ms closure (noise: too short for a press, judged for ~3 ms) on an
    idle station 50 µs before each press and 1.5 ms before each event: the press horizon is then
    held back around every decision and deadline, as when a line meets a station's noise."""
    closed_at = {}  # player -> [µs of its presses and releases]
    for rec in records:
        for key in ("press", "release", "glitch"):
            if key in rec:
                closed_at.setdefault(rec[key], []).append(float(rec["at_us"]))
    targets = [float(r["at_us"]) - 50 for r in records if "press" in r]
    targets += [ns / 1000 - 1500 for ns, _ in plain[3:]]
    out, taken = list(records), set()
    for at in sorted(set(round(t) for t in targets)):
        if at // 10 * 10 in taken or at < 2 * MS:
            continue
        for p in range(1, head["players"] + 1):
            if all(abs(at - t) > 30 * MS for t in closed_at.get(p, [])):
                out.append({"at_us": at, "glitch": p, "width_ns": 500000})
                closed_at.setdefault(p, []).append(at)
                taken.add(at // 10 * 10)
                break
    return sorted(out, key=lambda r: r["at_us"])


RUNS = (
    [(off, phase, noisy) for off in range(-8, 9) for phase in (0, 333, 761) for noisy in (0, 1)]
    if FULL
    else [
        ((-4, -2, 0, 2, 4), 0, False),
        ((-3, -1, 1, 3), 500, False),
        ((-2, -1, 0, 1, 2), 250, True),
    ]
)


_PLAIN = {}  # (session, noisy) -> (records, their stream): one run, not one per test


def _plain(name, noisy=False):
    """(records, the stream they give without slipped lines) of session `name`, with the noise
    closures of `_with_noise` when `noisy`. Run once per process: a session's runs and its
    MicroPython test share them (`make test`'s workers take neighbouring tests: the Makefile's
    --dist worksteal)."""
    key = (name, bool(noisy))
    if key not in _PLAIN:
        head, records = SESSIONS[name]
        if noisy:
            quiet, plain = _plain(name)
            records = _with_noise(head, quiet, plain)
        _PLAIN[key] = (records, _run(head, records))
    return _PLAIN[key]


@pytest.mark.parametrize("run_no", range(len(RUNS)))
@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_slipped_lines_change_no_game(name, run_no):
    head = SESSIONS[name][0]
    offsets, phase, noisy = RUNS[run_no]
    records, plain = _plain(name, noisy)
    offsets = offsets if isinstance(offsets, tuple) else (offsets,)
    times = _slip_times(_moments(records, plain), offsets, phase, _deaf(records, plain))
    assert times  # every game has presses
    _check(name, head, records, times, plain=plain)


# ------------------------------------------------------------------ the issue's four cases
def _bouncy_press(player, at_us, bounces=10, closed_us=150, open_us=190):
    """A contact that bounces for ~3.4 ms (each opening shorter than the debouncer's 200 µs
    bounce gap) and stays closed: accepted ~3.8 ms after its first edge, a worn switch."""
    out, t = [], at_us
    for _ in range(bounces):
        out += [{"at_us": t, "press": player}, {"at_us": t + closed_us, "release": player}]
        t += closed_us + open_us
    return out + [{"at_us": t, "press": player}]


def _noise(player, at_us, closed_us=500):
    """A 0.5 ms closure: too short for a press; judged noise only once open 2.5 ms (5 x its
    closed time), so it holds the press horizon ~3 ms (refbox.debounce)."""
    return [{"at_us": at_us, "press": player}, {"at_us": at_us + closed_us, "release": player}]


def _last_win(base, player, lo_us, hi_us, **head):
    """The latest press time (ns) of `player` that still wins a race (bisection, CPython): the
    deadline as the firmware reads it, whatever the loop timing around it."""

    def wins(ns):
        at = ns / 1000
        recs = base + [{"at_us": at, "press": player}, {"at_us": at + 100 * MS, "release": player}]
        return any('"race"' in line for _, line in run_raw(timeline(*recs), **head))

    lo, hi = lo_us * 1000, hi_us * 1000
    assert wins(lo) and not wins(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if wins(mid) else (lo, mid)
    return lo


_CASES = {}  # name -> _case(name): a case's deadline is found by bisection, once a process


def _case(name):
    """(head, records, slipped (µs, kind)), check(lines)) for one of the issue's cases."""
    if name not in _CASES:
        _CASES[name] = _make_case(name)
    return _CASES[name]


def _make_case(name):
    quiet = {"seed": "1", "bounce": "none"}
    if name == "swap":
        # P1 at 200 000 µs (bouncing, accepted late), P2 at 200 003 µs, an unknown control
        # name at 202.1 ms: P1's press line must come first
        head = dict(quiet, game="quiz", players=6, options={})
        records = [{"at_us": 10 * MS, "send": {"cmd": "arm"}}] + _bouncy_press(1, 200000)
        records += [{"at_us": 200003, "press": 2}]
        records += [{"at_us": 300000, "release": 1}, {"at_us": 300000, "release": 2}]
        slips = [(202100, BOGUS)]

        def check(lines):
            presses = [ev["player"] for ev in lines if ev["ev"] == "press"]
            races = [ev["winner"] for ev in lines if ev["ev"] == "race"]
            assert presses == [1, 2] and races == [1]

    elif name == "lockout_end":
        # P2's false start at 50 000.5 µs locks it 250 ms; it presses again 100 µs after the
        # lockout ends, while P1's noise is judged, and a state line comes: a valid press
        head = dict(quiet, game="quiz", players=6, options={})
        records = [{"at_us": 50000.5, "press": 2}, {"at_us": 100 * MS, "release": 2}]
        records += [{"at_us": 200 * MS, "send": {"cmd": "arm"}}] + _noise(1, 299950)
        records += [{"at_us": 300100, "press": 2}, {"at_us": 400 * MS, "release": 2}]
        slips = [(301500, KINDS[0])]

        def check(lines):
            assert [ev["winner"] for ev in lines if ev["ev"] == "race"] == [2]
            assert len([ev for ev in lines if ev["ev"] == "lockout"]) == 1

    elif name in ("buzz_s", "deglingo_timer"):
        # a press 100 µs after the deadline, while another station's noise is judged, and a
        # state line: the question goes dead / the round times out all the same
        if name == "buzz_s":
            head = dict(quiet, game="quiz", players=6, options={"buzz_s": 1})
            base = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}]
            last = _last_win(base, 2, 1099 * MS, 1104 * MS, **head)
        else:
            head = dict(quiet, game="deglingo", players=3, options={"timer": 3})
            base = [{"at_us": 100 * MS, "press": 1}, {"at_us": 150 * MS, "release": 1}]
            last = _last_win(base, 2, 3099 * MS, 3104 * MS, **head)
        deadline_us = last // 1000 + 1
        noisy = 1 if name == "buzz_s" else 3
        records = base + _noise(noisy, deadline_us - 50)
        records += [{"at_us": deadline_us + 100, "press": 2}]
        records += [{"at_us": deadline_us + 100 * MS, "release": 2}]
        slips = [(deadline_us + 1500, KINDS[0])]

        def check(lines):
            assert not [ev for ev in lines if ev["ev"] == "race"]
            if name == "buzz_s":
                dead = [ev["reason"] for ev in lines if ev["ev"] == "dead"]
                assert dead == ["time"]
            else:
                over = [ev["how"] for ev in lines if ev["ev"] == "round_over"]
                assert over[0] == "time"  # (P2's press, after it, is round 2's call: issue 39)
                calls = [ev["round"] for ev in lines if ev["ev"] == "deglingo"]
                assert calls == [1, 2]

    return head, sorted(records, key=lambda r: r["at_us"]), slips, check


CASES = ("swap", "lockout_end", "buzz_s", "deglingo_timer")


def _case_run(name, interpreter):
    head, records, slips, check = _case(name)
    times = [at for at, _ in slips]
    kinds = [kind for _, kind in slips]
    plain = _run(head, records)
    check([json.loads(line) for _, line in plain])  # the case is what the issue says
    mixed_records, slipped = slip(records, times, kinds)
    mixed = _run(head, mixed_records, interpreter)
    kept = [line for _, line in answers_removed(mixed, slipped)]
    without = [line for _, line in plain]
    assert kept == without, "%s on %s: %s" % (name, interpreter, first_difference(without, kept))
    return mixed


@pytest.mark.parametrize("name", CASES)
def test_the_issues_cases(name):
    _case_run(name, "cpython")


@pytest.mark.parametrize("name", CASES)
@pytest.mark.micropython
def test_the_issues_cases_on_micropython(name):
    mixed = _case_run(name, "micropython")
    head, records, slips, _ = _case(name)
    mixed_records, _ = slip(records, [at for at, _ in slips], [k for _, k in slips])
    assert mixed == _run(head, mixed_records)  # the same bytes on both interpreters


# the MicroPython lane: one game of each kind, the even offsets; the same bytes as CPython
MP_SESSIONS = ("timed_quiz", "quiz_tournament", "difference_6p", "deglingo_4p", "redblack_2p")


@pytest.mark.parametrize("name", MP_SESSIONS)
@pytest.mark.micropython
def test_slipped_lines_change_no_game_on_micropython(name):
    head = SESSIONS[name][0]
    records, plain = _plain(name)
    offsets, phase = ((-4, -2, 0, 2, 4), 0) if not FULL else ((-3, -1, 1, 3), 500)
    times = _slip_times(_moments(records, plain), offsets, phase, _deaf(records, plain))
    mixed = _check(name, head, records, times, "micropython", plain=plain)
    assert mixed == _cpython_mixed(head, records, times)  # the same bytes as CPython


def test_a_slipped_state_is_answered_where_it_arrived():
    """The helper's own check: each slipped line has its answer, and the answer is taken out
    (a stream with a state line more is not the plain stream)."""
    head, records = SESSIONS["quiz_demo"]
    mixed_records, slipped = slip(records, [500 * MS], STATE_ONLY)
    mixed = _run(head, mixed_records)
    plain = _run(head, records)
    kept = answers_removed(mixed, slipped)
    removed = [line.split(",")[0] for _, line in [x for x in mixed if x not in kept]]
    assert removed == ['{"ev":"state"', '{"ev":"buttons"', '{"ev":"done"']  # the answer, only it
    assert [line for _, line in answers_removed(mixed, slipped)] == [line for _, line in plain]
    with pytest.raises(AssertionError):
        answers_removed(plain, [(plain[-1][0] + 1, "state", None, "slip0")])  # no answer: says so
