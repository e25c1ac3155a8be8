"""What refbox.leds.shown keeps (the game's eligible, station colours and champions, computed
once per log revision, phase and palette) is what the game answers now, and the LED frames made
from it are the frames rendered afresh, whatever the game's `now` (a frame depends on its own
time alone).

Every frame of a whole scripted game of each kind is rendered twice: as the loop renders it,
from the kept answers, and again with nothing kept. A kept answer that went stale (a change of
state the key misses) shows as a frame that differs. An idle frame must allocate nothing
(tests/test_micropython_lane.py "moving frames"), which is why the answers are kept."""

import pytest
from helpers import CONTROLS
from journal_games import GAMES
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse


@pytest.mark.parametrize("name", sorted(GAMES))
def test_kept_answers_render_the_frames_rendered_afresh(name, monkeypatch):
    simulate._ensure_paths()
    import refbox.app
    from refbox.leds import NOTHING_SHOWN, render

    seen = {"frames": 0, "kept": 0, "states": set()}

    def render_twice(view, now_ms, colours, station_pixels, marker_pixels, frame=None):
        kept = view.shown
        got = list(render(view, now_ms, colours, station_pixels, marker_pixels, frame))
        seen["kept"] += kept is view.shown and kept is not NOTHING_SHOWN
        kept = view.shown
        view.shown = NOTHING_SHOWN
        fresh = render(view, now_ms, colours, station_pixels, marker_pixels)
        if view.game is not None:  # the answers themselves, and the frame made of them
            assert kept[4:] == view.shown[4:], (now_ms, view.game.phase)
            # a frame is the state's at `now_ms` alone: the game's `now` moves only in a working
            # pass, and the passes that wait for a deadline are idle ones (App._rest_until)
            game_now = view.game.now
            view.game.now = (game_now + 7_000_000) & ((1 << 30) - 1)
            later = render(view, now_ms, colours, station_pixels, marker_pixels)
            view.game.now = game_now
            assert later == fresh, ("the frame read the game's now", now_ms, view.game.phase)
        view.shown = kept  # (the loop goes on from what it kept)
        assert got == fresh, (now_ms, view.game and view.game.phase)
        seen["frames"] += 1
        if view.game is not None:
            seen["states"].add((view.game.revision, view.game.phase))
        return frame if frame is not None else got

    monkeypatch.setattr(refbox.app, "render", render_twice)
    head, text = GAMES[name]
    header = dict(head, game=name, options=head.get("options", {}))
    lines = simulate.run(header, parse(text, header["players"], CONTROLS), "cpython")
    assert any('"game_over"' in line for _, line in lines)  # played to the end
    # many states rendered, most frames from what was kept (a moving frame between changes)
    assert len(seen["states"]) > 10 and seen["kept"] > 0, seen
