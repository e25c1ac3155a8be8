"""`tablebuzz tui [--port DEV]`: the terminal screen on a real board, through the connection layer
(tablebuzz.link.connection), drawn from the host's one fold of the board's events
(tablebuzz.views.table), as the scoreboard is."""


from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal

from tablebuzz.link.serial_link import LinkError
from tablebuzz.views.eventlog import Narrator, menu_text
from tablebuzz.views.tui.terminal import end_with_the_terminal, watch_the_terminal
from tablebuzz.views.tui.widgets import CONTROL_KEYS, SCREEN_CSS, screen_widgets


class BoardApp(App):
    """The same screen for a real board (`tablebuzz tui --port DEV`), through the same connection
    layer as the scoreboard: the players press the real buzzers; a/y/n/u send the box's ARM, YES,
    NO, UNDO (the `control` command; capitals: UNDO held, back to the menu). A board does not
    report its LEDs, so each station shows what the events say (the floor, a lockout, out), from
    the host's one fold of the events (tablebuzz.views.table)."""

    TITLE = "tablebuzz"
    CSS = SCREEN_CSS

    def __init__(self, link, poll_s=0.02):
        super().__init__()
        from refbox import pinmap

        from tablebuzz.views.table import Table

        self.pinmap = pinmap
        self.link = link
        self.table = Table(pinmap.PLAYER_COLOURS, source={"kind": "board", "label": link.label})
        self.narrator = Narrator()
        self.stations = pinmap.PLAYER_COUNT
        self.log_lines = []
        self._poll_s = poll_s
        self._widgets = {}

    def compose(self) -> ComposeResult:
        w = self._widgets = screen_widgets(self.pinmap, self.stations)
        yield w["title"]
        with Horizontal(id="buzzers"):
            yield from w["buzzers"]
        with Horizontal(id="bottom"):
            yield from w["controls"]
        yield w["scores"]
        yield w["log"]
        yield w["help"]

    def on_mount(self):
        self.link.start()
        help_text = Text(" ")
        for key, what in [(k, n) for k, n, _ in CONTROL_KEYS] + [("U", "menu"), ("q", "quit")]:
            help_text.append(" %s " % key, style="bold black on #c0c8d0")
            help_text.append(" %s " % what)
        help_text.append("  the players press the real buzzers")
        self._widgets["help"].update(help_text)
        self.pump()
        if self._poll_s:
            self.set_interval(self._poll_s, self.pump)
        watch_the_terminal(self)  # set up by run(): a screen on a real terminal

    def pump(self):
        for item in self.link.poll():
            self.table.apply(item)
            if item.kind == "event":
                text = Text(self.narrator.line(item.event), style="#c0c8d0")
            elif item.kind == "status":
                text = Text("link: " + item.text, style="bold #87d7ff")
            else:
                text = Text("notice: " + item.text, style="italic #ff8700")
            self.log_lines.append(text.plain)
            if self._widgets:
                self._widgets["log"].write(text)
        if self._widgets:
            self._paint()

    def _paint(self):
        g = self.table.game
        view = self.table.view(desk=True)  # the operator's screen: the board's prompts too
        src = view["source"]
        title = Text(" tablebuzz ", style="bold black on #87d7ff")
        title.append(" %s " % ("board connected" if src["connected"] else src["status"]),
                     style="bold #5fd75f" if src["connected"] else "bold #ff5f5f")
        if g is not None:
            title.append(" %s · %d players " % (g["title"], g["players"]), style="bold")
            if view["doing"]:  # what is happening, in the board's words
                title.append(" %s " % view["doing"], style="bold")
        elif view["menu"]:
            menu = view["menu"]
            title.append(" MENU %s " % menu_text(menu), style="bold #ffd75f")
        for control, meaning in view["prompts"]:  # the board's own prompts (`buttons`)
            title.append(" %s %s " % (control, meaning), style="bold #ffd75f")
        self._widgets["title"].update(title)
        for i, buzzer in enumerate(self._widgets["buzzers"]):
            p = i + 1
            in_game = g is not None and p <= g["players"]
            level = "off"
            if in_game:
                lock = g["locked"].get(str(p))
                if g["answering"] == p:
                    level = "full"
                elif lock:
                    level = "off" if lock["reason"] == "wrong" else "blink"
                elif g["armed"] and p in g["eligible"]:
                    level = "full"
                else:
                    level = "dim"
            shown = g["colours"][i] if in_game else self.table.colours[i]  # the box's palette
            colour = tuple(int(shown[k:k + 2], 16) for k in (1, 3, 5))
            rgb = {"full": colour, "blink": colour, "dim": tuple(c // 3 for c in colour)}.get(
                level, (0, 0, 0))
            buzzer.show(rgb, level, False, in_game)
        scores = Text()
        if g is not None:
            scores.append(g["unit"].upper() + " ", style="bold #ffd75f")
            for i, s in enumerate(g["scores"]):
                colour = g["colours"][i]  # as the box lights them (its palette, a team's)
                scores.append(" P%d " % (i + 1), style="bold " + colour)
                scores.append("%d  " % s, style="bold")
        self._widgets["scores"].update(scores)

    def on_key(self, event: events.Key) -> None:
        char = event.character or ""
        if char == "q":
            event.stop()
            self.exit(0)
            return
        for letter, name, _ in CONTROL_KEYS:
            if char in (letter, letter.upper()):
                event.stop()
                control = "undo:hold" if char == "U" else name
                try:
                    self.link.send({"cmd": "control", "name": control})
                except LinkError as e:
                    self.log_lines.append("not sent: %s" % e)
                    self._widgets["log"].write(Text("not sent: %s" % e, style="bold #ff5f5f"))
                return


def run_board(port):
    """`tablebuzz tui [--port DEV]`: the screen on a real board; exit status 0 on q."""
    from tablebuzz.link.connection import BoardConnection

    link = BoardConnection(port)
    app = BoardApp(link)
    end_with_the_terminal(app)
    try:
        app.run()
    finally:
        link.close()
    return app.return_code or 0
