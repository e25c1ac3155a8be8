"""Rooms on an MQTT broker (issue 23, docs/rooms.md): the spool, the hub's idempotent fold, and
end to end: simulated rooms (`tablebuzz show --sim --mqtt ... --room NAME`) and the director's
hub (`tablebuzz hub`) as subprocesses, with the embedded broker (amqtt) and with a real Mosquitto
started by the test on a free port of 127.0.0.1; the director's page in a real Chromium (the
scoreboard's machinery, tests/test_show.py); a Mosquitto restart in the middle of a game.
"""

import json
import os
import subprocess
import time

import jsonschema
import pytest
from brokers import TABLEBUZZ, Mosquitto, free_port, hub, room, wait_for
from tablebuzz.paths import REPO
from tablebuzz.rooms import topics
from tablebuzz.rooms.spool import Spool, SpoolError
from tablebuzz.rooms.state import HubState
from test_show import ARTIFACTS, browser, on, open_page, wait_text  # noqa: F401 - the fixture

EXAMPLES = REPO / "examples"
COLOURS = [(255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255), (0, 220, 200)]


# ------------------------------------------------------------------------------ the spool
def test_spool_keeps_what_the_broker_has_not_acknowledged_across_a_restart(tmp_path):
    path = tmp_path / "room.jsonl"
    spool = Spool(path)
    for i in range(1, 6):
        assert spool.append("tablebuzz/a/events", "m%d" % i) == i
    spool.ack(2)
    run = spool.run
    spool.close()
    with open(path, "a") as f:
        f.write('{"seq": 6, "topic": "tablebuzz/a/ev')  # a crash in the middle of a line
    again = Spool(path)
    assert again.run == run
    assert [m[0] for m in again.unsent()] == [3, 4, 5]  # the torn line was never sent
    assert [m[0] for m in again.unsent_after(3, 1)] == [4]
    assert again.append("tablebuzz/a/events", "m6") == 6  # numbering goes on, no gap
    again.ack(6)
    again.compact()
    again.close()
    third = Spool(path)
    assert third.unsent() == [] and third.next_seq() == 7  # a compacted spool keeps its count
    third.close()
    (tmp_path / "other.jsonl").write_text('{"record": "tablebuzz-game"}\n')
    with pytest.raises(SpoolError):
        Spool(tmp_path / "other.jsonl")


def test_room_names_are_single_topic_levels():
    assert topics.check_room("room-7_B") == "room-7_B"
    for bad in ("", "a/b", "a+", "#", "x" * 33, "é"):
        with pytest.raises(ValueError):
            topics.check_room(bad)
    assert topics.parse_topic("tablebuzz/a/events") == ("a", "events")
    assert topics.parse_topic("tablebuzz/a/b/events") is None


# ------------------------------------------------------------------------------ the hub's fold
def _events(room, run, lines, first_seq=1):
    game = "%s-1" % run
    return [("tablebuzz/%s/events" % room, json.dumps(
        {"room": room, "run": run, "seq": first_seq + i, "game": game, "n": i + 1,
         "line": line}).encode()) for i, line in enumerate(lines)]


def test_the_hub_counts_each_message_once_and_names_a_gap():
    state = HubState(COLOURS)
    lines = ['{"ev":"score","scores":[%d,0],"unit":"points"}' % i for i in range(5)]
    messages = _events("a", "r1", lines)
    for topic, payload in messages + messages[1:3]:  # two arrive twice (a lost PUBACK)
        state.apply(topic, payload, 0)
    room = state.rooms_by_name["a"]
    assert (room.events, room.duplicates, room.missing()) == (5, 2, 0)
    state.apply(*_events("a", "r1", ["{}"], first_seq=8)[0], 0)  # 6 and 7 have not come
    assert room.missing() == 2
    state.apply(*_events("a", "r2", ["{}"], first_seq=1)[0], 0)  # another run starts at 1
    assert room.events == 7 and room.duplicates == 2
    assert state.apply("tablebuzz/a/events", b"not json", 0) is None
    assert state.apply("other/a/events", b"{}", 0) is None


# ------------------------------------------------------------------------------ end to end
@pytest.fixture
def procs():
    started = []
    yield started
    for p in reversed(started):
        err = p.stop() if hasattr(p, "url") else p.stop()
        assert "Traceback" not in (err or ""), err


def _rooms(h):
    return {r["room"]: r for r in h.get_json("/rooms.json")["rooms"]}


def _two_rooms_live(browser, procs, tmp_path, broker_port, h, label, join=None):  # noqa: F811
    procs.append(room("alpha", broker_port, tmp_path / "alpha.jsonl", "--script",
                      EXAMPLES / "quiz_demo.jsonl", "--speed", "2", join=join))
    procs.append(room("beta", broker_port, tmp_path / "beta.jsonl", "--script",
                      EXAMPLES / "quiz_tournament.jsonl", "--speed", "3", join=join))
    page = browser.new_page()
    try:
        open_page(page, h.url + "/")
        wait_text(page, "[data-room=alpha]", ["alpha", "online", "box connected", "quiz"])
        wait_text(page, "[data-room=beta]", ["beta", "Owls", "Foxes", "Hares"])
        wait_text(page, "[data-room=beta]", ["game over", "1. Owls 35"], timeout=30000)
        wait_text(page, "[data-room=alpha]", ["game over"], timeout=30000)
        wait_text(page, "#standings", ["Standings · quiz", "Owls", "35.00", "alpha P5"])
        body = page.locator("body").inner_text()
        assert "undefined" not in body and "NaN" not in body and "null" not in body
        # every name in its own isolate: a bidi control in one cannot reorder the page
        isolated = page.eval_on_selector_all("#rooms bdi, #standings bdi",
                                             "(ns) => ns.map((n) => n.textContent)")
        assert {"Owls", "Foxes", "Hares"} <= set(isolated), isolated
        on(page).screenshot(path=str(ARTIFACTS / ("director-%s.png" % label)), full_page=True)
        open_page(page, h.url + "/overlay/beta")  # the hub's overlay of one room
        wait_text(page, "#winner", ["P1", "nobody else pressed"])  # the game is over
        wait_text(page, "#status", ["Winner: Owls"])
        wait_text(page, "#teams", ["Owls", "35"])
    finally:
        page.close()
    rooms = _rooms(h)
    assert [p["score"] for p in rooms["alpha"]["players"]] == [0, 0, 0, 0, 1, 0]
    assert [t["score"] for t in rooms["beta"]["teams"]] == [35, 25, 5]
    assert rooms["beta"]["missing"] == 0 and rooms["alpha"]["missing"] == 0
    standings = h.get_json("/rooms.json")["standings"]["quiz"]
    owls = next(r for r in standings if r["name"] == "Owls")
    assert (owls["wins"], owls["losses"], owls["points"], owls["ppg"]) == (1, 0, 35, 35.0)
    export = [json.loads(line) for line in h.get_text("/export.jsonl").splitlines()]
    assert sorted(g["room"] for g in export) == ["alpha", "beta"]
    assert "quiz,1,Owls,beta,1,1,0,0,35,35.0" in h.get_text("/standings.csv")


def test_two_rooms_live_on_the_director_page_with_the_embedded_broker(browser, procs,  # noqa: F811
                                                                       tmp_path):
    h = hub()
    procs.append(h)
    _two_rooms_live(browser, procs, tmp_path, h.listen, h, "embedded", join=h)


def test_two_rooms_live_on_the_director_page_with_mosquitto(browser, procs, tmp_path):  # noqa: F811
    broker = Mosquitto(tmp_path / "mosquitto")
    procs.append(broker)
    h = hub(broker_port=broker.port)
    procs.append(h)
    _two_rooms_live(browser, procs, tmp_path, broker.port, h, "mosquitto")


def test_a_broker_restart_mid_game_loses_nothing_and_counts_nothing_twice(procs, tmp_path):
    script = EXAMPLES / "quiz_tournament.jsonl"  # 8.2 s of play: 4.1 s at speed 2
    sim = subprocess.Popen([str(TABLEBUZZ), "sim", "--script", str(script)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    broker = Mosquitto(tmp_path / "mosquitto")
    procs.append(broker)
    h = hub(broker_port=broker.port)
    procs.append(h)
    gamma_room = room("gamma", broker.port, tmp_path / "gamma.jsonl", "--script", script,
                      "--speed", "2")
    procs.append(gamma_room)
    wait_for(lambda: _rooms(h).get("gamma", {}).get("events", 0) >= 10)
    before = _rooms(h)["gamma"]["events"]
    broker.restart(away_s=2.0)  # the room plays on meanwhile: its events wait in the spool
    out, err = sim.communicate(timeout=60)  # the same game without a broker, meanwhile
    assert sim.returncode == 0, err
    expected = out.splitlines()
    wait_for(lambda: _rooms(h)["gamma"]["games_finished"] == 1 and
             _rooms(h)["gamma"]["events"] >= len(expected), timeout=40)  # the last lines too
    time.sleep(0.5)  # anything more would be counted twice
    gamma = _rooms(h)["gamma"]
    assert before < len(expected)  # the restart was in the middle of the game
    assert gamma["missing"] == 0
    assert gamma["events"] == len(expected)  # every event once, hello to game_over
    record = json.loads(h.get_text("/export.jsonl").splitlines()[0])
    lines = [obj["line"] for obj in record["lines"] if "line" in obj]
    over = next(i for i, line in enumerate(expected) if '"ev":"game_over"' in line)
    assert lines == expected[1:over + 1]  # the record: `game` to `game_over`, in order, once
    assert [t["score"] for t in gamma["teams"]] == [35, 25, 5]
    said = gamma_room.stop()
    assert "is away" in said and said.count("publishing to the broker") == 2  # it was cut off


# ------------------------------------------------------------------------- QBJ, quiz standings
QBJ_SCHEMA = json.loads((REPO / "tests" / "qbj" / "qbj.schema.json").read_text())


def _ids_and_refs(node, ids, refs):
    """Every `id` defined and every `$ref` used in a QBJ document (serialization.md)."""
    if isinstance(node, dict):
        if "$ref" in node:
            refs.append(node["$ref"])
        if "id" in node:
            ids.append(node["id"])
        for value in node.values():
            _ids_and_refs(value, ids, refs)
    elif isinstance(node, list):
        for value in node:
            _ids_and_refs(value, ids, refs)


def test_the_hub_exports_two_rooms_quiz_games_as_one_qbj_tournament_with_powers_and_negs(
        procs, tmp_path):
    h = hub()
    procs.append(h)
    procs.append(room("north", h.listen, tmp_path / "north.jsonl", "--script",
                      EXAMPLES / "quizbowl_naqt.jsonl", "--speed", "25", join=h))
    procs.append(room("south", h.listen, tmp_path / "south.jsonl", "--script",
                      EXAMPLES / "quiz_tournament.jsonl", "--speed", "8", join=h))
    wait_for(lambda: all(_rooms(h).get(n, {}).get("games_finished") == 1
                         for n in ("north", "south")), timeout=40)
    doc = json.loads(h.get_text("/tournament.qbj"))
    jsonschema.validate(doc, QBJ_SCHEMA)
    ids, refs = [], []
    _ids_and_refs(doc, ids, refs)
    assert len(ids) == len(set(ids)) and set(refs) <= set(ids)  # each id once, every ref defined
    (phase,) = doc["objects"][0]["phases"]
    (first_round,) = phase["rounds"]  # each room's first game: round 1
    (north,) = first_round["matches"]  # south's 3-team quiz is no Match (QBJ: two teams)
    assert north["location"] == "north"
    assert north["tossups_read"] == 20 and len(north["match_questions"]) == 20
    race = north["match_questions"][0]["tablebuzz_race"]  # every press on record
    assert abs(race["races"][0]["presses"][1]["behind_ns"] - 738_000) < 100  # one sample: 56
    values = [b["result"]["value"] for q in north["match_questions"] for b in q["buzzes"]]
    assert values.count(15) == 5 and values.count(-5) == 4
    # the standings: the quizbowl columns, the same judgements as the match's
    quiz = h.get_json("/rooms.json")["standings"]["quiz"]
    north_rows = [r for r in quiz if r["rooms"] == ["north"]]
    assert len(north_rows) == 2
    assert sum(r["powers"] for r in north_rows) == 5 and sum(r["negs"] for r in north_rows) == 4
    assert sum(r["gets"] for r in north_rows) == values.count(10)
    assert all({"powers", "gets", "negs"} <= set(r) for r in quiz)
    csv_text = h.get_text("/standings.csv")
    assert csv_text.splitlines()[0].endswith(",powers,gets,negs")


def test_the_director_page_says_when_a_room_and_the_broker_went_offline(browser, procs,  # noqa: F811
                                                                        tmp_path):
    """A room that stops is OFFLINE since its last-will time; a broker that stops leaves the
    page saying so, and since when, instead of a green "online" over frozen scores."""
    broker = Mosquitto(tmp_path / "mosquitto")
    procs.append(broker)
    h = hub(broker_port=broker.port)
    procs.append(h)
    alpha = room("alpha", broker.port, tmp_path / "alpha.jsonl", "--game", "quiz")
    procs.append(alpha)
    procs.append(room("beta", broker.port, tmp_path / "beta.jsonl", "--game", "quiz"))
    page = browser.new_page()
    try:
        open_page(page, h.url + "/")
        wait_text(page, "[data-room=alpha]", ["alpha", "online", "box connected"])
        wait_text(page, "[data-room=beta]", ["beta", "online"])
        procs.remove(alpha)
        alpha.stop()
        wait_text(page, "[data-room=alpha]", ["OFFLINE since"])
        assert "OFFLINE" not in page.locator("[data-room=beta]").inner_text()
        procs.remove(broker)
        broker.stop()
        wait_text(page, "#broker", ["OFFLINE since", "as they were then"])
        wait_text(page, "[data-room=beta]", ["not heard since", "the broker is offline"])
        on(page).screenshot(path=str(ARTIFACTS / "director-broker-offline.png"), full_page=True)
    finally:
        page.close()


# ------------------------------------------------------------------------------ OSC
def test_an_osc_listener_receives_the_races_of_a_scripted_game_with_winner_and_margin(procs):
    import threading

    from pythonosc.dispatcher import Dispatcher
    from pythonosc.osc_server import ThreadingOSCUDPServer

    script = EXAMPLES / "quiz_demo.jsonl"
    events = [json.loads(line) for line in subprocess.run(
        [str(TABLEBUZZ), "sim", "--script", str(script)], capture_output=True, text=True,
        check=True).stdout.splitlines()]
    races = [ev for ev in events if ev["ev"] == "race"]
    assert len(races) >= 3
    got = []
    dispatcher = Dispatcher()
    dispatcher.set_default_handler(lambda address, *args: got.append((address, list(args))))
    server = ThreadingOSCUDPServer(("127.0.0.1", 0), dispatcher)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        from brokers import Tablebuzz

        procs.append(Tablebuzz(["show", "--sim", "--script", script, "--speed", "3",
                                "--no-records", "--osc", "127.0.0.1:%d" % server.server_address[1],
                                "--room", "stage"]))
        wait_for(lambda: any(a.endswith("/game_over") for a, _ in got), timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    heard = [args for address, args in got if address == "/tablebuzz/stage/race"]
    assert [a[0] for a in heard] == [r["winner"] for r in races]
    for args, race in zip(heard, races, strict=True):
        margin = -1.0 if race["margin_ns"] is None else race["margin_ns"] / 1e6
        assert args[1] == pytest.approx(margin, abs=1e-6) and args[2] == int(race["tie"])
    over = next(ev for ev in events if ev["ev"] == "game_over")
    assert ("/tablebuzz/stage/game_over", [over["ranking"][0]["player"]] + [
        r["score"] for r in sorted(over["ranking"], key=lambda r: r["player"])]) in got
    addresses = {a.rsplit("/", 1)[1] for a, _ in got}
    assert {"armed", "race", "judge", "score", "phase"} <= addresses
    phases = [args for address, args in got if address == "/tablebuzz/stage/phase"]
    assert ["ready", "question 1 next: ARM opens the buzzers"] in phases


# ------------------------------------------------------------------------------ an event's broker
def _doc_acl():
    """The ACL file of docs/rooms.md "Mosquitto for an event", as written there."""
    text = (REPO / "docs" / "rooms.md").read_text()
    block = text.split("# /etc/mosquitto/tablebuzz.acl\n", 1)[1]
    return block.split("```", 1)[0]


def test_the_documented_acl_lets_a_room_publish_only_under_its_own_name(procs, tmp_path):
    folder = tmp_path / "mosquitto"
    folder.mkdir()
    passwd = folder / "passwd"
    for i, (user, password) in enumerate((("director", "d-secret"), ("alpha", "a-secret"))):
        subprocess.run(["mosquitto_passwd", "-b"] + (["-c"] if i == 0 else []) +
                       [str(passwd), user, password], check=True)
    (folder / "acl").write_text(_doc_acl())
    broker = Mosquitto(folder, extra="allow_anonymous false\npassword_file %s\nacl_file %s\n"
                       % (passwd, folder / "acl"))
    procs.append(broker)
    env = "TABLEBUZZ_MQTT_PASSWORD"
    h = hub(broker_port=broker.port, args=["--mqtt-user", "director"], env={env: "d-secret"})
    procs.append(h)
    script = ["--script", EXAMPLES / "quiz_demo.jsonl", "--speed", "4"]
    alpha = room("alpha", broker.port, tmp_path / "a.jsonl", *script, "--mqtt-user", "alpha",
                 env={env: "a-secret"})
    posing = room("beta", broker.port, tmp_path / "b.jsonl", *script, "--mqtt-user", "alpha",
                  env={env: "a-secret"})  # alpha's login, another room's topic
    wrong = room("gamma", broker.port, tmp_path / "c.jsonl", *script, "--mqtt-user", "alpha",
                 env={env: "not it"})
    anonymous = room("delta", broker.port, tmp_path / "d.jsonl", *script)
    procs.extend([alpha, posing, wrong, anonymous])
    wait_for(lambda: _rooms(h).get("alpha", {}).get("games_finished") == 1, timeout=30)
    time.sleep(1.0)
    assert sorted(_rooms(h)) == ["alpha"]  # beta was dropped by the broker, gamma and delta
    said = {r: p.stop() for r, p in (("posing", posing), ("wrong", wrong),
                                      ("anonymous", anonymous))}
    assert "publishing to the broker" in said["posing"]  # it thinks it does (MQTT 3.1.1)
    assert "refused the login" in said["wrong"] and "refused" in said["anonymous"]


# ------------------------------------------------------------------------------ the OBS overlay
def test_the_obs_overlay_shows_winner_margin_and_timer_on_a_transparent_page(browser, procs):  # noqa: F811
    from brokers import Tablebuzz

    server = Tablebuzz(["show", "--sim", "--script", EXAMPLES / "quiz_tournament.jsonl",
                        "--no-records"])
    procs.append(server)
    page = browser.new_page()
    try:
        open_page(page, server.url + "/overlay")
        wait_text(page, "#timer", ["time to buzz"])
        wait_text(page, "#winner", ["P", "nobody else yet"])
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == \
            "rgba(0, 0, 0, 0)"
        assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == \
            "rgba(0, 0, 0, 0)"
        box = page.locator("#panel").bounding_box()
        assert box["x"] >= 0 and box["y"] + box["height"] <= 1080  # inside a 1080p source
        on(page).screenshot(path=str(ARTIFACTS / "overlay.png"), omit_background=True)
        wait_text(page, "#margin", ["by "], timeout=20000)
        body = page.locator("body").inner_text()
        assert "undefined" not in body and "NaN" not in body and "null" not in body
    finally:
        page.close()


# ------------------------------------------------------------------------------ mistakes
@pytest.mark.parametrize("args, words", [
    (["show", "--sim", "--mqtt", "127.0.0.1:1883"], "--mqtt needs --room NAME"),
    (["show", "--sim", "--room", "a"], "--room names the room"),
    (["show", "--sim", "--mqtt", "127.0.0.1:x", "--room", "a"], "--mqtt wants HOST:PORT"),
    (["show", "--sim", "--mqtt", "127.0.0.1", "--room", "a/b"], "a room name is 1 to 32"),
    (["show", "--sim", "--mqtt", "h:1", "--room", "a", "--mqtt-ca", "/nope.pem"],
     "--mqtt-ca /nope.pem: no such file"),
    (["show", "--sim", "--osc", "127.0.0.1:notaport"], "--osc wants HOST:PORT"),
    (["hub", "--mqtt", "127.0.0.1:1883", "--listen", "127.0.0.1:1884"], "--listen is the"),
    (["hub", "--mqtt-user", "x"], "go with --mqtt"),
    (["hub", "--mqtt", "127.0.0.1:1883", "--join", "a"], "--join gives the embedded"),
    (["hub", "--join", "a/b"], "a room name is 1 to 32"),
])
def test_rooms_options_refuse_mistakes_with_one_line(args, words, tmp_path):
    extra = ["--http", "127.0.0.1:%d" % free_port()]
    if args[0] == "show":
        extra.append("--no-records")
    else:
        extra += ["--store", str(tmp_path / "hub.sqlite3")]
    done = subprocess.run([str(TABLEBUZZ)] + args + extra, capture_output=True, text=True,
                          timeout=30, env=dict(os.environ, TABLEBUZZ_MQTT_PASSWORD=""))
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr


def _certificates(folder):
    """A CA of the test's own and a server certificate for 127.0.0.1 signed by it (openssl)."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "1", "-subj", "/CN=tablebuzz test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.crt", "-days", "1", "-extfile", "san.ext")
    return folder / "ca.pem"


def test_rooms_and_the_hub_over_tls_with_the_events_ca(procs, tmp_path):
    folder = tmp_path / "mosquitto"
    folder.mkdir()
    ca = _certificates(folder)
    broker = Mosquitto(folder, extra="certfile %s\nkeyfile %s\n" % (
        folder / "server.crt", folder / "server.key"))
    procs.append(broker)
    h = hub(broker_port=broker.port, args=["--mqtt-ca", ca])
    procs.append(h)
    procs.append(room("alpha", broker.port, tmp_path / "a.jsonl", "--script",
                      EXAMPLES / "quiz_demo.jsonl", "--speed", "4", "--mqtt-ca", ca))
    plain = room("beta", broker.port, tmp_path / "b.jsonl", "--script",
                 EXAMPLES / "quiz_demo.jsonl", "--speed", "4")  # no TLS: not let in
    procs.append(plain)
    wait_for(lambda: _rooms(h).get("alpha", {}).get("games_finished") == 1, timeout=30)
    assert sorted(_rooms(h)) == ["alpha"]
    assert "is away" in plain.stop()
