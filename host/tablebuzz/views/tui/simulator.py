"""The interactive simulator: the real firmware on the simulated clock, in real time.

`run(header)` opens the screen (the header is the dict `tablebuzz sim` builds: seed, game, players,
options, capture, pixels, bounce, ticks_origin_us). Keys 1..N are the player buzzers (shift+digit:
pressed and held until shift+digit again, press and release at their own instants), a/y/n/u the
ARM/YES/NO/UNDO controls (shifted: held 2.5 s), q quits.

The device is reached through the host's one connection layer (tablebuzz.link.connection
.SimConnection): the same firmware in real time, which also runs the clock. Simulated ns 0 is the
wall-clock moment the screen starts. Every ~5 ms a timer polls the connection, which runs the world
up to `now - lag` (20 ms behind the wall clock), so a key is always handled before the simulator
reaches its moment: the contact closes at the exact ns the key event was stamped (textual stamps
`Message.time` with its monotonic clock when the input thread parses the key), and two keys hit
together are ordered, or tied, by the firmware's own capture and arbitration, not by the order this
app handled them. Terminals send no key-up: a key is a press held 120 ms (like the timeline's
control presses). A key for a contact still held is ignored.

The firmware's loop is stepped every simulated millisecond, as on the board (the batch runner
steps only while the firmware reports a timer), so the LED patterns that run without a timer, such
as the tie winner's colour/white alternation, show as they would on the table. The log is written
by the host's one formatter (tablebuzz.views.eventlog); the title, scores and prompts are drawn
from the host's one fold of the events (tablebuzz.views.table), as on a board's screen
(tablebuzz.views.tui.board) and the scoreboard: the simulator shows what a host sees. Only what
the board shows people itself (its LEDs, its tone, its display) is read from the simulated
hardware.

Tests inject a clock (`SimulatorApp(header, clock=...)`): the simulation then moves only when the
test moves that clock, and keys are stamped with its current time (or by `key_time(event)`).
"""

import json

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from tablebuzz.link.connection import SimConnection
from tablebuzz.views.eventlog import Narrator, game_name, menu_text
from tablebuzz.views.table import Table
from tablebuzz.views.tui.terminal import end_with_the_terminal, watch_the_terminal
from tablebuzz.views.tui.widgets import (
    CONTROL_KEYS,
    SCREEN_CSS,
    MarkerBar,
    OledView,
    hex_colour,
    screen_widgets,
)

try:  # the clock textual stamps events with (monotonic; perf_counter on Windows)
    from textual._time import get_time as _textual_time
except ImportError:  # pragma: no cover - a textual without it: same clock on POSIX
    from time import monotonic as _textual_time

TICK_S = 0.01  # how often the world is advanced to the wall clock (keys keep their own times)
PAINT_S = 0.1  # with nothing new, how often the screen is redrawn (blinks, countdowns)
HOLD_NS = 120_000_000  # a key press holds its contact this long (no key-up in terminals)
LONG_HOLD_NS = 2_500_000_000  # shift + control key
SHIFTED_DIGITS = "!@#$%^&*("  # shift + 1..9 on a US keyboard
BLINK_WINDOW_NS = 600_000_000  # a pixel that alternated twice within this is shown as blinking
WIDE_SCREEN = 150  # columns from which the display is shown at start (key o toggles it)

CONTROL_KEY = {"ARM": "a", "YES": "y", "NO": "n", "UNDO": "u"}  # the firmware's labels -> keys
GAME_PAGES = {
    "quiz": "README.md (quiz)",
    "difference": "README.md (Difference)",
    "deglingo": "docs/games/deglingo.md",
    "redblack": "docs/games/redblack.md",
    "diddly": "docs/games/diddly.md",
    "evidence": "docs/games/evidence.md",
}

def _rgb(text):
    """"#rrggbb" (the view's colours) as (r, g, b) 0..255."""
    return tuple(int(text[i : i + 2], 16) for i in (1, 3, 5))


def run(header, records=None, save=None):
    """Open the interactive simulator; returns (exit status (0 on q), the path the session was
    saved to or None). `save`: where `w` and quitting write the session as a timeline."""
    app = SimulatorApp(header, records=records, save=save)
    end_with_the_terminal(app)
    app.run()
    return app.return_code or 0, app.saved_to


def session_timeline(header, taps):
    """The text of a timeline that replays a session: a set-up line (game or "menu", players,
    options, seed) and one line per tap, in time order. `taps`: [(ns, record dict without
    at_us)] in the order they were made; a buzzer's carries "hold_ns" (its release)."""
    setup = {"game": header.get("game") or "menu", "players": header.get("players")}
    if header.get("options"):
        setup["options"] = header["options"]
    setup["seed"] = header["seed"]
    if header.get("display"):
        setup["display"] = True  # the panel's bus time shifts the loop: replay it with the panel
    lines = [
        "# a session of the interactive simulator; replay it: tablebuzz sim --script FILE",
        json.dumps({"setup": setup}),
    ]
    ordered = []
    for ns, rec in taps:
        if "press" in rec:  # a buzzer: its release is a line of its own (none: still held)
            ordered.append((ns, {"press": rec["press"]}))
            if rec.get("hold_ns") is not None:
                ordered.append((ns + rec["hold_ns"], {"release": rec["press"]}))
        else:
            ordered.append((ns, rec))
    ordered.sort(key=lambda item: item[0])  # stable: equal times keep the order they were made
    for ns, rec in ordered:
        at = "%d" % (ns // 1000) if ns % 1000 == 0 else "%d.%03d" % (ns // 1000, ns % 1000)
        lines.append('{"at_us": %s, %s' % (at, json.dumps(rec)[1:]))
    return "\n".join(lines) + "\n"


class SimulatorApp(App):
    """The firmware in the simulator, driven from the keyboard in real time."""

    TITLE = "tablebuzz simulator"
    CSS = SCREEN_CSS

    def __init__(
        self, header, clock=None, key_time=None, records=None, tick_s=TICK_S, save=None
    ):
        super().__init__()
        from refbox import pinmap

        self.header = dict(header)
        self.pinmap = pinmap
        self._clock = clock or _textual_time
        if key_time is None:
            key_time = (lambda event: self._clock()) if clock else (lambda event: event.time)
        self._key_time = key_time
        self._tick_s = tick_s
        self._painted_at = 0.0
        self._texts = {}  # widget name -> the text it shows (SimulatorApp._set_text)
        self._started = False  # the clock runs from the moment the screen starts
        self.link = SimConnection(self.header, records=records, clock=self._clock)
        self.sim = self.link.sim
        self.world = self.link.world
        self.narrator = Narrator()
        # what the screen says about the game is the host's one fold of the device's events, as
        # on a board's screen and the scoreboard (its timers on the simulated clock)
        self._fold_ns = None  # the ns of the item being folded, for the table's clock
        self.table = Table(pinmap.PLAYER_COLOURS, source={"kind": "simulator",
                                                          "label": "simulator"},
                           clock=self._sim_seconds)
        self.stations = pinmap.PLAYER_COUNT
        self.players = self.header.get("players") or self.stations
        self.game = self.header.get("game") or "?"
        self.scores = [0] * self.players
        self.phase = None
        self.answering = None
        self.menu = ""
        self.turn = None
        self.leaders = []
        self.buttons = []  # [(control, meaning)]: what each control does now (the firmware's)
        self.doing = None  # what is happening, in the board's words (the view's `doing`)
        self.save_path = save  # where `w` (and quitting, if given) writes the session
        self.saved_to = None
        self.taps = []  # [(ns, record)]: every key that pressed a contact, for session_timeline
        self.device_events = []  # every (ns, event) the device sent, oldest first
        self.help_open = False
        self._help_panel_shown = None
        self.unit = "points"
        self.colours = list(pinmap.PLAYER_COLOURS)  # each station's colour (a team shares one)
        self.names = {}  # {"3": "Ann"}: the names the events gave
        self.quiz = None  # the quiz's own status (question, value, teams, timer, line), if any
        self.log_lines = []  # plain text of every log line, oldest first (the screen shows them)
        self.late_keys = 0
        self._held_until = {}  # contact -> sim ns its current press ends
        self._holds = {}  # 0-based station -> its taps record, while shift+digit holds it down
        self._hold_began = {}  # 0-based station -> the sim ns its held press closed
        self._scale = self._brightness()
        self._title_shown = None
        self._scores_shown = None
        self._help_shown = None
        self._tapped_at = 0
        self._screen_up = False  # the widgets exist (compose ran)
        self._widgets = {}
        self._pending_log = []

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        w = self._widgets = screen_widgets(self.pinmap, self.stations)
        w["marker"] = MarkerBar(self.pinmap.MARKER_PIXELS, id="marker")
        w["helppanel"] = Static(id="helppanel")
        if self.sim.panel is not None:
            w["oled"] = OledView(self.sim.panel, id="oled")
        w["helppanel"].display = False
        yield w["title"]
        with Horizontal(id="buzzers"):
            yield from w["buzzers"]
        with Horizontal(id="bottom"):
            yield w["marker"]
            yield from w["controls"]
        yield w["scores"]
        with Horizontal(id="middle"):
            yield w["log"]
            if "oled" in w:
                yield w["oled"]
        yield w["helppanel"]
        yield w["help"]
        self._screen_up = True
        for text in self._pending_log:
            w["log"].write(text)
        self._pending_log = []

    def on_mount(self):
        if "oled" in self._widgets:
            self._widgets["oled"].display = self.size.width >= WIDE_SCREEN
        self.link.start()
        self._started = True
        self.pump()
        if self._tick_s:
            self.set_interval(self._tick_s, self.pump)
        watch_the_terminal(self)  # set up by run(): a screen on a real terminal

    # ------------------------------------------------------------------ the clock
    def _sim_seconds(self):
        """The table's clock: the simulated time, in seconds, of the item being folded (or of
        now, when the view is drawn), so its countdowns run on the simulator's clock."""
        ns = self._fold_ns if self._fold_ns is not None else self.world.now
        return ns / 1e9

    def sim_ns(self, wall):
        """Simulated ns for a wall-clock time (seconds on the app's clock)."""
        return self.link.sim_ns(wall)

    def pump(self):
        """Poll the connection (it runs the world up to the wall clock minus the input lag),
        then show what changed."""
        if not self._started:
            return
        changed = False
        for item in self.link.poll():
            changed = True
            self._fold_ns = getattr(item, "ns", None)
            self.table.apply(item)
            self._fold_ns = None
            if item.kind == "event":
                self.device_events.append((item.ns, item.event))
                self._event(item.ns, item.event)
            else:
                self._log(Text(item.text, style="italic #ff8700"), item.ns)
        # the screen is redrawn when something came, and 10 times a second for what moves by
        # itself (blinking stations, a countdown): an idle simulator costs a few per cent of a
        # core, not a redraw every 5 ms
        now = self._clock()
        if changed or now - self._painted_at >= PAINT_S:
            self._painted_at = now
            self._paint()

    # ------------------------------------------------------------------ keys
    def on_key(self, event: events.Key) -> None:
        self._painted_at = float("-inf")  # a key changes the screen: the next pass redraws
        char = event.character or ""
        key = event.key
        if key == "q" or char == "q":
            event.stop()
            if self.save_path:
                self.save_session()
            self.exit(0)
            return
        if char == "w":
            event.stop()
            self.save_session()
            return
        if char == "?":
            event.stop()
            self.toggle_help()
            return
        if char == "o" and "oled" in self._widgets:
            event.stop()
            oled = self._widgets["oled"]
            oled.display = not oled.display
            return
        at = self.sim_ns(self._key_time(event)) if self._started else 0
        if len(char) == 1 and char in "123456789" + SHIFTED_DIGITS:
            held = char in SHIFTED_DIGITS
            station = SHIFTED_DIGITS.index(char) if held else int(char) - 1
            if station < self.players:
                event.stop()
                if held:
                    self.toggle_hold(station, at)
                elif self.tap(self.sim.players[station], at, HOLD_NS):
                    self.taps.append((self._tapped_at, {"press": station + 1, "hold_ns": HOLD_NS}))
            return
        for letter, name, _ in CONTROL_KEYS:
            if char == letter or char == letter.upper():
                event.stop()
                hold = LONG_HOLD_NS if char.isupper() else HOLD_NS
                if self.tap(self.sim.controls[name], at, hold):
                    rec = {"control": name}
                    if hold != HOLD_NS:
                        rec["hold_ms"] = hold // 1_000_000
                    self.taps.append((self._tapped_at, rec))
                return

    def toggle_hold(self, station, at_ns):
        """Shift+digit: the buzzer of 0-based `station` goes down and stays down (held) until
        shift+digit again lets it go, each at its own instant (the link's hold / let_go), so a
        button held at ARM, a held claim, a jump pad's release can be tried by hand."""
        contact = self.sim.players[station]
        held = self._holds.pop(station, None)
        if held is not None:  # let go now: the session's record gets its length
            opened = self.link.let_go(contact, at_ns)
            if opened is not None:
                held["hold_ns"] = opened - self._hold_began.pop(station)
            return
        accepted, late = self.link.hold(contact, at_ns)
        if accepted:
            rec = {"press": station + 1, "hold_ns": None}  # None: still held
            self._holds[station] = rec
            self._hold_began[station] = at_ns + late
            self.taps.append((at_ns + late, rec))

    def tap(self, contact, at_ns, hold_ns=HOLD_NS):
        """Close `contact` at simulated ns `at_ns` and open it `hold_ns` later; False if it was
        still held (the key is ignored)."""
        accepted, late = self.link.tap(contact, at_ns, hold_ns)
        self._tapped_at = at_ns + late  # when the contact really closes
        if late:  # handled after the world passed its moment (a stall)
            self.late_keys += 1
            self._log(
                Text(
                    "input %.1f ms late: pressed at the simulator's now" % (late / 1e6),
                    style="italic #888888",
                )
            )
        return accepted

    def save_session(self):
        """Write the session so far as a timeline (session_timeline) to `save_path`, or to
        session-<seed>.jsonl here; it replays with `tablebuzz sim --script FILE`."""
        path = self.save_path or "session-%s.jsonl" % self.header["seed"][:8]
        header = dict(self.header, players=self.header.get("players") or self.stations)
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(session_timeline(header, self.taps))
        except OSError as e:
            self._log(Text("cannot save %s: %s" % (path, e.strerror), style="bold #ff5f5f"))
            return None
        self.saved_to = path
        self._log(Text("session saved: tablebuzz sim --script %s" % path, style="bold #87d7ff"))
        return path

    def toggle_help(self):
        """`?`: show or hide the help panel (keys, and what each control does now)."""
        self.help_open = not self.help_open
        if self._screen_up:
            self._widgets["helppanel"].display = self.help_open
            self._paint_help_panel()

    def help_text(self):
        """The help panel's text: what each control does now (the firmware's button map), the
        keys, where the game's page is."""
        lines = ["What the controls do now:"]
        for control, meaning in self.buttons:
            lines.append("  [%s] %s: %s" % (self._key_of(control), control, meaning))
        if self.phase == "menu":
            lines.append("  [u] UNDO: back one step (on the first step: nothing)")
        else:
            lines.append("  [u] UNDO: take back the last decision; [U] held 2.5 s: the menu")
        lines += [
            "",
            "Keys: 1-%d buzzers (shift+digit: held until again), a ARM, y YES, n NO, u UNDO"
            % self.players,
            "      capitals hold a control 2.5 s (A / N held: fast entry), w save the session,",
            "      o the display (the simulated SSD1306), ? this help, q quit",
            "Game page: %s" % GAME_PAGES.get(self.game, "README.md"),
        ]
        return "\n".join(lines)

    def _paint_help_panel(self):
        if self.help_open and self._screen_up:
            text = self.help_text()
            if text != self._help_panel_shown:
                self._help_panel_shown = text
                self._widgets["helppanel"].update(Text(text))

    # ------------------------------------------------------------------ device events

    def _event(self, ns, ev):
        """One device event into the log (the screen's status is drawn from the table)."""
        kind = ev.get("ev")
        if kind == "game":
            self._log(Text(self.narrator.line(ev), style="bold #87d7ff"), ns)
            return
        if kind == "hello":
            self._log(Text(self.narrator.line(ev), style="#8899aa"), ns)
            return
        line = self.narrator.line(ev)
        self._log(self._styled(kind, ev, line), ns, line)

    def _stations(self):
        """Each station's (r, g, b) as the board announced them (its palette: views.table)."""
        return [_rgb(c) for c in self.table.colours]

    def _styled(self, kind, ev, line):
        colours = self._stations()
        if kind == "race":
            winner = ev.get("winner") or 1
            text = Text()
            text.append(" RACE ", style="bold black on #ffd75f")
            body = line.split(": ", 1)[-1]
            text.append(" %s " % body, style="bold black on " + hex_colour(colours[winner - 1]))
            return text
        if kind == "margin":
            return Text(line, style="bold " + hex_colour(colours[(ev.get("winner") or 1) - 1]))
        styles = {
            "press": "#9aa5b1",
            "armed": "bold #ffffff",
            "judge": "bold #5fd75f" if ev.get("correct") else "bold #ff5f5f",
            "score": "bold #ffd75f",
            "lockout": "#ff8700",
            "unlock": "#87af87",
            "error": "bold #ff5f5f",
            "game_over": "bold #d7afff",
            "undo": "#87d7ff",
        }
        return Text(line, style=styles.get(kind, "#c0c8d0"))

    def _log(self, text, ns=None, plain=None):
        if ns is None:
            ns = self.world.now
        stamp = Text("%8.3f s " % (ns / 1e9), style="#5f6b78")
        self.log_lines.append(stamp.plain + (plain if plain is not None else text.plain))
        if self._screen_up:
            self._widgets["log"].write(stamp + text)
        else:
            self._pending_log.append(stamp + text)

    # ------------------------------------------------------------------ LEDs
    def _brightness(self):
        try:
            from refbox import board

            return getattr(board, "_BRIGHTNESS", 64) or 64
        except ImportError:  # pragma: no cover
            return 64

    def _pixel(self, value):
        """The firmware's colour (0..255) as it arrives at the pixel."""
        b = self._scale
        return (value[0] * b // 255, value[1] * b // 255, value[2] * b // 255)

    def display_rgb(self, rgb):
        """A pixel's drive level as a terminal colour: scaled to full range, with a gamma so that
        'dim' stays visible."""
        if rgb == (0, 0, 0):
            return (0, 0, 0)
        b = self._scale
        return tuple(int(round(255 * min(1.0, c / b) ** 0.5)) for c in rgb)

    def _classify(self, station, rgb):
        colour = self.colours[station]
        if rgb == (0, 0, 0):
            return "off"
        if rgb == self._pixel(colour):
            return "full"
        if rgb == self._pixel(tuple(c // 10 for c in colour)):
            return "dim"
        if rgb == self._pixel((255, 255, 255)):
            return "white"
        return "on"  # another shade (the menu shows the players at a quarter)

    def led_levels(self):
        """[(display rgb, level)] for each station pixel, from the newest frames."""
        frames = self.world.pixel_frames
        count = self.stations + self.pinmap.MARKER_PIXELS
        newest = frames[-1][2] if frames else [(0, 0, 0)] * count
        since = self.world.now - BLINK_WINDOW_NS
        recent = []
        for t, _, frame in reversed(frames):
            recent.append(frame)
            if t <= since:
                break
        recent.reverse()
        result = []
        for i in range(self.stations):
            rgb = tuple(newest[i]) if i < len(newest) else (0, 0, 0)
            level = self._classify(i, rgb)
            seq = []
            for frame in recent:
                c = self._classify(i, tuple(frame[i]))
                if not seq or seq[-1] != c:
                    seq.append(c)
            tail = set(seq[-3:])
            if len(seq) >= 3 and seq[-1] == seq[-3] and len(tail) == 2:  # went A, B, A lately
                if tail == {"full", "off"}:
                    level = "blink"
                elif tail == {"full", "dim"}:
                    level = "blink"
                elif tail == {"full", "white"}:
                    level = "tie"
            result.append((self.display_rgb(rgb), level))
        return result

    def marker_pixels(self):
        frames = self.world.pixel_frames
        n = self.pinmap.MARKER_PIXELS
        if not frames:
            return [(0, 0, 0)] * n
        frame = frames[-1][2]
        return [self.display_rgb(tuple(p)) for p in frame[self.stations : self.stations + n]]

    # ------------------------------------------------------------------ painting
    def _set_text(self, name, text):
        """Update widget `name` only when its text changed: an unchanged screen costs no
        re-render (an idle simulator must cost a few per cent of a core)."""
        if self._texts.get(name) != text:
            self._texts[name] = text
            self._widgets[name].update(text)

    def _paint(self):
        if not self._screen_up:
            return
        w = self._widgets
        for i, (rgb, level) in enumerate(self.led_levels()):
            w["buzzers"][i].show(rgb, level, self.sim.players[i].closed, i < self.players)
        w["marker"].show(self.marker_pixels())
        for button in w["controls"]:
            button.show(self.sim.controls[button.control].closed)
        self._read_view()
        self._paint_scores()
        self._paint_title()
        self._paint_help()
        self._paint_help_panel()
        if "oled" in w and w["oled"].display:
            w["oled"].refresh_picture()

    def _read_view(self):
        """The game's status from the host's one fold of the events (tablebuzz.views.table), as
        a board's screen and the scoreboard draw it; the board's own prompts (`buttons`) say what
        each control does. Only what the board shows people directly (its LEDs, the tone, the
        display) is read from the simulated hardware."""
        view = self.table.view(desk=True)
        self.buttons = [tuple(pair) for pair in view["prompts"]]
        self.doing = view["doing"]
        g = view["game"]
        if view["menu"] is not None or g is None:
            menu = view["menu"] or {}
            self.phase = "menu" if view["menu"] is not None else None
            self.menu = menu_text(menu) if menu else ""
            self.players = menu.get("players") or self.players
            self.leaders, self.quiz, self.names = [], None, {}
            self.colours = self._stations()
            return
        self.game, self.players = g["name"], g["players"]
        self.phase, self.answering, self.turn = g["phase"], g["answering"], g["turn"]
        self.scores, self.unit, self.names = list(g["scores"]), g["unit"], g["names"]
        over = g["over"]
        self.leaders = ([r["player"] for r in over["ranking"] if r["place"] == 1]
                        if over and not over.get("abandoned") else [])
        self.colours = [_rgb(c) for c in g["colours"]] + self._stations()[len(g["colours"]):]
        self.quiz = self._quiz_view(g) if g["name"] == "quiz" else None

    @staticmethod
    def _quiz_view(g):
        """What the quiz screen shows beyond the scores, from the view: the question and its
        value, the teams, the running timer, and who pressed after the answerer in the race's
        order (those the board has not locked out: who may get the floor is the board's rule,
        told by its `next_in_line`)."""
        v, race = g["view"], g["race"] or {}
        order = [row["player"] for row in race.get("order") or ()
                 if str(row["player"]) not in g["locked"]]
        return {
            "timer": g["timers"][0] if g["timers"] else None,
            "question": v.get("question") or 0,
            "points": v.get("points"),
            "teams": v.get("teams") or None,
            "then": [p for p in order if p != g["answering"]] if race.get("winner") else [],
            "sudden": v.get("sudden_death") is not None,
        }

    def who(self, player):
        """A 1-based player as people read it: their name if they have one, else P3."""
        name = self.names.get(str(player))
        return "%s (P%d)" % (name, player) if name else "P%d" % player

    def _paint_scores(self):
        colours = self._stations()
        text = Text()
        text.append(self.unit.upper() + " ", style="bold #ffd75f")
        best = tuple(self.leaders)
        colours = self.colours or colours
        quiz = self.quiz
        if quiz and quiz["teams"]:
            top = max(team["score"] for team in quiz["teams"])
            for team in quiz["teams"]:
                name = team["name"] or "team %d" % team["team"]
                colour = hex_colour(colours[team["players"][0] - 1])
                style = "bold black on " + colour if team["score"] == top else "bold"
                text.append(" %s " % name, style="bold " + colour)
                text.append("%d" % team["score"], style=style)
                text.append(" (%s)  " % " ".join(
                    "%s %d" % (self.who(p), self.scores[p - 1]) for p in team["players"]
                ))
        else:
            for i, points in enumerate(self.scores):
                style = "bold black on " + hex_colour(colours[i]) if i + 1 in best else "bold"
                colour = hex_colour(colours[i % len(colours)])
                text.append(" %s " % self.who(i + 1), style="bold " + colour)
                text.append("%d" % points, style=style)
                text.append("  ")
        if (text.plain, best) != self._scores_shown:
            self._scores_shown = (text.plain, best)
            self._set_text("scores", text)

    def _hint(self):
        """What the table is asked now and which control does what: the board's sentence for it
        (the quiz: its question and value first, who pressed after the answerer), then the
        firmware's own button map (Referee.buttons) with this keyboard's keys."""
        phase = self.phase or ""
        quiz = self.quiz
        head = ""
        if phase == "menu":
            hint = "MENU " + self.menu
        else:
            if quiz and phase != "over" and quiz["question"]:
                head = "Q%d (%s pts%s) · " % (
                    quiz["question"], "?" if quiz["points"] is None else quiz["points"],
                    ", sudden death" if quiz["sudden"] else ""
                )
                timer = quiz["timer"]
                if timer is not None:
                    head += "%s %d s left · " % (timer["label"],
                                                 (timer["remaining_ms"] + 999) // 1000)
            hint = self.doing or ""  # the board's words (`buttons.doing`, `armed.doing`)
            if phase == "answering" and self.answering and quiz and quiz["then"]:
                hint += " · buzzed after: " + " ".join("P%d" % p for p in quiz["then"])
        for control, meaning in self.buttons:
            hint += "  [%s] %s" % (self._key_of(control), meaning)
        return head + hint

    def _key_of(self, control):
        """The key that works `control` (a firmware label: ARM, YES, NO, UNDO, buzz, P3)."""
        if control in CONTROL_KEY:
            return CONTROL_KEY[control]
        if control == "buzz":
            return "1-%d" % self.players
        return control[1:]  # "P3": buzzer 3

    def _paint_title(self):
        hint = self._hint()
        tone = self.world.tones[-1][1] if self.world.tones else 0
        seconds = self.world.now // 100_000_000 / 10
        key = (self.game, self.players, hint, tone, seconds, self.late_keys)
        if key == self._title_shown:
            return
        self._title_shown = key
        text = Text(" tablebuzz ", style="bold black on #87d7ff")
        if self.phase != "menu":
            text.append(" %s · %d players " % (game_name(self.game), self.players), style="bold")
        if hint:
            style = "bold black on #ffd75f" if self.phase == "racing" else "bold #ffd75f"
            text.append(" %s " % hint, style=style)
        right = Text()
        clock = " t %d s " % seconds  # whole seconds: an idle screen changes once a second
        if tone and len(text.plain) + len(clock) + 12 <= self.size.width:
            right.append(" ♪ %d Hz " % tone, style="bold #ffaf00")
        if len(text.plain) + len(right.plain) + len(clock) <= self.size.width:
            right.append(clock, style="#c0c8d0")
        text.truncate(self.size.width - len(right.plain))
        text.append(" " * (self.size.width - len(text.plain) - len(right.plain)))
        text.append_text(right)
        self._set_text("title", text)

    def _paint_help(self):
        if self._help_shown == self.players:
            return
        self._help_shown = self.players
        text = Text(" ")
        keys = [("1-%d" % self.players, "buzz")] + [(k, n) for k, n, _ in CONTROL_KEYS]
        keys += [("A/Y/N/U", "hold 2.5s"), ("shift+1-%d" % self.players, "hold / let go")]
        keys += [("?", "help"), ("o", "display"), ("w", "save"), ("q", "quit")]
        for key, what in keys:
            text.append(" %s " % key, style="bold black on #c0c8d0")
            text.append(" %s " % what)
        self._set_text("help", text)
