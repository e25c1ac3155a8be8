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
# below(n) on the 16-bit halves up to this n: (n - 1) * (n - 1) + n stays a small int on the chip
_SMALL_N = const(1 << 14)


def seed_from_hex(text):
    """Bytes of a seed written as hex (any length up to 32 digits; shorter is zero-padded on the
    left).

    Raises ValueError if `text` is not hex or is longer than 32 digits.
    """
    text = text.strip().lower()
    if not text or len(text) > 2 * SEED_BYTES:
        raise ValueError("a seed is 1 to 32 hex digits")
    if text.strip("0123456789abcdef"):  # (not a str a character: protocol.code_points)
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
    """xoshiro128** over four 32-bit words, seeded from a 16-byte seed through SHA-256.

    The words are kept as eight 16-bit halves (high, low): on the chip an int of 2**30 or more
    is a heap object, and every operation on the words made one (~25 a draw), so dealing Red or
    Black's deck took ~12 ms of its `new_game` at 200 MHz on the emulated RP2040. The halves
    give the same draws with small ints only; state() makes the words when asked."""

    def __init__(self, seed):
        digest = sha256(b"tablebuzz-prng:" + seed).digest()
        self._h = [digest[2 * i] << 8 | digest[2 * i + 1] for i in range(8)]
        if not max(self._h):
            self._h[1] = 1  # the all-zero state is a fixed point (the first word 1)
        self._s = None  # the words, once state() made them since the last draw

    def state(self):
        """The generator's four 32-bit words (the journal saves them: tie-breaks resume where
        they were). Allocates only after a draw."""
        s = self._s
        if s is None:
            h = self._h
            s = [h[0] << 16 | h[1], h[2] << 16 | h[3], h[4] << 16 | h[5], h[6] << 16 | h[7]]
            self._s = s
        return s

    def restore(self, words):
        """Continue from `words`, a state() taken earlier (four ints)."""
        h = []
        for w in words:
            w = int(w) & _MASK32
            h.append(w >> 16)
            h.append(w & 0xFFFF)
        self._h = h
        self._s = None

    def _step(self):
        """One step: (high, low) 16-bit halves of the next output."""
        h = self._h
        a0, b0, a1, b1, a2, b2, a3, b3 = h  # word i: a (high half), b (low half)
        # result = rotl(s1 * 5, 7) * 9
        lo = b1 * 5
        hi = (a1 * 5 + (lo >> 16)) & 0xFFFF
        lo &= 0xFFFF
        hi, lo = ((hi << 7) | (lo >> 9)) & 0xFFFF, ((lo << 7) | (hi >> 9)) & 0xFFFF
        lo *= 9
        hi = (hi * 9 + (lo >> 16)) & 0xFFFF
        lo &= 0xFFFF
        # t = s1 << 9
        ta = ((a1 << 9) | (b1 >> 7)) & 0xFFFF
        tb = (b1 << 9) & 0xFFFF
        a2 ^= a0
        b2 ^= b0
        a3 ^= a1
        b3 ^= b1
        a1 ^= a2
        b1 ^= b2
        a0 ^= a3
        b0 ^= b3
        a2 ^= ta
        b2 ^= tb
        # s3 = rotl(s3, 11)
        a3, b3 = ((a3 << 11) | (b3 >> 5)) & 0xFFFF, ((b3 << 11) | (a3 >> 5)) & 0xFFFF
        h[0] = a0
        h[1] = b0
        h[2] = a1
        h[3] = b1
        h[4] = a2
        h[5] = b2
        h[6] = a3
        h[7] = b3
        self._s = None
        return hi, lo

    def next32(self):
        """The next 32-bit output (0 .. 2**32-1)."""
        hi, lo = self._step()
        return hi << 16 | lo

    def below(self, n):
        """A uniform integer in 0..n-1 (1 <= n <= 2**32), by rejection: no modulo bias."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        if n > _SMALL_N:
            limit = (1 << 32) - ((1 << 32) % n)
            while True:
                x = self.next32()
                if x < limit:
                    return x % n
        # n small: the same rejection on the halves (x = hi * 65536 + lo, never one int)
        m = 65536 % n
        r = (m * m) % n  # 2**32 mod n: outputs from 2**32 - r on are rejected
        while True:
            hi, lo = self._step()
            if r and hi == 0xFFFF and lo >= 65536 - r:
                continue
            return ((hi % n) * m + lo) % n

    def shuffle(self, items):
        """Fisher-Yates shuffle of a list in place: for i from the last index down to 1, swap
        item i with item below(i + 1). The same draws as below's, with _step written out in the
        loop on local halves: on the chip the calls and the list's loads and stores were most
        of dealing Red or Black's deck (52 cards) in its `new_game`."""
        if len(items) > _SMALL_N:
            for i in range(len(items) - 1, 0, -1):
                j = self.below(i + 1)
                items[i], items[j] = items[j], items[i]
            return
        h = self._h
        a0, b0, a1, b1, a2, b2, a3, b3 = h
        i = len(items) - 1
        while i > 0:
            n = i + 1
            m = 65536 % n
            r = (m * m) % n  # 2**32 mod n: outputs from 2**32 - r on are rejected (below)
            while True:  # _step, written out
                lo = b1 * 5
                hi = (a1 * 5 + (lo >> 16)) & 0xFFFF
                lo &= 0xFFFF
                hi, lo = ((hi << 7) | (lo >> 9)) & 0xFFFF, ((lo << 7) | (hi >> 9)) & 0xFFFF
                lo *= 9
                hi = (hi * 9 + (lo >> 16)) & 0xFFFF
                lo &= 0xFFFF
                ta = ((a1 << 9) | (b1 >> 7)) & 0xFFFF
                tb = (b1 << 9) & 0xFFFF
                a2 ^= a0
                b2 ^= b0
                a3 ^= a1
                b3 ^= b1
                a1 ^= a2
                b1 ^= b2
                a0 ^= a3
                b0 ^= b3
                a2 ^= ta
                b2 ^= tb
                a3, b3 = ((a3 << 11) | (b3 >> 5)) & 0xFFFF, ((b3 << 11) | (a3 >> 5)) & 0xFFFF
                if not (r and hi == 0xFFFF and lo >= 65536 - r):
                    break
            j = ((hi % n) * m + lo) % n
            items[i], items[j] = items[j], items[i]
            i -= 1
        h[0] = a0
        h[1] = b0
        h[2] = a1
        h[3] = b1
        h[4] = a2
        h[5] = b2
        h[6] = a3
        h[7] = b3
        self._s = None
