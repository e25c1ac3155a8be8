"""The device's own description of its games, for the host: built here from the firmware's game
classes (refbox.games), which the board never imports this module for. It is the one source of
every word the host shows about a game's options: labels, units, what 0 means, what each value
reads as (`Game.option_label`, `Game.option_text`, `Game.UNITS`, `Game.ZERO`), the player counts
and the option ranges (the options' own checks: `IntIn`, `OneOf`, `flag`, `lockout_rule`).

`game_specs(stations)` is the desk's new-game form (`/api/games`), `option_words(game, name,
value)` the text of one option for people ("false start: 250 ms", "target: no target"), the same
words the board's menu and display show. Tested against the firmware for every value of every
option (`tests/test_words.py`).
"""

from refbox.games import CATALOG, game_class, title
from refbox.games.base import Game, IntIn, OneOf, flag, lockout_rule


def _kind(check, default):
    """(kind, fields): what the option takes, from its check (refbox.games.base)."""
    if isinstance(check, IntIn):
        return "int", {"low": check.low, "high": check.high}
    if isinstance(check, OneOf):
        return "text", {"values": list(check.values)}
    if check is flag:
        return "bool", {}
    if check is lockout_rule:
        return "int", {"low": 0, "high": 60000, "words": ["race", "off"]}
    if isinstance(default, int) and not isinstance(default, bool):
        return "int", {}
    if isinstance(default, str):
        return "text", {}
    return "json", {}  # a list or an object (the quiz's teams): typed as JSON


def option_spec(cls, spec):
    """One option of game class `cls` for a host: {name, label, default, kind, choices: [{value,
    text}], unit, zero, low/high or values, presets}, every word from the class. `presets`:
    [{value, sets: [{name, value, text}]}], what choosing `value` also sets (`Game.presets`, the
    quiz's `format`; the device applies them to the options a set-up does not name, so a host
    sends only the options its user changed), [] for an option that sets nothing else."""
    name, default, check, choices = spec  # refbox.games.base.option
    kind, fields = _kind(check, default)
    shown = list(choices) or [default]
    out = {
        "name": name,
        "label": cls.option_label(name),
        "default": default,
        "kind": kind,
        "choices": [{"value": v, "text": cls.option_text(name, v)} for v in shown],
        "unit": cls.UNITS.get(name, ""),
        "zero": cls.ZERO.get(name, ""),
    }
    out["presets"] = []
    for value in shown:
        sets = cls.presets(name, value)
        if sets:
            out["presets"].append({"value": value, "sets": [
                {"name": key, "value": sets[key], "text": cls.option_text(key, sets[key])}
                for key in _in_menu_order(cls, sets)]})
    if "words" in fields:
        words = fields.pop("words")
        out["words"] = [{"value": w, "text": cls.option_text(name, w)} for w in words]
    out.update(fields)
    return out


def _in_menu_order(cls, names):
    """The option names in `names`, in the order of cls.OPTIONS (the form's order)."""
    return [spec[0] for spec in cls.OPTIONS if spec[0] in names]


def game_specs(stations):
    """The desk's new-game form: [{name, title, min, max, options: [option_spec]}], games in the
    menu's order, `max` no more than the board's `stations`."""
    specs = []
    for name, _, _, low, high in CATALOG:
        cls = game_class(name)
        specs.append({"name": name, "title": title(name), "min": low, "max": min(high, stations),
                      "options": [option_spec(cls, spec) for spec in cls.OPTIONS]})
    return specs


def _class(game):
    try:
        return game_class(game) if game else Game
    except KeyError:
        return Game  # an unknown game: the words every game shares


def option_label(game, name):
    """Option `name` of `game` as people read it ("time to buzz")."""
    return _class(game).option_label(name)


def option_value_text(game, name, value):
    """Option `name`'s `value` in `game`, as the board says it ("250 ms", "no target")."""
    return _class(game).option_text(name, value)


def option_words(game, name, value):
    """"label: value" for people, the board's words: "false start: 250 ms"."""
    return "%s: %s" % (option_label(game, name), option_value_text(game, name, value))


def wins(game):
    """How `game` is won, in the firmware's words (`Game.WINS`, Diddly's), "" for a game whose
    scores say it."""
    return _class(game).WINS


def layout(game):
    """The sizes a page draws `game` with, from the firmware's own rules (never restated here):
    Red or Black's `hand` (cards a player turns, one a round) and `columns` (Part 2's two lines),
    Diddly's `rounds`, Evidence's `markers`. {} for a game with none."""
    if game == "redblack":
        from refbox.games import redblack

        return {"hand": redblack.ROUNDS, "columns": redblack.COLUMNS}
    if game == "diddly":
        from refbox.games import diddly

        return {"rounds": diddly.ROUNDS}
    if game == "evidence":
        from refbox.games import evidence

        return {"markers": evidence.MARKERS}
    return {}
