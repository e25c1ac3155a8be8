"""The director's hub against bad and forged messages (issue 35, docs/security.md "The hub and the
rooms"): the checks of every payload (tablebuzz.rooms.schema), the limits, records that must agree
with their room's events, CSV cells that cannot run; end to end with a real hub, a real broker,
real paho clients and the director's page in a real Chromium.
"""

import json
import subprocess
import time

import pytest
from brokers import TABLEBUZZ, wait_for
from tablebuzz.paths import REPO
from tablebuzz.rooms import state as state_module
from tablebuzz.rooms.hub import standings_csv
from tablebuzz.rooms.state import HubState
from test_rooms import procs  # noqa: F401 - the fixture
from test_show import browser, open_page, wait_text  # noqa: F401 - the fixture

EXAMPLES = REPO / "examples"
COLOURS = [(255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255), (0, 220, 200)]
_LINES = {}


def sim_lines(script="quiz_tournament.jsonl"):
    """The simulator's protocol lines for an example script (the real firmware)."""
    if script not in _LINES:
        _LINES[script] = subprocess.run(
            [str(TABLEBUZZ), "sim", "--script", str(EXAMPLES / script)], capture_output=True,
            text=True, check=True).stdout.splitlines()
    return _LINES[script]


def game_messages(room, run, lines, first_seq=1):
    """[(topic, payload bytes)]: what a room's Publisher sends for `lines` (hello first, then one
    game): every event, then the record, as tablebuzz.rooms.publisher makes them."""
    out = []
    game = None
    n = 0
    record = None
    seq = first_seq
    for line in lines:
        ev = json.loads(line)
        if ev["ev"] == "game":
            game, n = "%s-%d" % (run, seq), 0
            record = {"header": {"record": "tablebuzz-game", "version": 1, "game": ev["game"],
                                 "players": ev["players"], "names": {}, "room": room,
                                 "id": game}, "lines": []}
        if game:
            n += 1
            record["lines"].append({"at": "2026-12-05T20:00:00.000+00:00", "line": line})
        out.append(("tablebuzz/%s/events" % room, json.dumps(
            {"room": room, "run": run, "seq": seq, "game": game, "n": n if game else None,
             "at": "2026-12-05T20:00:00.000+00:00", "line": line}).encode()))
        seq += 1
        if ev["ev"] == "game_over":
            out.append(("tablebuzz/%s/records" % room, json.dumps(
                {"room": room, "run": run, "seq": seq, "game": game,
                 "record": record}).encode()))
            seq += 1
            game = record = None
    return out


def views(room, lines):
    """[(topic, payload)]: the room's scoreboard view (the Table's) after each line, as the
    Publisher sends it."""
    from tablebuzz.link.connection import Item
    from tablebuzz.views.table import Table

    table = Table(COLOURS, source={"kind": "sim", "label": room, "status": "simulator running",
                                   "connected": True})
    out = []
    for line in lines:
        table.apply(Item("event", line, json.loads(line)))
        out.append(("tablebuzz/%s/view" % room, json.dumps(
            {"room": room, "run": "v0", "at": "2026-12-05T20:00:00.000+00:00", "wall": 1.0,
             "seq": 1, "view": table.view()}).encode()))
    return out


def record_of(messages):
    return next(json.loads(p) for t, p in messages if t.endswith("/records"))


def feed(state, messages):
    for topic, payload in messages:
        state.apply(topic, payload, 1.0)


def owls(state):
    return next(r for r in state.standings()["quiz"] if r["name"] == "Owls")


@pytest.mark.parametrize("script", ["quiz_tournament.jsonl", "quizbowl_naqt.jsonl",
                                    "difference_6p.jsonl", "evidence_4p.jsonl",
                                    "deglingo_4p.jsonl", "redblack_6p.jsonl", "diddly_6p.jsonl"])
def test_every_view_a_room_makes_passes_the_checks(script):
    state = HubState(COLOURS)
    for topic, payload in views("a", sim_lines(script)):
        assert state.apply(topic, payload, 0) is not None, state.problems
    assert state.rooms()[0]["over"] is not None and not state.problems


# ------------------------------------------------------------------------------ bad messages
BAD = [
    ("view", {"source": "x"}, "the message"),  # the retained view
    ("view", {"room": "a", "view": {"source": "x"}}, "view.source"),
    ("view", {"room": "a", "view": {"game": {"scores": ["500"]}}}, "view.game.scores[0]"),
    ("view", {"room": "a", "view": {"game": {"view": {"teams": [{"team": "x"}]}}}},
     "view.game.view.teams[0].team"),
    ("view", {"room": "a", "view": {"game": {"race": {"winner": 1, "margin_text": 5}}}},
     "margin_text"),
    ("view", {"room": "b", "view": {}}, "says it is room 'b'"),
    ("status", {"room": "a", "online": "yes"}, "online"),
    ("events", {"room": "a", "run": "r1", "seq": "1", "line": "{}"}, "seq"),
    ("events", {"room": "a", "run": "r1", "seq": 1, "line": "{}", "game": "other-1", "n": 1},
     "is not of run r1"),
    ("events", {"room": "a", "run": "r/1", "seq": 1, "line": "{}"}, "run"),
    ("records", {"room": "a", "run": "r1", "seq": 2, "game": "r1-1", "record": {
        "header": {}, "lines": [{"line": 5}]}}, "record.lines[0].line"),
    ("records", {"room": "a", "run": "r1", "seq": 2, "game": "r1-1", "record": {
        "header": {"names": ["Ann"]}, "lines": []}}, "record.header.names"),
]


@pytest.mark.parametrize("kind, message, words", BAD)
def test_a_malformed_message_is_set_aside_with_its_reason_and_changes_nothing(kind, message,
                                                                               words):
    state = HubState(COLOURS)
    feed(state, game_messages("a", "r0", sim_lines()))
    before = (state.rooms(), state.standings(), state.export())
    assert state.apply("tablebuzz/a/%s" % kind, json.dumps(message).encode(), 2.0) is None
    assert (state.rooms(), state.standings(), state.export()) == before
    (problem,) = state.problems
    assert (problem["room"], problem["topic"], problem["at"]) == ("a", kind, 2.0)
    assert words in problem["why"], problem
    json.dumps(state.rooms())  # what the pages get can still be sent
    standings_csv(state.standings())


@pytest.mark.parametrize("payload, words", [
    (b"{" + b'"a":' * 0 + b'"x":"' + b"y" * 300_000 + b'"}', "more than the 262144"),
    (b"[" * 4000 + b"]" * 4000, "nested too deep"),
    (b'{"room":"a","online":NaN}', "not JSON"),
    (b'{"room":"a","view":{"wall":1e999}}', "not JSON"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "not a JSON object"),
])
def test_payloads_too_big_too_deep_or_not_json_are_set_aside(payload, words):
    state = HubState(COLOURS)
    assert state.apply("tablebuzz/a/view", payload, 0) is None
    assert words in state.problems[0]["why"]
    assert state.rooms() == []


def test_limits_on_rooms_and_runs(monkeypatch):
    monkeypatch.setattr(state_module, "MAX_ROOMS", 3)
    monkeypatch.setattr(state_module, "MAX_RUNS", 2)
    state = HubState(COLOURS)
    for i in range(5):
        state.apply("tablebuzz/r%d/status" % i, b'{"room":"r%d","online":true}' % i, 0)
    assert [r["room"] for r in state.rooms()] == ["r0", "r1", "r2"]
    assert "more than 3 rooms" in state.problems[-1]["why"]
    for run in ("x1", "x2", "x3"):
        state.apply("tablebuzz/r0/events", json.dumps(
            {"room": "r0", "run": run, "seq": 1, "line": "{}"}).encode(), 0)
    assert state.rooms()[0]["events"] == 2 and "more than 2 runs" in state.problems[-1]["why"]


def test_a_record_with_a_text_score_is_refused_and_the_standings_still_add_up():
    state = HubState(COLOURS)
    feed(state, game_messages("good", "g0", sim_lines()))
    lines = [line.replace('"score":35', '"score":"500"') if '"ev":"team_ranking"' in line
             else line for line in sim_lines()]
    assert lines != sim_lines()
    feed(state, game_messages("bad", "b0", lines))
    (room,) = [r for r in state.rooms() if r["room"] == "bad"]
    assert room["games_finished"] == 0 and "cannot be read" in room["refused"][0]["why"]
    assert owls(state)["points"] == 35 and owls(state)["rooms"] == ["good"]
    assert "quiz,1,Owls,good,1,1,0,0,35,35.0" in standings_csv(state.standings())


# ------------------------------------------------------------------------------ forged results
def test_a_record_that_disagrees_with_its_rooms_events_is_refused():
    state = HubState(COLOURS)
    real = game_messages("beta", "b0", sim_lines())
    feed(state, real)
    forged = record_of(real)
    forged["seq"] = 999
    for obj in forged["record"]["lines"]:
        obj["line"] = obj["line"].replace('"score":35', '"score":500')
    state.apply("tablebuzz/beta/records", json.dumps(forged).encode(), 2)
    (beta,) = state.rooms()
    assert beta["games_finished"] == 1 and owls(state)["points"] == 35
    assert "disagrees with the room's events" in beta["refused"][0]["why"]
    # a record of a game whose events never came waits, out of the standings
    outsider = record_of(game_messages("beta", "zz", sim_lines()))
    state.apply("tablebuzz/beta/records", json.dumps(outsider).encode(), 3)
    assert state.rooms()[0]["pending"] == 1 and owls(state)["games"] == 1


def test_a_rogue_record_first_under_a_live_games_id_does_not_push_out_the_real_one():
    state = HubState(COLOURS)
    real = game_messages("beta", "b0", sim_lines())
    over = next(i for i, (t, p) in enumerate(real) if b'game_over' in p)
    feed(state, real[:over - 3])  # the game is under way
    rogue = record_of(real)
    for obj in rogue["record"]["lines"]:
        obj["line"] = obj["line"].replace('"name":"Owls"', '"name":"Hares"').replace(
            '"score":35', '"score":500')
    rogue["seq"] = 5000
    state.apply("tablebuzz/beta/records", json.dumps(rogue).encode(), 2)
    assert state.standings() == {}
    feed(state, real[over - 3:])
    (beta,) = state.rooms()
    assert beta["games_finished"] == 1 and beta["refused"]
    rows = state.standings()["quiz"]
    assert rows[0]["name"] == "Owls" and rows[0]["points"] == 35
    assert all(r["points"] != 500 for r in rows)


def test_two_versions_of_a_games_events_are_a_conflict_kept_out_of_the_standings():
    state = HubState(COLOURS)
    real = game_messages("beta", "b0", sim_lines())
    twin = json.loads(real[5][1])
    twin["line"] = twin["line"].replace("}", ',"x":1}', 1)
    state.apply(real[5][0], json.dumps(twin).encode(), 0)  # the same run and seq, other text
    feed(state, real)
    (beta,) = state.rooms()
    assert beta["conflicts"] and "two different messages" in beta["conflicts"][0]["why"]
    assert beta["games_finished"] == 0 and state.standings() == {}


# ------------------------------------------------------------------------------ CSV cells
def test_standings_csv_neutralises_formulas_in_names():
    state = HubState(COLOURS)
    lines = [line.replace('"Owls"', '"=HYPERLINK(\\"http://x\\")"').replace(
        '"Foxes"', '"-2+3"').replace('"Hares"', '"@SUM(A1)"') for line in sim_lines()]
    feed(state, game_messages("beta", "b0", lines))
    text = standings_csv(state.standings())
    assert "'=HYPERLINK" in text and ",'-2+3," in text and ",'@SUM(A1)," in text
    for cell in (c for row in text.splitlines()[1:] for c in row.split(",")):
        assert not cell.lstrip('"').startswith(("=", "+", "@", "\t", "\r")), cell


def test_a_message_the_store_cannot_write_is_never_acknowledged_and_a_restart_stores_it(
        tmp_path):
    """A full disk (SQLite's SQLITE_FULL, from a real file capped with max_page_count): the hub
    still shows the message, lists the failure, and acknowledges only the seqs before it, so
    the room keeps resending; a hub restarted on a working store takes the resend, stores it,
    and the acknowledgement moves on."""
    from tablebuzz.rooms.keep import HubStore

    messages = game_messages("alpha", "a0", sim_lines()[:40])
    path = tmp_path / "hub.sqlite3"
    store = HubStore(path)
    state = HubState(COLOURS)
    state.keep, state.keep_problem = store.keep, store.keep_problem
    feed(state, messages[:10])
    assert state.rooms_by_name["alpha"].acked() == {"a0": 10}
    pages = store.db.execute("pragma page_count").fetchone()[0]
    store.db.execute("pragma max_page_count = %d" % pages)  # the disk is full from here on
    big = [(t, p[:-1] + b', "pad": "%s"}' % (b"x" * 5000)) for t, p in messages[10:12]]
    assert state.apply(*big[0], 1.0) is not None  # shown all the same
    state.apply(*big[1], 1.0)
    room = state.rooms_by_name["alpha"]
    assert room.runs["a0"].low == 12 and room.acked() == {"a0": 10}
    assert "not kept" in state.problems[-1]["why"] and "full" in state.problems[-1]["why"]
    store.close()

    again = HubState(COLOURS)  # the hub restarted, its disk fixed
    store = HubStore(path)
    store.restore(again)
    again.keep, again.keep_problem = store.keep, store.keep_problem
    assert again.rooms_by_name["alpha"].acked() == {"a0": 10}
    feed(again, big + messages[12:20])  # the room's resend
    assert again.rooms_by_name["alpha"].acked() == {"a0": 20}
    restored = HubState(COLOURS)
    store.restore(restored)
    assert restored.rooms_by_name["alpha"].acked() == {"a0": 20}
    store.close()


# ------------------------------------------------------------------------------ end to end
def publish(port, messages, retain=False, linger=1.0, **login):
    """Publish [(topic, payload)] at QoS 1 with a real paho client; waits for every PUBACK,
    then `linger` s (amqtt acknowledges a message before it passes it on, and forgets what it
    has not passed on when a clean session ends). Returns the client's CONNACK reason (a
    string) when the broker refused it."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(callback_api_version=mqtt.CallbackAPIVersion.VERSION2,
                         protocol=mqtt.MQTTv311)
    if login:
        client.username_pw_set(login["username"], login.get("password"))
    answers = []
    client.on_connect = lambda c, u, f, rc, p: answers.append(rc)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        wait_for(lambda: answers, timeout=10)
        if answers[0].is_failure:
            return str(answers[0])
        infos = [client.publish(t, p, qos=1, retain=retain) for t, p in messages]
        for info in infos:
            info.wait_for_publish(timeout=10)
        time.sleep(linger)
    except (RuntimeError, ValueError):
        pass
    finally:
        client.disconnect()
        client.loop_stop()
    return None


def _page_rooms(page):
    return page.evaluate("() => Object.keys(TB.rooms).sort()")


def test_a_retained_bad_view_and_a_text_score_never_break_the_director_even_after_a_restart(
        browser, procs, tmp_path):  # noqa: F811
    from brokers import Mosquitto, hub, wait_for

    broker = Mosquitto(tmp_path / "mosquitto")
    procs.append(broker)
    h = hub(broker_port=broker.port, args=["--store", tmp_path / "hub.sqlite3"])
    procs.append(h)
    publish(broker.port, [("tablebuzz/evil/view", b'{"source":"x"}'),
                          ("tablebuzz/evil2/view", b"[" * 4000 + b"]" * 4000)], retain=True)
    publish(broker.port, [("tablebuzz/evil3/view", b'{"x":"' + b"y" * 400_000 + b'"}')])
    lines = [line.replace('"score":35', '"score":"500"') if '"ev":"team_ranking"' in line
             else line for line in sim_lines()]
    publish(broker.port, game_messages("bad", "b0", lines))
    wait_for(lambda: len(h.get_json("/rooms.json")["problems"]) >= 4)
    page = browser.new_page()
    try:
        open_page(page, h.url + "/")
        wait_text(page, "#problems", ["evil", "view", "evil2", "nested too deep", "evil3",
                                      "bytes", "bad", "cannot be read"])
        publish(broker.port, game_messages("good", "g0", sim_lines()) +  # live updates go on
                views("good", sim_lines())[-1:])
        wait_text(page, "[data-room=good]", ["good", "game over", "1 games finished"])
        wait_text(page, "#standings", ["Owls", "35.00"])
    finally:
        page.close()
    rooms = h.get_json("/rooms.json")
    assert sorted(r["room"] for r in rooms["rooms"]) == ["bad", "good"]
    assert "quiz,1,Owls,good,1,1,0,0,35,35.0" in h.get_text("/standings.csv")
    h.proc.kill()  # the retained bad view is still at the broker for the next hub
    h.proc.wait()
    again = hub(broker_port=broker.port, args=["--store", tmp_path / "hub.sqlite3"])
    procs.append(again)
    wait_for(lambda: any(p["room"] == "evil" for p in again.get_json("/rooms.json")["problems"]))
    assert "quiz,1,Owls,good,1,1,0,0,35,35.0" in again.get_text("/standings.csv")
    page = browser.new_page()
    try:
        open_page(page, again.url + "/")
        assert _page_rooms(page) == ["bad", "good"]
        publish(broker.port, [("tablebuzz/late/status", b'{"room":"late","online":true}')])
        wait_for(lambda: "late" in _page_rooms(page))
    finally:
        page.close()


# ------------------------------------------------------------------------------ logins, topics
def _subscriber(port, topic_filter, **login):
    """A paho client subscribed to `topic_filter`: (client, [(topic, payload)], [granted])."""
    import paho.mqtt.client as mqtt

    got, granted = [], []
    client = mqtt.Client(callback_api_version=mqtt.CallbackAPIVersion.VERSION2,
                         protocol=mqtt.MQTTv311)
    client.username_pw_set(login["username"], login["password"])
    client.on_message = lambda c, u, m: got.append((m.topic, m.payload))
    client.on_subscribe = lambda c, u, mid, codes, p: granted.extend(codes)
    client.on_connect = lambda c, u, f, rc, p: c.subscribe(topic_filter, qos=1)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client, got, granted


def test_the_embedded_broker_lets_in_only_rooms_with_their_join_code_and_only_on_their_topic(
        procs, tmp_path):  # noqa: F811
    from brokers import hub, join_code, wait_for

    h = hub()
    procs.append(h)
    alpha = {"username": "alpha", "password": join_code(h, "alpha")}
    printed = subprocess.run([str(TABLEBUZZ), "hub", "--store", str(h.store), "--join", "alpha",
                              "beta"], capture_output=True, text=True, check=True).stdout
    assert printed.splitlines()[0].split()[:2] == ["alpha", alpha["password"]]
    assert "--mqtt-user beta --room beta" in printed
    good = game_messages("alpha", "a0", sim_lines())
    assert publish(h.listen, good[:3], username="alpha",
                   password="0" * 16) == "Not authorized"  # a wrong code
    anonymous = publish(h.listen, [("tablebuzz/delta/status", b'{"room":"delta","online":1}')])
    assert anonymous == "Not authorized"
    assert publish(h.listen, good[:3], username="beta", password=alpha["password"]) == \
        "Not authorized"  # alpha's code is not beta's
    # alpha's login: another room's topic, the hub's ack topic, reading another room
    spy, seen, granted = _subscriber(h.listen, "tablebuzz/#", **alpha)
    try:
        forged = game_messages("beta", "b0", sim_lines())
        assert publish(h.listen, forged, **alpha) is None  # acknowledged, and dropped
        assert publish(h.listen, [("tablebuzz/alpha/ack", b'{"room":"alpha","acked":{}}')],
                       **alpha) is None
        assert publish(h.listen, good, **alpha) is None
        wait_for(lambda: any(r["room"] == "alpha" and r["games_finished"] == 1
                             for r in h.get_json("/rooms.json")["rooms"]))
        assert granted and all(getattr(c, "is_failure", c == 128) for c in granted)
        assert seen == []
    finally:
        spy.disconnect()
        spy.loop_stop()
    rooms = h.get_json("/rooms.json")
    assert [r["room"] for r in rooms["rooms"]] == ["alpha"]  # no beta, no delta
    assert [r["rooms"] for r in rooms["standings"]["quiz"]][0] == ["alpha"]


# ------------------------------------------------------------------------------ SIGKILL
def _hub_files(h):
    """What a hub shows of the event: rooms' counts, standings, export, QBJ (without the
    moment it was made)."""
    rooms = {r["room"]: (r["events"], r["games_finished"], r["missing"], r["conflicts"])
             for r in h.get_json("/rooms.json")["rooms"]}
    qbj = json.loads(h.get_text("/tournament.qbj"))
    return rooms, h.get_text("/standings.csv"), h.get_text("/export.jsonl"), qbj


def _spool_acked(path):
    acked = [json.loads(line)["acked"] for line in open(path) if line.startswith('{"acked"')]
    return max(acked, default=0)


@pytest.mark.parametrize("kind", ["embedded", "mosquitto"])
def test_a_hub_killed_with_sigkill_comes_back_with_the_whole_event_and_rooms_catch_up_once(
        kind, procs, tmp_path):  # noqa: F811
    from brokers import Mosquitto, Tablebuzz, hub, room

    store = tmp_path / "hub.sqlite3"
    broker = None
    if kind == "mosquitto":
        broker = Mosquitto(tmp_path / "mosquitto")
        procs.append(broker)
        h = hub(broker_port=broker.port, args=["--store", store])
        port, join = broker.port, None
    else:
        h = hub(args=["--store", store])
        port, join = h.listen, h
    procs.append(h)
    short = EXAMPLES / "quiz_tournament.jsonl"  # 8.2 s of play
    procs.append(room("alpha", port, tmp_path / "alpha.jsonl", "--script", short, "--speed", "8",
                      join=join))
    wait_for(lambda: _hub_files(h)[0].get("alpha", (0, 0))[1] == 1, timeout=40)
    procs.append(room("gamma", port, tmp_path / "gamma.jsonl", "--script", short, "--speed", "0.5",
                      join=join))  # 16 s of play
    wait_for(lambda: _hub_files(h)[0].get("gamma", (0,))[0] >= 10, timeout=40)
    before = _hub_files(h)
    assert before[0]["gamma"][1] == 0  # gamma's game is under way
    h.proc.kill()  # SIGKILL: no goodbye, the embedded broker dies with it
    h.proc.wait()
    args = ["hub", "--store", store]
    args += ["--mqtt", "127.0.0.1:%d" % port] if broker else ["--listen", "127.0.0.1:%d" % port]
    again = Tablebuzz(args)
    again.store = store
    procs.append(again)
    after = _hub_files(again)
    assert after[0]["alpha"] == before[0]["alpha"]  # alpha's finished game, as it was
    assert after[1:] == before[1:]  # standings, export, QBJ
    assert "quiz,1,Owls,alpha,1,1,0,0,35,35.0" in after[1]
    expected = len(sim_lines())  # gamma's whole game: hello to game_over
    wait_for(lambda: _hub_files(again)[0]["gamma"][:3] == (expected, 1, 0), timeout=60)
    time.sleep(1.0)  # anything more would be counted twice
    rooms, csv_text, export, qbj = _hub_files(again)
    assert rooms["gamma"] == (expected, 1, 0, [])
    assert sorted(json.loads(line)["room"] for line in export.splitlines()) == ["alpha", "gamma"]
    # both rooms played a 3-team pub quiz: no QBJ Match (a Match is two teams), before and
    # after the restart alike (after[1:] == before[1:] above)
    matches = [m for p in qbj["objects"][0].get("phases", []) for r in p.get("rounds", [])
               for m in r.get("matches", [])]
    assert matches == []
    assert "quiz,1,Owls,alpha gamma,2,2,0,0,70,35.0" in csv_text
    wait_for(lambda: _spool_acked(tmp_path / "gamma.jsonl") >= expected, timeout=10)


def test_the_directors_pages_answer_only_their_own_host_and_origin():
    """A DNS-rebinding page (a foreign `Host`) and a page of another site (a foreign `Origin`)
    in the director's browser get 403 on every route and the WebSocket; the hub's own
    addresses and `--allow-host` names are served (docs/security.md)."""
    from brokers import hub
    from test_show_security import http_get, ws_status

    h = hub(args=["--allow-host", "director.example"])
    try:
        for path in ("/", "/rooms.json", "/standings.csv", "/export.jsonl", "/tournament.qbj",
                     "/overlay/r1"):
            for headers in ({"Host": "evil.example:%d" % h.port},
                            {"Origin": "http://evil.example"}):
                status = http_get(h.port, path, headers)[0]
                assert status == 403, (path, headers, status)
        for host in ("127.0.0.1:%d" % h.port, "localhost:%d" % h.port, "director.example"):
            assert http_get(h.port, "/rooms.json", {"Host": host})[0] == 200, host
        status = ws_status(h.port, host="evil.example:%d" % h.port)
        assert " 403 " in status, status
        status = ws_status(h.port)
        assert " 101 " in status, status
    finally:
        assert "Traceback" not in h.stop()
