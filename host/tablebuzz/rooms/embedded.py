"""The hub's embedded broker: amqtt (0.12) in the hub's own event loop, when `tablebuzz hub` is
given no `--mqtt`, so that one laptop serves a small event with nothing else installed.

It listens on `--listen HOST:PORT` (default 127.0.0.1:1883) and lets in only those who log in
(docs/rooms.md "Logins", docs/security.md "The hub and the rooms"), through two amqtt plugins:
- `RoomLogins` (an auth plugin): the username is a room's name and the password its join code
  (tablebuzz.rooms.logins.join_code: an HMAC of the room's name under the hub's secret); the hub
  itself logs in as `hub:NAME`. Anonymous clients and wrong codes are refused at CONNECT;
- `RoomTopics` (a topic plugin): a room publishes only `tablebuzz/<its name>/events`,
  `records`, `view` and `status` and subscribes to (and receives) only `tablebuzz/<its
  name>/ack`; the hub reads everything and publishes only the `ack` topics. A publish elsewhere
  is dropped by the broker (MQTT 3.1.1 has no way to refuse it to the sender).

Sessions are kept in memory only: a hub restart forgets what the broker held, and the rooms'
spools send again everything the hub has not acknowledged (the hub's `ack` topic,
tablebuzz.rooms.publisher).
"""

import logging
from dataclasses import dataclass

from amqtt.contexts import Action
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

from tablebuzz.rooms import logins, topics


def broker_config(host, port, secret):
    """amqtt's configuration: one TCP listener on host:port, the rooms' logins (the hub's
    `secret`, hex) and topic rules, no anonymous clients, no $SYS."""
    return {
        "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (host, port)}},
        "plugins": {
            "tablebuzz.rooms.embedded.RoomLogins": {"secret": secret},
            "tablebuzz.rooms.embedded.RoomTopics": {},
        },
    }


class RoomLogins(BaseAuthPlugin):
    """A room's name and its join code, or the hub's own login (see the module doc)."""

    @dataclass
    class Config:
        secret: str = ""

    async def authenticate(self, *, session):
        secret = self.context.config.secret
        return bool(secret) and session is not None and \
            logins.check_login(secret, session.username, session.password)


class RoomTopics(BaseTopicPlugin):
    """What each login may publish, subscribe to and receive (see the module doc)."""

    @dataclass
    class Config:
        pass

    async def topic_filtering(self, *, session=None, topic=None, action=None):
        user = session.username if session is not None else None
        if not user or topic is None:
            return False
        if logins.is_hub(user):
            return action != Action.PUBLISH or topics.is_ack(topic)
        mine = topics.PREFIX + "/" + user + "/"
        if action == Action.PUBLISH:
            return topic.startswith(mine) and topic[len(mine):] in topics.KINDS
        return topic == mine + topics.ACK  # subscribe, receive: its own acknowledgements


class _Subscriptions(dict):
    """amqtt 0.12.1's table of subscriptions, whose `items()` is a copy: its broadcast loop
    iterates `items()` and awaits the topic plugins inside the loop, so a room subscribing to
    its `ack` topic meanwhile raised "dictionary changed size during iteration" and the message
    being broadcast never reached the subscribers after that point (the rooms' resend covers
    such a loss, but the broker must not make it)."""

    def items(self):
        return list(super().items())


class EmbeddedBroker:
    """`await start()` / `await stop()` inside a running event loop; `secret`: the hub's (hex,
    tablebuzz.rooms.logins). Raises OSError when the port cannot be served."""

    def __init__(self, host="127.0.0.1", port=1883, secret=""):
        self.host = host
        self.port = port
        self.secret = secret
        self._broker = None

    async def start(self):
        from amqtt.broker import Broker

        logging.getLogger("amqtt").setLevel(logging.CRITICAL)  # its per-connection chatter
        logging.getLogger("transitions").setLevel(logging.ERROR)
        self._broker = Broker(broker_config(self.host, self.port, self.secret))
        self._broker._subscriptions = _Subscriptions(self._broker._subscriptions)
        try:
            await self._broker.start()
        except Exception as e:  # amqtt wraps the bind's OSError in its own BrokerError
            raise OSError("the embedded broker cannot listen on %s:%d: %s"
                          % (self.host, self.port, e)) from None

    async def stop(self):
        if self._broker is not None:
            await self._broker.shutdown()
            self._broker = None
