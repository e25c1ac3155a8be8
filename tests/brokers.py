"""Brokers and processes for the rooms' tests and bench: a real Mosquitto started here on a free
port of 127.0.0.1 (never a system service), and `tablebuzz` subcommands as subprocesses.

Mosquitto is Debian's package (`make mosquitto` installs it where root; see the Makefile)."""

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

TABLEBUZZ = Path(sys.executable).parent / "tablebuzz"
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise AssertionError("process ended: %s" % (proc.stderr.read() if proc.stderr
                                                         else proc.returncode))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError("nothing listens on %d after %g s"
                                     % (port, timeout)) from None
            time.sleep(0.05)


class Mosquitto:
    """A Mosquitto of its own: `folder` holds its configuration, persistence and log. Anonymous
    clients, 127.0.0.1 only, persistence on (a restart keeps the queued messages and sessions),
    no limit on the messages queued for a client that is away."""

    def __init__(self, folder, port=None, extra=""):
        if not Path(MOSQUITTO).exists():
            raise AssertionError("no mosquitto: run `make mosquitto` (as root on Debian it "
                                 "installs it: apt-get install -y mosquitto)")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.conf = self.folder / "mosquitto.conf"
        self.conf.write_text(
            "listener %d 127.0.0.1\nallow_anonymous true\npersistence true\n"
            "persistence_location %s/\nautosave_interval 0\nmax_queued_messages 0\n"
            "log_dest file %s\n"
            # started as root, Mosquitto drops to the `mosquitto` user, which cannot write in a
            # private temporary folder: its persistence would fail without a word
            "user %s\n%s" % (self.port, self.folder, self.folder / "mosquitto.log",
                              pwd.getpwuid(os.getuid()).pw_name, extra))
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_port(self.port, self.proc, timeout=10)

    def stop(self):
        """SIGTERM: Mosquitto saves its persistence file as it exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self, away_s=0.0):
        self.stop()
        time.sleep(away_s)
        self.start()


class Tablebuzz:
    """`tablebuzz ARGS...` as a subprocess serving HTTP on a free port of its own (`--http` is
    added). An argument `{listen}` becomes another free port (`self.listen`). A free port can be
    taken by another program between the probe and the bind (tests run in parallel here and
    elsewhere on the machine): a start that says "in use" is tried again on new ports."""

    def __init__(self, args, env=None, tries=4):
        for attempt in range(tries):
            self.port = free_port()
            self.listen = free_port()
            self.url = "http://127.0.0.1:%d" % self.port
            full = [str(a).replace("{listen}", "127.0.0.1:%d" % self.listen) for a in args]
            self.proc = subprocess.Popen(
                [str(TABLEBUZZ)] + full + ["--http", "127.0.0.1:%d" % self.port],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=None if env is None else dict(os.environ, **env))
            try:
                wait_port(self.port, self.proc)
                if "{listen}" in " ".join(str(a) for a in args):
                    wait_port(self.listen, self.proc)
                time.sleep(0.3)  # still ours? (another program answering on the port)
                if self.proc.poll() is None:
                    return
                err = self.proc.stderr.read()
            except AssertionError as e:
                err = str(e)
            if "in use" not in err or attempt == tries - 1:
                raise AssertionError("tablebuzz %s did not start: %s" % (" ".join(full), err))

    def get_json(self, path):
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            return json.loads(r.read())

    def get_text(self, path):
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            return r.read().decode("utf-8")

    def stop(self):
        if self.proc.returncode is not None:
            return ""
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


def hub(broker_port=None, args=(), env=None):
    """`tablebuzz hub`: with `--mqtt` the broker at `broker_port`, else the embedded one on a
    free port (`.listen`); its store in a folder of its own unless `args` names one."""
    cmd = ["hub"]
    words = [str(a) for a in args]
    if "--store" in words:
        store = Path(words[words.index("--store") + 1])
    else:
        import tempfile

        store = Path(tempfile.mkdtemp(prefix="tablebuzz-hub-")) / "hub.sqlite3"
        cmd += ["--store", store]
    if broker_port:
        cmd += ["--mqtt", "127.0.0.1:%d" % broker_port]
    else:
        cmd += ["--listen", "{listen}"]
    out = Tablebuzz(cmd + list(args), env)
    out.store = store
    return out


def join_code(h, name):
    """The join code of room `name` at the hub `h` (its embedded broker's login)."""
    from tablebuzz.rooms import logins
    from tablebuzz.rooms.keep import HubStore

    store = HubStore(h.store)
    try:
        return logins.join_code(store.secret(), name)
    finally:
        store.close()


def room(name, broker_port, spool, *sim_args, env=None, join=None):
    """`tablebuzz show --sim ... --mqtt --room NAME`; `join`: a hub whose embedded broker it
    logs in to with its join code."""
    login = []
    if join is not None:
        login = ["--mqtt-user", name]
        env = dict(env or {}, TABLEBUZZ_MQTT_PASSWORD=join_code(join, name))
    return Tablebuzz(["show", "--sim", *sim_args, "--no-records", "--mqtt",
                      "127.0.0.1:%d" % broker_port, "--room", name, "--spool", spool, *login],
                     env)


def wait_for(check, timeout=30, step=0.1):
    """Call `check()` until it returns something true; returns that. AssertionError at the end
    (with the last value)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (OSError, ValueError, KeyError) as e:
            last = e
        else:
            if last:
                return last
        time.sleep(step)
    raise AssertionError("not reached in %g s; last: %r" % (timeout, last))
