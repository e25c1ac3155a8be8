"""Contacts: what a player's finger does to the wire. Presses and releases become edge trains.

A press closes the contact at exactly its time (the moment arbitration must find), then bounces
open a few times for 2-150 µs each over 0.5-6 ms and stays closed; a release opens it and may
re-close it briefly for up to 1 ms. A glitch is a short low pulse on an open contact (noise).
Profiles: "typical", "none" (clean edges), "worn" (longer bounce, up to 12 opens). Figures:
shared/design.md "Arcade micro-switches bounce ~0.5-6 ms". Randomness comes from the world's PRNG:
deterministic.
"""


class Contact:
    """One switch wired between `gpio` and ground (active low)."""

    def __init__(self, world, gpio, profile="typical"):
        self.world = world
        self.gpio = gpio
        self.profile = profile
        self.closed = False
        self._generation = (
            0  # a new action cancels the bounce edges still queued from the last one
        )

    def _set(self, arg):
        generation, low = arg
        if generation == self._generation:
            self.world.set_level(self.gpio, 0 if low else 1)

    def _edges(self, start, pairs):
        gen = self._generation
        for offset, low in pairs:
            self.world.at(start + offset, self._set, (gen, low))

    def _train(self, span_us, opens_max, open_us_max, low_between):
        """Offsets (ns) of short pulses inside `span_us`: [(offset, level_low)...] after the main
        edge."""
        rng = self.world.rng
        if self.profile == "none":
            return []
        if self.profile == "worn":
            span_us *= 2
            opens_max = 12
        n = rng.below(opens_max + 1)
        span_ns = span_us * 1000
        if not n or not span_ns:
            return []
        starts = sorted([1000 + rng.below(span_ns) for _ in range(n)])
        pairs = []
        last_end = 0
        for s in starts:
            if s <= last_end + 1000:
                continue
            width = 2000 + rng.below(open_us_max * 1000)
            pairs.append((s, not low_between))
            pairs.append((s + width, low_between))
            last_end = s + width
        return pairs

    def press(self):
        """Close now: the first edge is exact; bounce follows."""
        self._generation += 1
        self.closed = True
        span = 500 + self.world.rng.below(5501)
        self._edges(self.world.now, [(0, True)] + self._train(span, 8, 150, True))

    def release(self):
        self._generation += 1
        self.closed = False
        span = self.world.rng.below(1001)
        self._edges(self.world.now, [(0, False)] + self._train(span, 3, 100, False))

    def glitch(self, width_ns):
        """A noise pulse: low for `width_ns`, on an open contact only."""
        if self.closed:
            return
        self._generation += 1
        self._edges(self.world.now, [(0, True), (width_ns, False)])
