"""The set-up menu, driven by the four control buttons: game, number of players, then each option.

ARM shows the next value, NO the previous one, YES confirms and moves on (the last YES starts the
game), UNDO goes back one step. Holding UNDO for 2 s in a game returns here (see refbox.controls).
Every change is announced as a `menu` event; the marker bar shows the value's position.
UNDO on the first step (the game) opens the box's own setting, the station colours
(refbox.leds: standard or colour-blind safe): ARM / NO change them, YES or UNDO returns to the
game. The choice is the box's, not a game's: the referee announces it (`palette` event) and keeps
it (refbox.settings).
The menu opens on the last game played with its player count and options (the referee's
`last_setup`), so a new game of the same kind is a row of YES presses. While it is open every
buzzer press lights its station for WIRING_FLASH_US (and the referee beeps): a wiring test.
Documented in README.md "At the table".
"""

from refbox.games import GAME_ORDER, game_class, player_range, title
from refbox.leds import PALETTES, STANDARD, palette_text
from refbox.ticks import ticks_diff


def _show(value):
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


WIRING_FLASH_US = 300000  # a buzzer pressed in the menu lights its station this long
COLOURS = "colours"  # the step of the station colours (reached by UNDO on the game step)


class Menu:
    def __init__(self, stations, game="quiz", players=None, options=None, palette=None):
        """The menu for `stations` stations, starting on `game` with `players` (default: every
        station, clamped to the game's range) and `options` (a dict: the values it names are
        preset, the others take their defaults); `palette`: the station colours in use (a name
        of refbox.leds.PALETTES; default standard)."""
        self.stations = stations
        self.palette = palette or STANDARD
        self.colours_step = False  # True while the station colours are shown (UNDO on step 0)
        self.game = game
        self.players = stations if players is None else players
        self._loaded = None  # type: str | None  # the game whose options are loaded
        self._option_spec = ()  # type: tuple
        self._reset_options()
        self._preset = options or {}
        self.step = 0
        self.lit = [None] * stations  # per station: the µs tick its wiring-test light began

    def wiring_press(self, station, tick):
        """Buzzer `station` (0-based) was pressed at µs tick `tick`: light it (refbox.leds)."""
        self.lit[station] = tick

    def lit_stations(self, now):
        """0-based stations lit by a press within WIRING_FLASH_US before µs tick `now`; lights
        that ran out are forgotten."""
        shown = []
        for p in range(self.stations):
            tick = self.lit[p]
            if tick is not None:
                if ticks_diff(now, tick) < WIRING_FLASH_US:
                    shown.append(p)
                else:
                    self.lit[p] = None
        return shown

    def is_busy(self):
        """True while a wiring-test light is on (the simulator keeps stepping to turn it off)."""
        for tick in self.lit:
            if tick is not None:
                return True
        return False

    def _options(self):
        """The chosen game's options (its module is imported on first need, not while the game
        step scrolls through the catalogue)."""
        if self._loaded != self.game:
            self._option_spec = game_class(self.game).OPTIONS
            self._loaded = self.game
            self.choice = {}
            preset = self._preset
            for name, default, _, _ in self._option_spec:
                self.choice[name] = preset.get(name, default)  # a value from the wire stays
        return self._option_spec

    def _reset_options(self):
        low, high = player_range(self.game)
        self.players = max(low, min(self.players, high, self.stations))
        self._loaded = None
        self._option_spec = ()
        self.choice = {}
        self._preset = {}  # another game: its options start from their defaults

    def steps(self):
        if self.step == 0:
            return ["game", "players"]  # more steps follow once a game is chosen
        # options without menu choices (a list of teams) are set from the host only
        return ["game", "players"] + [name for name, _, _, choices in self._options() if choices]

    def current_step(self):
        """The step shown: "colours", "game", "players" or an option's name."""
        return COLOURS if self.colours_step else self.steps()[self.step]

    def _values(self, step):
        if step == COLOURS:
            return list(PALETTES)
        if step == "game":
            return list(GAME_ORDER)
        if step == "players":
            low, high = player_range(self.game)
            return list(range(low, min(high, self.stations) + 1))
        fixed = game_class(self.game).fixed_options(self.players)
        if step in fixed:
            return [fixed[step]]  # the rules decide it for this player count
        for name, _, _, choices in self._options():
            if name == step:
                return list(choices)
        return []

    def _current(self, step):
        if step == COLOURS:
            return self.palette
        if step == "game":
            return self.game
        if step == "players":
            return self.players
        fixed = game_class(self.game).fixed_options(self.players)
        if step in fixed:
            return fixed[step]
        return self.choice[step]

    def text(self, step=None):
        """The value shown, for people: "Red or Black", "4 players", "250 ms", "no target"."""
        step = step or self.current_step()
        value = self._current(step)
        if step == COLOURS:
            return palette_text(value)
        if step == "game":
            return title(value)
        if step == "players":
            return "%d players" % value
        return game_class(self.game).option_text(step, value)

    def label(self, step=None):
        """The step's name for people: "game", "players", "false start", "time to buzz"."""
        step = step or self.current_step()
        if step == COLOURS:
            return "station colours"
        if step == "game" or step == "players":
            return step
        return game_class(self.game).option_label(step)

    def buttons(self):
        """What each control does in the menu now: [(control, meaning)] (see Game.buttons)."""
        if self.colours_step:
            return [("ARM", "next"), ("NO", "previous"), ("YES", "ok"), ("UNDO", "back")]
        last = self.step > 0 and self.step + 1 == len(self.steps())
        shown = [("ARM", "next"), ("NO", "previous"), ("YES", "start" if last else "ok")]
        shown.append(("UNDO", "back" if self.step else "colours"))
        return shown

    def _set(self, step, value):
        if step == COLOURS:
            self.palette = value
        elif step == "game":
            self.game = value
            self._reset_options()
        elif step == "players":
            self.players = value
        else:
            self.choice[step] = value
            preset = game_class(self.game).presets(step, value)  # a format sets its options
            for key in sorted(preset):
                self.choice[key] = preset[key]

    def position(self):
        """(step name, index of the current value, number of values)."""
        step = self.current_step()
        values = self._values(step)
        current = self._current(step)
        return step, values.index(current) if current in values else 0, len(values)

    def control(self, name):
        """Apply a control; returns (game, players, options) when the last YES starts the game.
        On the station colours, ARM / NO change `palette` and YES / UNDO return to the game."""
        step = self.current_step()
        values = self._values(step)
        if self.colours_step and (name == "yes" or name == "undo"):
            self.colours_step = False
        elif name == "arm" or name == "no":
            _, index, count = self.position()
            index = (index + (1 if name == "arm" else -1)) % count
            self._set(step, values[index])
        elif name == "yes":
            if self.step == 0 or self.step + 1 < len(self.steps()):
                self.step += 1
            else:
                options = dict(self.choice)
                options.update(game_class(self.game).fixed_options(self.players))
                return self.game, self.players, options
        elif name == "undo" and self.step > 0:
            self.step -= 1
        elif name == "undo":
            self.colours_step = True  # the first step's UNDO: the box's station colours
        return None

    def event(self):
        """The `menu` protocol event for the current step."""
        step, index, count = self.position()
        return (
            "menu",
            (
                ("step", step),
                ("value", _show(self._current(step))),
                ("index", index + 1),
                ("of", count),
                ("game", self.game),
                ("players", self.players),
                ("text", self.text(step)),
                ("label", self.label(step)),
            ),
        )
