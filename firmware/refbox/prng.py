"""The firmware's own PRNG (xoshiro128**) and the seed commitment.

`random` differs between CPython and MicroPython, so dealing and tie-break draws use this
generator: the same seed gives the same draws on the board, under CPython and under the MicroPython
unix port. A seed is 16 bytes (shown as 32 hex digits): too many to brute-force from its SHA-256
commitment or from the cards already seen. Source: Blackman & Vigna, "Scrambled linear pseudorandom
number generators" (xoshiro128**); rules/README.md "Randomness" and "Nothing hidden leaks".
"""

from binascii import hexlify, unhexlify

from refbox.compat import const, sha256

_MASK32 = const(0xFFFFFFFF)
SEED_BYTES = const(16)
_COMMIT_PREFIX = b"tablebuzz-seed-v1:"


def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & _MASK32


def seed_from_hex(text):
    """Bytes of a seed written as hex (any length up to 32 digits; shorter is zero-padded on the
    left).

    Raises ValueError if `text` is not hex or is longer than 32 digits.
    """
    text = text.strip().lower()
    if not text or len(text) > 2 * SEED_BYTES:
        raise ValueError("a seed is 1 to 32 hex digits")
    for ch in text:
        if ch not in "0123456789abcdef":
            raise ValueError("a seed is 1 to 32 hex digits")
    text = "0" * (2 * SEED_BYTES - len(text)) + text
    return unhexlify(text)


def seed_hex(seed):
    """The 32-hex-digit text of a 16-byte seed."""
    return hexlify(seed).decode()


def commitment(seed):
    """SHA-256 commitment (64 hex digits) published at game start, checkable once the seed is
    revealed."""
    return hexlify(sha256(_COMMIT_PREFIX + seed_hex(seed).encode()).digest()).decode()


class Prng:
    """xoshiro128** over four 32-bit words, seeded from a 16-byte seed through SHA-256."""

    def __init__(self, seed):
        digest = sha256(b"tablebuzz-prng:" + seed).digest()
        words = []
        for i in range(4):
            b = digest[4 * i : 4 * i + 4]
            words.append(b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3])
        if not (words[0] | words[1] | words[2] | words[3]):
            words[0] = 1  # the all-zero state is a fixed point
        self._s = words

    def state(self):
        """The generator's four 32-bit words (the journal saves them: tie-breaks resume where
        they were)."""
        return self._s

    def restore(self, words):
        """Continue from `words`, a state() taken earlier (four ints)."""
        self._s = [int(w) & _MASK32 for w in words]

    def next32(self):
        """The next 32-bit output (0 .. 2**32-1)."""
        s = self._s
        result = (_rotl((s[1] * 5) & _MASK32, 7) * 9) & _MASK32
        t = (s[1] << 9) & _MASK32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 11)
        return result

    def below(self, n):
        """A uniform integer in 0..n-1 (1 <= n <= 2**32), by rejection: no modulo bias."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        limit = (1 << 32) - ((1 << 32) % n)
        while True:
            x = self.next32()
            if x < limit:
                return x % n

    def shuffle(self, items):
        """Fisher-Yates shuffle of a list in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
