"""A packet for the desk: the questions the reader reads, in the JSON shape MODAQ reads.

Shape (MODAQ's `IPacket`, github.com/alopezlago/MODAQ `src/state/IPacket.ts`):
`{"name"?: str, "tossups": [{"question": str, "answer": str, "metadata"?: str}],
"bonuses"?: [{"leadin": str, "parts": [str], "answers": [str], "values": [int],
"metadata"?: str}]}`. A tossup's power mark is `(*)` in its text: a buzz on a word at or before
it earns a power.

Tossup *n* of the game (the board's `question` number) is the packet's tossup *n*; bonuses are
read in order, the *k*-th bonus played being the packet's bonus *k* (MODAQ's rule: a dead
tossup reads no bonus). The desk sees the text and the answers; the room sees only the number and
the category (`metadata`): `room_info`.
"""

import json

POWER_MARK = "(*)"


class PacketError(ValueError):
    """A file that is not a packet (the message says what is wrong, and where)."""


def _text(obj, key, where):
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PacketError("%s: %s is not text" % (where, key))
    return value


def load(path):
    """The packet at `path`, checked. Raises PacketError, OSError."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError as e:
        raise PacketError("%s is not JSON: %s" % (path, e)) from None
    return check(data)


def check(data):
    """`data` as a packet (a new dict), or PacketError naming the first problem."""
    if not isinstance(data, dict) or not isinstance(data.get("tossups"), list) or \
            not data["tossups"]:
        raise PacketError("a packet is an object with a non-empty list of tossups")
    tossups = []
    for i, t in enumerate(data["tossups"], 1):
        where = "tossup %d" % i
        if not isinstance(t, dict):
            raise PacketError("%s is not an object" % where)
        tossups.append({"question": _text(t, "question", where),
                        "answer": _text(t, "answer", where),
                        "metadata": t.get("metadata") if isinstance(t.get("metadata"), str)
                        else ""})
    bonuses = []
    for i, b in enumerate(data.get("bonuses") or [], 1):
        where = "bonus %d" % i
        if not isinstance(b, dict):
            raise PacketError("%s is not an object" % where)
        parts, answers, values = b.get("parts"), b.get("answers"), b.get("values")
        if not (isinstance(parts, list) and isinstance(answers, list) and
                isinstance(values, list)) or not parts or \
                not len(parts) == len(answers) == len(values):
            raise PacketError("%s: parts, answers and values are lists of one length" % where)
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1000
                   for v in values):
            raise PacketError("%s: values are points from 0 to 1000" % where)
        bonuses.append({"leadin": b.get("leadin") if isinstance(b.get("leadin"), str) else "",
                        "parts": [str(p) for p in parts], "answers": [str(a) for a in answers],
                        "values": list(values),
                        "metadata": b.get("metadata") if isinstance(b.get("metadata"), str)
                        else ""})
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    return {"name": name, "tossups": tossups, "bonuses": bonuses}


def words(question):
    """(words, power index): the tossup's words as the reader reads them (0-based, as QBJ's
    `buzz_position.word_index` counts them; the mark itself is no word), and the index of the
    last word of power (the word before `(*)`), or None without a mark."""
    out = []
    power = None
    for token in question.split():
        if POWER_MARK in token:
            before, after = token.split(POWER_MARK, 1)
            if before:
                out.append(before)
            power = len(out) - 1
            if after:
                out.append(after)
            continue
        out.append(token)
    return out, power


def tossup_view(packet, number):
    """What the desk shows for tossup `number` (1-based): {"number", "words", "power_index",
    "answer", "category"}, or None past the packet's end."""
    if not number or number > len(packet["tossups"]):
        return None
    t = packet["tossups"][number - 1]
    ws, power = words(t["question"])
    return {"number": number, "words": ws, "power_index": power, "answer": t["answer"],
            "category": t["metadata"]}


def bonus_view(packet, index):
    """The desk's view of the packet's bonus `index` (0-based), or None past its end."""
    if index >= len(packet["bonuses"]):
        return None
    return dict(packet["bonuses"][index], number=index + 1)


def room_info(packet, number):
    """What the room may see of tossup `number`: its number and category, never its text or
    answer."""
    view = tossup_view(packet, number)
    if view is None:
        return None
    return {"question": number, "category": view["category"]}
