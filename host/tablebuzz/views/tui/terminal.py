"""The terminal a screen runs in: closing it ends the app, whichever app it is (the simulator's
or a board's)."""

import os


def end_with_the_terminal(app):
    """Closing the terminal ends the app (SIGHUP, and SIGTERM): a simulator nobody can see must
    not run on. Textual leaves SIGHUP alone, and under `make sim` the hangup may reach make
    only; so the app also checks, every second, that its controlling terminal is still there
    (`terminal_gone`)."""
    import signal

    app.watch_terminal = not terminal_gone()  # a terminal to watch (not a test's pilot)

    def hangup(signum, frame):
        os._exit(128 + signum)  # the terminal is gone: nothing to restore, and Textual's own
        # way out would wait forever on a writer that can no longer write

    def stop(signum, frame):
        app.exit(128 + signum)  # the terminal is still there: leave it as it was

    signal.signal(signal.SIGHUP, hangup)
    signal.signal(signal.SIGTERM, stop)


def watch_the_terminal(app):
    """From the app's on_mount: where `end_with_the_terminal` found a terminal to watch, check
    every second that it is still there, and end the process once it is gone."""
    if getattr(app, "watch_terminal", False):  # (a test's pilot has none)
        app.set_interval(1.0, _exit_if_gone)


def _exit_if_gone():
    if terminal_gone():
        os._exit(129)  # as SIGHUP: nobody is watching, and no terminal to restore


def terminal_gone():
    """True once this process's controlling terminal has been hung up or closed: opening
    /dev/tty then fails (ENXIO or EIO)."""
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return True
    return False
