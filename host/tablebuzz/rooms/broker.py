"""Where the broker is and how to log in: `--mqtt HOST:PORT` with `--mqtt-tls`, `--mqtt-ca FILE`,
`--mqtt-user NAME` and the password from `$TABLEBUZZ_MQTT_PASSWORD` (never on the command line,
where `ps` shows it to everyone); the paho-mqtt client made for it.

Why paho-mqtt (2.2, the Eclipse Foundation's reference client) rather than aiomqtt: aiomqtt is
an asyncio wrapper around paho, and the rooms need what paho gives directly: a client driven from
its own thread (a room's broker link never waits on the scoreboard's event loop, nor the other
way round), the PUBACK of each QoS 1 message by its message id (`on_publish`), which is what lets
the spool forget a message only once the broker has it, and the will. aiomqtt leaves the
reconnection to the caller anyway; here it is ours (tablebuzz.rooms.publisher), with backoff.
"""

import os
import ssl

import paho.mqtt.client as mqtt

DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883
PASSWORD_ENV = "TABLEBUZZ_MQTT_PASSWORD"


class BrokerConfig:
    """A broker's address and login. `tls`: TLS with the system's CAs, or with `ca` (a PEM
    file) when given; `username` with the password from the environment."""

    def __init__(self, host="127.0.0.1", port=DEFAULT_PORT, tls=False, ca=None, username=None,
                 password=None):
        self.host = host
        self.port = port
        self.tls = tls or bool(ca)
        self.ca = ca
        self.username = username
        self.password = password

    def __repr__(self):  # never the password
        return "%s:%d%s%s" % (self.host, self.port, " (TLS)" if self.tls else "",
                              " as %s" % self.username if self.username else "")


def parse_mqtt(text, tls=False, ca=None, username=None, env=None):
    """A BrokerConfig from `--mqtt HOST:PORT` (or HOST: the port is 1883, 8883 with TLS) and
    the login options; the password comes from `$TABLEBUZZ_MQTT_PASSWORD`. Raises ValueError
    with the rule."""
    host, sep, port = str(text).rpartition(":")
    if not sep:
        host, port = text, ""
    host = host.strip("[]")
    if not host:
        raise ValueError("--mqtt wants HOST:PORT, e.g. 127.0.0.1:1883 (got %r)" % text)
    if port == "":
        number = DEFAULT_TLS_PORT if tls or ca else DEFAULT_PORT
    elif port.isdigit() and 0 < int(port) < 65536:
        number = int(port)
    else:
        raise ValueError("--mqtt wants HOST:PORT, e.g. 127.0.0.1:1883 (got %r)" % text)
    if ca is not None and not os.path.isfile(ca):
        raise ValueError("--mqtt-ca %s: no such file" % ca)
    password = (os.environ if env is None else env).get(PASSWORD_ENV)
    if password and not username:
        raise ValueError("$%s is set but no --mqtt-user was given" % PASSWORD_ENV)
    return BrokerConfig(host, number, tls, ca, username, password)


def make_client(config, client_id, clean=True):
    """A paho client (MQTT 3.1.1, callback API 2) for `config`, not yet connected. `clean`:
    False keeps the session on the broker (its subscriptions and the QoS 1 messages queued while
    the client is away: the hub's). Raises ValueError for a TLS set-up that cannot be made."""
    client = mqtt.Client(callback_api_version=mqtt.CallbackAPIVersion.VERSION2,
                         client_id=client_id, clean_session=clean, protocol=mqtt.MQTTv311)
    if config.tls:
        try:
            client.tls_set(ca_certs=config.ca, cert_reqs=ssl.CERT_REQUIRED)
        except (OSError, ssl.SSLError) as e:
            raise ValueError("TLS for %r: %s" % (config, e)) from None
    if config.username:
        client.username_pw_set(config.username, config.password)
    return client


def connack_text(reason_code):
    """Plain words for a refused CONNACK (paho's ReasonCode), e.g. a wrong password."""
    text = str(reason_code)
    if "authori" in text.lower() or "password" in text.lower():
        return "the broker refused the login (%s): check --mqtt-user and $%s" % (
            text, PASSWORD_ENV)
    return "the broker refused the connection: %s" % text
