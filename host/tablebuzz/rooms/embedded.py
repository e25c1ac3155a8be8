"""The hub's embedded broker: amqtt (0.12) in the hub's own event loop, when `tablebuzz hub` is
given no `--mqtt`, so that one laptop serves a small event with nothing else installed.

It listens on `--listen HOST:PORT` (default 127.0.0.1:1883), takes anonymous clients and keeps
its sessions in memory only: a hub restart forgets what the broker held (the rooms' spools send
it again, docs/rooms.md). For an event with a real network, users and ACLs, run Mosquitto.
"""

import logging


def broker_config(host, port):
    """amqtt's configuration for one TCP listener on host:port, anonymous clients, no $SYS."""
    return {
        "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (host, port)}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {
            "allow_anonymous": True}},
    }


class EmbeddedBroker:
    """`await start()` / `await stop()` inside a running event loop. Raises OSError when the
    port cannot be served."""

    def __init__(self, host="127.0.0.1", port=1883):
        self.host = host
        self.port = port
        self._broker = None

    async def start(self):
        from amqtt.broker import Broker

        logging.getLogger("amqtt").setLevel(logging.ERROR)  # its per-connection chatter
        logging.getLogger("transitions").setLevel(logging.ERROR)
        self._broker = Broker(broker_config(self.host, self.port))
        try:
            await self._broker.start()
        except Exception as e:  # amqtt wraps the bind's OSError in its own BrokerError
            raise OSError("the embedded broker cannot listen on %s:%d: %s"
                          % (self.host, self.port, e)) from None

    async def stop(self):
        if self._broker is not None:
            await self._broker.shutdown()
            self._broker = None
