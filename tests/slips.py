"""Lines slipped into a timeline, and their answers taken out again (test helpers).

A slipped line is a console line that must change nothing but its own answer (issue 19 item 1,
docs/protocol.md "Commands"): a read-only `state` (answered by `state`, followed by the quiz's
`name` events, or by `menu` in the menu, and then by `buttons`) or a line the board refuses
(answered by one `error`).
`slip(records, moments)` adds them; `answers_removed(lines, slipped)` takes each one's answer out
of the device's output, so that what is left can be compared with the run without them.

Every slipped command carries an `id` (docs/protocol.md "Command ids"), so its answer is found by
it, never guessed: a `state` is answered by `state` (or `menu`), the quiz's `name` lines and
`buttons`, then `done` with the id; a refused command by its `error` with the id. A line that is
not JSON cannot carry an id: its `error` is matched by kind, the first at or after its arrival.
Nothing else in the stream is dropped: an `error` or a `state` the game itself sent (an undo's
own resync, identical to an answer) stays and is compared.
"""

import json

STATE = {"cmd": "state"}
# (timeline action, the answer's event, (its error code, a piece of its detail)): one of each
# kind of refusal; the detail tells the answer from the game's own refusals of the same code
KINDS = (
    ({"send": STATE}, "state", None),
    ({"send": {"cmd": "control", "name": "bogus"}}, "error", ("bad_value", "control bogus")),
    ({"send_raw": '{"cmd":"state",'}, "error", ("bad_json", "a key is a string")),
    ({"send": {"cmd": "slipped"}}, "error", ("unknown_command", "slipped")),
)
SENTINEL = {"host": "read"}  # a record that does nothing: both runs end at the same time


def with_sentinel(records, after_us):
    """`records` (timeline dicts) and a last record that does nothing, `after_us` after the last
    one, so a run with slipped lines near its end runs exactly as long as the run without."""
    end = max([r["at_us"] for r in records] or [0])
    return list(records) + [dict(SENTINEL, at_us=end + after_us)]


def slip(records, times_us, kinds=None):
    """(records with a slipped line at each time of `times_us` (µs, any order; kind i % len
    cycles through `kinds`, default KINDS), [(arrival ns, answer event, (error code, detail
    part), id or None)] in arrival order). Each slipped command carries the id `slip<i>` (a raw
    line cannot). The records come out in time order, a slipped line after any record at its µs."""
    kinds = KINDS if kinds is None else kinds
    added = []
    for i, at in enumerate(times_us):
        action, answer, code = kinds[i % len(kinds)]
        added.append((at, i, action, answer, code))
    added.sort(key=lambda a: (a[0], a[1]))
    out = list(records)
    slipped = []
    for at, i, action, answer, code in added:
        record = dict({"at_us": at}, **action)
        ident = None
        if "send" in action:  # an id names its answer (docs/protocol.md "Command ids")
            ident = "slip%d" % i
            record["send"] = dict(action["send"], id=ident)
        out.append(record)
        slipped.append((round(at * 1000), answer, code, ident))
    out.sort(key=lambda r: r["at_us"])  # stable: a slipped line goes after the records at its µs
    return out, slipped


def answers_removed(lines, slipped):
    """The device's [(ns, line)] without the answers of `slipped` (from slip()). Raises
    AssertionError naming the slipped line if its answer is missing: every line gets one."""
    keep = [True] * len(lines)
    by_id = {}  # id -> index of its `done` or `error` line
    for i, (_, line) in enumerate(lines):
        if '"id":"slip' in line:
            ev = json.loads(line)
            if ev["ev"] in ("done", "error") and isinstance(ev.get("id"), str):
                by_id[ev["id"]] = i
    raw = {}  # (answer, code) -> [indices of lines of that kind], and how far taken
    for at_ns, answer, code, ident in slipped:
        if ident is not None:
            assert ident in by_id, "no answer for the line slipped at %d ns (%s)" % (at_ns, ident)
            i = by_id[ident]
            keep[i] = False
            if answer == "state":  # `done` ends the answer: before it the prompts, the quiz's
                _drop_state_answer(lines, keep, i)  # names and the state (or menu) itself
            continue
        key = (answer, code)
        if key not in raw:
            found = [i for i, (_, line) in enumerate(lines) if _is_answer(line, answer, code)]
            raw[key] = [found, 0]
        found, taken = raw[key]
        while taken < len(found) and (lines[found[taken]][0] < at_ns or not keep[found[taken]]):
            taken += 1
        assert taken < len(found), "no %s answer for the line slipped at %d ns" % (answer, at_ns)
        keep[found[taken]] = False
        raw[key][1] = taken + 1
    return [line for line, k in zip(lines, keep, strict=True) if k]


def _drop_state_answer(lines, keep, done):
    """Mark the lines of the `state` answer that ends with the `done` at index `done`: walking
    back over the kept lines, `buttons`, any `name` lines, then the `state` or `menu`."""
    j = done - 1
    while j >= 0 and not keep[j]:
        j -= 1
    assert j >= 0 and lines[j][1].startswith('{"ev":"buttons"'), "no prompts before %r" % (
        lines[done][1],)
    keep[j] = False
    prompts = lines[j][1]
    j -= 1
    # a pass's own prompts come at its end, after the answers to its lines: the same `buttons`
    # line twice, the answer's then the game's, and taking either out leaves the same stream
    while j >= 0 and (
        not keep[j] or lines[j][1].startswith('{"ev":"name"') or lines[j][1] == prompts
    ):
        if lines[j][1] != prompts:
            keep[j] = False  # a name line, or one already taken
        j -= 1
    assert j >= 0 and (
        lines[j][1].startswith('{"ev":"state"') or lines[j][1].startswith('{"ev":"menu"')
    ), "no state before %r" % (lines[done][1],)
    keep[j] = False


def _is_answer(line, answer, code):
    if answer == "state":
        return line.startswith('{"ev":"state"') or line.startswith('{"ev":"menu"')
    if not line.startswith('{"ev":"error"'):
        return False
    error = json.loads(line)
    return error["code"] == code[0] and code[1] in error["detail"]


def first_difference(a, b):
    """A short text: where two line lists part, with a few lines of each around it."""
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    lo = max(0, n - 2)
    return "lines part at %d:\n  without: %s\n  with:    %s" % (
        n,
        "\n           ".join(str(x)[:160] for x in a[lo : n + 3]),
        "\n           ".join(str(x)[:160] for x in b[lo : n + 3]),
    )
