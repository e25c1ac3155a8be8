"""Rooms on an MQTT broker (issue 23; docs/rooms.md).

- `topics`: the topic names and the message shapes, shared by a room and the hub;
- `spool`: a room's outgoing messages on disk until the broker has them (PUBACK);
- `broker`: where the broker is (HOST:PORT, TLS, username/password) and the paho client for it;
- `publisher`: `tablebuzz show --mqtt ... --room NAME`: the room's events, view and records;
- `state`: the hub's fold of every room's messages (idempotent), the standings, the export;
- `hub`: `tablebuzz hub`: the director's page, `/rooms.json`, the export; `embedded`: its
  in-process broker (amqtt) when no `--mqtt` is given;
- `osc`: `--osc HOST:PORT`, the show's OSC messages; `static/`: the director's page
  (the OBS overlay is the scoreboard's: tablebuzz/views/show/static/overlay.html).
"""
