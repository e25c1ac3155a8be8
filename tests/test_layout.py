"""The host's layout (docs/host.md): no import cycle anywhere in host/, between modules or
between its sub-packages (link, sim, views, records, rooms, hardware); the simulator's fakes of
the board's modules (machine, rp2, neopixel...) loaded only by a simulation, never by a tool that
talks to a real board; and log entries read by name, never by counting slots (issue 21, "Named
data")."""

import ast
import json
import re
import subprocess
import sys

from tablebuzz.paths import FAKES, FAKES_CP, FIRMWARE, HOST

PACKAGE = HOST / "tablebuzz"


def _module_name(path):
    parts = list(path.relative_to(HOST).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    """{dotted name: path} of every module of host/tablebuzz (the fakes are imported by other
    names, `machine` and the like, and import only the simulator's world: left out)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if FAKES in path.parents or FAKES_CP in path.parents:
            continue
        found[_module_name(path)] = path
    return found


def _imports(path, name, modules):
    """The modules of `modules` that the file at `path` (module `name`) imports, at its top or
    inside a function: a cycle through a function-level import is a cycle all the same."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from a.b import c` imports a.b.c when c is a module, else takes a name of a.b
            targets = [base + "." + alias.name if base + "." + alias.name in modules else base
                       for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in modules and t != name)
    return out


def import_graph():
    modules = _modules()
    return {name: _imports(path, name, modules) for name, path in modules.items()}


def cycles(graph):
    """The import cycles of `graph` ({module: set of modules}): its strongly connected components
    of more than one module (Tarjan's algorithm), each as a sorted list."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_function_level_imports():
    graph = import_graph()
    # cli imports the show command inside main(): that edge must be seen
    assert "tablebuzz.show_command" in graph["tablebuzz.cli"]
    assert "tablebuzz.sim.simulate" in graph["tablebuzz.link.connection"]


def test_no_import_cycle_in_host():
    assert cycles(import_graph()) == []


def package_of(name):
    """The sub-package of host/tablebuzz that module `name` belongs to ("tablebuzz.views" for
    tablebuzz.views.show.server), or the module itself when it stands at the top (tablebuzz.cli,
    tablebuzz.show_command, tablebuzz.paths)."""
    parts = name.split(".")
    if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return name


def package_graph(graph):
    """{package: set of packages} from a module graph: an edge wherever a module of one imports a
    module of another."""
    out = {}
    for name, targets in graph.items():
        edges = out.setdefault(package_of(name), set())
        edges.update(package_of(t) for t in targets)
    for name, edges in out.items():
        edges.discard(name)
    return out


def test_the_package_graph_folds_modules_into_their_packages():
    graph = {"tablebuzz.views.show.server": {"tablebuzz.link.serial_link"},
             "tablebuzz.views.table": {"tablebuzz.views.eventlog"},
             "tablebuzz.rooms.state": {"tablebuzz.views.table"},
             "tablebuzz.views.eventlog": set(), "tablebuzz.link.serial_link": set(),
             "tablebuzz.cli": {"tablebuzz.show_command"}, "tablebuzz.show_command": set()}
    assert package_graph(graph) == {
        "tablebuzz.views": {"tablebuzz.link"}, "tablebuzz.rooms": {"tablebuzz.views"},
        "tablebuzz.link": set(), "tablebuzz.cli": {"tablebuzz.show_command"},
        "tablebuzz.show_command": set()}
    # views -> rooms at module level would close a cycle of packages, though no module cycle
    graph["tablebuzz.views.eventlog"] = {"tablebuzz.rooms.topics"}
    graph["tablebuzz.rooms.topics"] = set()
    assert cycles(graph) == []
    assert cycles(package_graph(graph)) == [["tablebuzz.rooms", "tablebuzz.views"]]


def test_no_import_cycle_between_the_packages_of_host():
    packages = package_graph(import_graph())
    assert {"tablebuzz.link", "tablebuzz.sim", "tablebuzz.views", "tablebuzz.records",
            "tablebuzz.rooms", "tablebuzz.hardware"} <= set(packages)
    assert cycles(packages) == []


# `entry[1]`, `entry [2:]`: a log entry (or a catalogue row named so) read by counting its slots
_POSITIONAL = re.compile(r"\b(entry|result)\s*\[\s*\d")


def positional_reads(text):
    """(line number, line) of each `entry[<digit>` or `result[<digit>` in source `text`."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            if _POSITIONAL.search(line)]


def test_the_positional_read_finder_finds_one():
    assert positional_reads("kind = entry[0]\nx = entry[_PLAYER]\ncards = entry[ 2:]") == [
        (1, "kind = entry[0]"), (3, "cards = entry[ 2:]")]
    assert positional_reads("result[p] = 1\nsub_entry[3]\nresult[-1]") == []
    assert positional_reads("best = result[1]") == [(1, "best = result[1]")]


def test_log_entries_are_read_by_name_in_firmware_and_host():
    """Every slot of a log entry has a name (ENTRY_KIND and each game's _PLAYER, _JUDGE_*...:
    docs/games.md); a reader never counts tuple slots."""
    found = []
    for root in (FIRMWARE, HOST):
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".py", ".js") or not path.is_file():
                continue
            for n, line in positional_reads(path.read_text(encoding="utf-8")):
                found.append("%s:%d: %s" % (path.relative_to(root.parent), n, line))
    assert found == []


# A real board's tools, driven as far as they go without a board: each imports what it needs.
_BOARD_SIDE = """
import json, sys
import tablebuzz.cli, tablebuzz.views.show.server, tablebuzz.show_command
import tablebuzz.views.monitor, tablebuzz.views.tui.board, tablebuzz.views.table
import tablebuzz.rooms.command, tablebuzz.link.connection, tablebuzz.records.journal_replay
from tablebuzz import cli
status = [cli.main(["show", "--port", "/dev/no-such-board", "--http", "not-an-address"]),
          cli.main(["hub", "--http", "not-an-address"])]
print(json.dumps({"status": status, "modules": sorted(sys.modules), "path": sys.path,
                  "files": sorted(getattr(m, "__file__", None) or "" for m in
                                  list(sys.modules.values()))}))
"""

_SIM_SIDE = """
import json, sys
from tablebuzz.sim import simulate
sim = simulate.simulation({"seed": "00", "game": "quiz", "players": 2}, lambda ns, line: None)
print(json.dumps({"status": [], "modules": sorted(sys.modules), "path": sys.path,
                  "files": sorted(getattr(m, "__file__", None) or "" for m in
                                  list(sys.modules.values()))}))
"""

# Modules only a board (or the fakes) has. `micropython` and `neopixel` are not named: the
# CircuitPython libraries install real ones for CPython (Adafruit's); a fake of theirs is caught
# by its file, under the fakes' folders.
_FAKE_NAMES = {"machine", "rp2", "framebuf", "uctypes", "ssd1306"}


def _loaded(code):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def _fakes_in(loaded):
    fake_dirs = (str(FAKES), str(FAKES_CP))
    return ({name for name in loaded["modules"] if name in _FAKE_NAMES}
            | {f for f in loaded["files"] if f.startswith(fake_dirs)}
            | {p for p in loaded["path"] if p in fake_dirs})


def test_a_real_boards_tools_load_no_fake_module():
    loaded = _loaded(_BOARD_SIDE)
    assert loaded["status"] == [2, 2]  # the bad address is refused after the imports
    assert "tablebuzz.views.show.server" in loaded["modules"]
    assert _fakes_in(loaded) == set()


def test_a_simulation_loads_the_fakes():
    """The other side of the check above: the simulator's one entry point does load them, so an
    empty set there means none were loaded, not that the check cannot see them."""
    loaded = _loaded(_SIM_SIDE)
    assert {"machine", "rp2"} <= _fakes_in(loaded)


def _built_names(text):
    """Line numbers of `getattr` calls in `text` whose name is built from strings ("_ev_" +
    kind, "_%s_%s" % (...), an f-string, .format()): a handler found by a made-up name."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            name = node.args[1]
            built = isinstance(name, (ast.BinOp, ast.JoinedStr)) or (
                isinstance(name, ast.Call) and isinstance(name.func, ast.Attribute)
                and name.func.attr == "format")
            if built:
                found.append(node.lineno)
    return found


def test_the_built_name_finder_finds_one():
    assert _built_names('h = getattr(self, "_ev_" + str(kind), None)') == [1]
    assert _built_names('h = getattr(self, "_%s_%s" % (g, kind), None)') == [1]
    assert _built_names('h = getattr(self, f"_on_{kind}")') == [1]
    assert _built_names('h = getattr(self, "photo", None)') == []


def test_handlers_are_found_in_explicit_tables_never_by_a_built_name():
    """Every event handler of the host is in a table from event name to function (issue 36:
    views/race.py, views/scores.py, views/games/<game>.py `FOLD` and `WORDS`, eventlog's
    `Narrator.WORDS`), never looked up by a name made from the event's."""
    found = ["%s:%d" % (path.relative_to(HOST), line) for path in sorted(PACKAGE.rglob("*.py"))
             for line in _built_names(path.read_text(encoding="utf-8"))]
    assert not found, found


def test_one_host_module_and_one_page_script_a_game():
    """Each game of the firmware's catalogue has its module under views/games (its view, FOLD
    and WORDS) and its page script under views/show/static/games, loaded by both pages."""
    from refbox.games import CATALOG
    from tablebuzz.views.games import GAMES

    static = PACKAGE / "views" / "show" / "static"
    pages = [(static / page).read_text(encoding="utf-8") for page in ("scoreboard.html",
                                                                       "desk.html")]
    names = [row[0] for row in CATALOG]
    assert sorted(GAMES) == sorted(names)
    for name in names:
        game = GAMES[name]
        assert callable(game.blank) and game.FOLD and game.WORDS, name
        assert all(callable(f) for f in list(game.FOLD.values()) + list(game.WORDS.values()))
        script = static / "games" / ("%s.js" % name)
        assert "TB.games.%s = " % name in script.read_text(encoding="utf-8"), name
        for page in pages:
            assert '<script src="/static/games/%s.js"></script>' % name in page, name


def test_a_game_that_has_a_press_hook_says_so():
    """The referee calls Game.press_entry only when the game's `hears_press`, and buzz_entry
    only when `hears_buzz` (the race's deciding press goes through neither when a game has none:
    refbox.games.base.Game). A game that overrides a hook and never says so would lose every
    entry it makes."""
    from refbox.games import GAME_ORDER, game_class
    from refbox.games.base import Game

    for name in GAME_ORDER:
        cls = game_class(name)
        if cls.press_entry is not Game.press_entry:
            assert cls.hears_press, name
        if cls.buzz_entry is not Game.buzz_entry:
            assert name == "quiz", name  # (the quiz's own: the buzzes of next_in_line's line)
    from helpers import bare_referee

    for next_in_line in (True, False):
        ref, _ = bare_referee(4)
        ref.command("new_game", {"game": "quiz", "players": 4,
                                 "options": {"next_in_line": next_in_line}})
        assert ref.game.hears_buzz is next_in_line
