"""Lines slipped into a timeline, and their answers taken out again (test helpers).

A slipped line is a console line that must change nothing but its own answer (issue 19 item 1,
docs/protocol.md "Commands"): a read-only `state` (answered by `state`, followed by the quiz's
`name` events, or by `menu` in the menu, and then by `buttons`) or a line the board refuses
(answered by one `error`).
`slip(records, moments)` adds them; `answers_removed(lines, slipped)` takes each one's answer out
of the device's output, so that what is left can be compared with the run without them.

A slipped line is matched to its answer as the board writes it: a line of the answer's kind at
or after the slipped line's arrival (ns), in arrival order; for `state`, the last one of the loop
pass that wrote the first such line (a pass reads its command lines after its controls, so an
undo's own `state` in that pass comes before). Nothing else in the stream is
dropped: an `error` or a `state` the game itself sent stays and is compared.
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
    part))] in arrival order). The records come out in time order, a slipped line after any
    record at its µs."""
    kinds = KINDS if kinds is None else kinds
    added = []
    for i, at in enumerate(times_us):
        action, answer, code = kinds[i % len(kinds)]
        added.append((at, i, action, answer, code))
    added.sort(key=lambda a: (a[0], a[1]))
    out = list(records)
    for at, _, action, _, _ in added:
        out.append(dict({"at_us": at}, **action))
    out.sort(key=lambda r: r["at_us"])  # stable: a slipped line goes after the records at its µs
    slipped = [(round(at * 1000), answer, code) for at, _, _, answer, code in added]
    return out, slipped


def _is_answer(line, answer, code):
    if answer == "state":
        return line.startswith('{"ev":"state"') or line.startswith('{"ev":"menu"')
    if not line.startswith('{"ev":"error"'):
        return False
    error = json.loads(line)
    return error["code"] == code[0] and code[1] in error["detail"]


def answers_removed(lines, slipped):
    """The device's [(ns, line)] without the answers of `slipped` (from slip()). Raises
    AssertionError naming the slipped line if its answer is missing: every line gets one."""
    keep = [True] * len(lines)
    candidates = {}  # (answer, code) -> [indices of lines of that kind], and how far taken
    for at_ns, answer, code in slipped:
        key = (answer, code)
        if key not in candidates:
            found = [i for i, (_, line) in enumerate(lines) if _is_answer(line, answer, code)]
            candidates[key] = [found, 0]
        found, taken = candidates[key]
        while taken < len(found) and (lines[found[taken]][0] < at_ns or not keep[found[taken]]):
            taken += 1
        assert taken < len(found), "no %s answer for the line slipped at %d ns" % (answer, at_ns)
        i = found[taken]
        if answer == "state":
            # in one loop pass the commands are read after the controls: a state line an undo
            # sent in that pass comes first, the answers to the pass's lines last
            same_pass = [j for j in found[taken:] if lines[j][0] == lines[i][0] and keep[j]]
            i = same_pass[-1]
        else:
            candidates[key][1] = taken + 1
        keep[i] = False
        if answer == "state":  # the quiz's names follow its state, then the prompts
            j = i + 1
            while j < len(lines) and lines[j][1].startswith('{"ev":"name"'):
                keep[j] = False
                j += 1
            if j < len(lines) and lines[j][1].startswith('{"ev":"buttons"'):
                keep[j] = False
    return [line for line, k in zip(lines, keep, strict=True) if k]


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
