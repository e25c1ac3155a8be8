"""The box's own settings, kept on its filesystem across power cuts: the station colours
(refbox.leds's palettes) chosen in the menu. One small JSON object in `settings.tbs`, written
whole to a new file and renamed over the old one (a rename replaces its target atomically on
littlefs and on the unix port), so a cut keeps either the old settings or the new ones.

The filesystem comes in as refbox.journal's does (OsFiles on the board, tablebuzz.sim.flashfs
in the simulator): open(name, mode), rename(a, b), size(name). A missing or unreadable file is
the defaults: a bad settings file never stops the boot.
"""

import json

from refbox.leds import PALETTES, STANDARD

PATH = "settings.tbs"


def load(fs):
    """The palette name kept on `fs` ("standard" when there is no file, it cannot be read, or it
    names a palette this firmware does not know)."""
    if fs.size(PATH) is None:
        return STANDARD
    try:
        f = fs.open(PATH, "rb")
        try:
            kept = json.loads(f.read())
        finally:
            f.close()
        name = kept["palette"]
    except Exception:  # a torn or edited file: the defaults (never a failed boot)
        return STANDARD
    return name if name in PALETTES else STANDARD


def save(fs, palette):
    """Keep `palette` (a name from refbox.leds.PALETTES) on `fs`. Raises OSError when the
    filesystem refuses (full, failing): the caller says so and plays on."""
    new = PATH + ".new"
    f = fs.open(new, "wb")
    try:
        f.write(('{"palette":"%s"}\n' % palette).encode())
    finally:
        f.close()
    fs.rename(new, PATH)


def keep(app):
    """Write the referee's palette, chosen in the menu, for refbox.app.App at a safe moment, as
    the journal's writes are made (interrupts masked: the controls and the capture are told). A
    filesystem that refuses is said (`settings` error) and not tried again until the next
    change. Returns the palette name now kept (the App's record of it)."""
    palette = app.referee.palette
    began = app.clock.ticks_us()
    app.controls.masked_since(began)
    try:
        save(app.journal.fs, palette)
    except OSError as e:
        app.referee.error("settings", "the station colours could not be kept (%s)" % e)
    finally:
        ended = app.clock.ticks_us()
        app.controls.unmasked(ended)
    return palette
