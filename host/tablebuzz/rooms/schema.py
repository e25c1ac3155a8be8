"""The hub's checks of what the broker hands it (docs/rooms.md "What a room publishes", docs/
security.md "The hub and the rooms"): one small JSON Schema per topic, and the limits.

`check(room, kind, payload)` parses one MQTT payload (bytes) and returns it as a dict, or
raises `RefusedError` with a reason for people (`record.lines[3].line: 5 is not of type
'string'`).
Nothing a refused message holds reaches the hub's state: it is set aside and named on the
director's page. The checks cover every field the hub reads (the rest of a view is ignored and
never passed on):
- the payload: at most `MAX_PAYLOAD[kind]` bytes, UTF-8 JSON, no NaN or infinity (`1e999`), no
  nesting deeper than Python's parser allows;
- the message's `room` is its topic's room; ids (`run`, `game`) are short printable strings and
  `game` belongs to its `run` (`<run>-<seq>`); numbers are integers where the rooms send integers;
- strings, lists and objects have upper bounds (`MAX_TEXT`, `MAX_LINE`, `MAX_LINES`, ...).

`check_result(result)` checks a finished game folded by the scoreboard's Table
(tablebuzz.rooms.state.fold_record) before it enters the standings: the events inside a record's
lines are the box's protocol lines, strings to the topic schema, and a line whose fields are not
what the protocol says (`"scores": ["500"]`) must not reach a sum.
"""

import json
import math

import jsonschema

MAX_PAYLOAD = {"events": 16 * 1024, "status": 1024, "view": 256 * 1024,
               "records": 4 * 1024 * 1024}  # bytes of one MQTT payload, per topic
MAX_TEXT = 200  # characters of a name, a title, a status, a label
MAX_LINE = 8 * 1024  # characters of one protocol line (docs/protocol.md: lines are short)
MAX_LINES = 50_000  # lines of one record
MAX_PLAYERS = 64
MAX_SCORE = 10**9  # |score| of any side: far above any game's

_ID = {"type": "string", "pattern": "^[0-9A-Za-z_-]{1,64}$"}
_GAME_ID = {"type": "string", "pattern": "^[0-9A-Za-z_]{1,40}-[0-9]{1,12}$"}
_SEQ = {"type": "integer", "minimum": 1, "maximum": 2**53}
_TEXT = {"type": "string", "maxLength": MAX_TEXT}
_TEXT_OR_NULL = {"type": ["string", "null"], "maxLength": MAX_TEXT}
_INT_OR_NULL = {"type": ["integer", "null"], "minimum": -MAX_SCORE, "maximum": MAX_SCORE}
_SCORE = {"type": "number", "minimum": -MAX_SCORE, "maximum": MAX_SCORE}
_PLAYER = {"type": "integer", "minimum": 1, "maximum": MAX_PLAYERS}
_PLACE = {"type": "integer", "minimum": 1, "maximum": MAX_PLAYERS}
_NAMES = {"type": "object", "maxProperties": MAX_PLAYERS,
          "propertyNames": {"pattern": "^[0-9]{1,3}$"},
          "additionalProperties": _TEXT_OR_NULL}
_COLOUR = {"anyOf": [_TEXT, {"type": "array", "maxItems": 4, "items": {"type": "integer"}}]}
_RANKING = {"type": "array", "maxItems": MAX_PLAYERS, "items": {
    "type": "object", "required": ["player", "score", "place"],
    "properties": {"player": _PLAYER, "score": _SCORE, "place": _PLACE}}}
_TEAM_RANKING = {"type": ["array", "null"], "maxItems": MAX_PLAYERS, "items": {
    "type": "object", "required": ["team", "score", "place"],
    "properties": {"team": _PLAYER, "score": _SCORE, "place": _PLACE, "name": _TEXT_OR_NULL}}}


def _message(required, **properties):
    return {"type": "object", "required": ["room"] + required,
            "properties": dict(room=_ID, at={"type": ["string", "null"], "maxLength": 64},
                               **properties)}


# the parts of the scoreboard's view (tablebuzz.views.table.Table.view) the hub reads
_VIEW_GAME = {"type": ["object", "null"], "properties": {
    "name": _TEXT, "title": _TEXT_OR_NULL, "phase": _TEXT_OR_NULL, "armed": {},
    "names": _NAMES, "colours": {"type": "array", "maxItems": MAX_PLAYERS, "items": _COLOUR},
    "scores": {"type": "array", "maxItems": MAX_PLAYERS, "items": _SCORE},
    "timers": {"type": "array", "maxItems": MAX_PLAYERS + 8, "items": {
        "type": "object", "required": ["label", "remaining_ms"],
        "properties": {"label": _TEXT, "remaining_ms": {"type": "integer", "minimum": 0},
                       "running": {"type": "boolean"}}}},
    "view": {"type": ["object", "null"], "properties": {
        "question": _INT_OR_NULL, "points": _INT_OR_NULL,
        "teams": {"type": ["array", "null"], "maxItems": MAX_PLAYERS, "items": {
            "type": "object", "required": ["team"],
            "properties": {"team": _PLAYER, "name": _TEXT_OR_NULL, "score": _SCORE,
                           "players": {"type": "array", "maxItems": MAX_PLAYERS,
                                       "items": _PLAYER}}}}}},
    "answering": {"anyOf": [_PLAYER, {"type": ["null", "boolean"]}]},
    "race": {"type": ["object", "null"], "properties": {
        "winner": {"anyOf": [_PLAYER, {"type": "null"}]}, "margin_ns": _INT_OR_NULL,
        "margin_text": _TEXT_OR_NULL, "tie": {"type": ["boolean", "null"]}}},
    "over": {"type": ["object", "null"], "properties": {
        "abandoned": {"type": ["boolean", "null"]}, "ranking": _RANKING,
        "team_ranking": _TEAM_RANKING}},
}}

SCHEMAS = {
    "status": _message(["online"], online={"type": "boolean"}),
    "view": _message(["view"], run=_ID, wall={"type": ["number", "null"]},
                     seq={"type": "integer", "minimum": 0, "maximum": 2**53},
                     view={"type": "object", "properties": {
                         "source": {"type": ["object", "null"], "properties": {
                             "connected": {"type": ["boolean", "null"]}, "status": _TEXT_OR_NULL}},
                         "menu": {"type": ["object", "null"], "properties": {
                             "text": _TEXT_OR_NULL}},
                         "game": _VIEW_GAME}}),
    "events": _message(["run", "seq", "line"], run=_ID, seq=_SEQ,
                       game={"anyOf": [_GAME_ID, {"type": "null"}]},
                       n={"type": ["integer", "null"], "minimum": 1, "maximum": MAX_LINES},
                       line={"type": "string", "maxLength": MAX_LINE}),
    "records": _message(["run", "seq", "game", "record"], run=_ID, seq=_SEQ, game=_GAME_ID,
                        record={"type": "object", "required": ["header", "lines"], "properties": {
                            "header": {"type": "object", "properties": {
                                "record": {"const": "tablebuzz-game"}, "game": _TEXT_OR_NULL,
                                "names": _NAMES, "room": _ID, "id": _GAME_ID}},
                            "lines": {"type": "array", "maxItems": MAX_LINES, "items": {
                                "type": "object", "properties": {
                                    "at": {"type": "string", "maxLength": 64},
                                    "line": {"type": "string", "maxLength": MAX_LINE},
                                    "names": _NAMES}}}}}),
}
_VALIDATORS = {kind: jsonschema.Draft202012Validator(s) for kind, s in SCHEMAS.items()}

RESULT = {"type": "object", "required": ["game", "abandoned", "sides"], "properties": {
    "game": _TEXT, "abandoned": {"type": "boolean"},
    "sides": {"type": "array", "minItems": 1, "maxItems": MAX_PLAYERS, "items": {
        "type": "object", "required": ["name", "score", "place", "result"], "properties": {
            "name": _TEXT, "score": _SCORE, "place": _PLACE,
            "powers": {"type": "integer"}, "gets": {"type": "integer"},
            "negs": {"type": "integer"}}}}}}
_RESULT = jsonschema.Draft202012Validator(RESULT)


class RefusedError(ValueError):
    """A message the hub sets aside; the text says why (for the director's page)."""


def _no_constant(name):
    raise ValueError("%s is not a number JSON allows" % name)


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("%s is out of range" % text[:20])
    return value


def _why(validator, obj):
    error = jsonschema.exceptions.best_match(validator.iter_errors(obj))
    if error is None:
        return None
    where = ".".join(str(p) if not isinstance(p, int) else "[%d]" % p for p in error.path)
    message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return "%s: %s" % (where.replace(".[", "[") or "the message", message)


def parse(payload, limit):
    """The JSON object in `payload` (bytes, at most `limit` long). Raises RefusedError."""
    if len(payload) > limit:
        raise RefusedError("%d bytes, more than the %d this topic allows" % (len(payload), limit))
    try:
        obj = json.loads(payload.decode("utf-8"), parse_constant=_no_constant,
                         parse_float=_finite)
    except UnicodeDecodeError:
        raise RefusedError("not UTF-8 text") from None
    except RecursionError:
        raise RefusedError("nested too deep") from None
    except ValueError as e:
        raise RefusedError("not JSON (%s)" % str(e)[:80]) from None
    if not isinstance(obj, dict):
        raise RefusedError("not a JSON object")
    return obj


def check(room, kind, payload, checked_before=False):
    """The message on `tablebuzz/<room>/<kind>` (payload: bytes) as a dict, checked (see the
    module doc). `checked_before`: the message passed these checks when it came (the hub's own
    store, read back at a restart): the schema, most of the cost, is not run again. Raises
    RefusedError."""
    obj = parse(payload, MAX_PAYLOAD[kind])
    why = None if checked_before else _why(_VALIDATORS[kind], obj)
    if why is not None:
        raise RefusedError(why)
    if obj["room"] != room:
        raise RefusedError("says it is room %r on room %s's topic" % (obj["room"], room))
    game = obj.get("game")
    if kind in ("events", "records") and game is not None and \
            game.rsplit("-", 1)[0] != obj["run"]:
        raise RefusedError("game %s is not of run %s" % (game, obj["run"]))
    return obj


def check_result(result):
    """None if a folded result (tablebuzz.rooms.state.fold_record) has the shape the standings
    add up, else the reason."""
    return _why(_RESULT, result)
