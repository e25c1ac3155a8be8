"""Unit tests of the pure firmware core under CPython: ticks, PRNG, protocol, capture, debounce."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from refbox import protocol
from refbox.capture import EdgeDecoder
from refbox.debounce import Debouncer
from refbox.prng import Prng, commitment, seed_from_hex, seed_hex
from refbox.protocol import MAX_LINE, LineAssembler, ProtocolError, encode_event, parse_command
from refbox.ticks import TICKS_PERIOD, Stamp, ticks_add, ticks_diff


# ------------------------------------------------------------------------------------- ticks
@given(st.integers(0, TICKS_PERIOD - 1), st.integers(-(1 << 29), (1 << 29) - 1))
def test_ticks_diff_inverts_ticks_add_across_the_wrap(start, delta):
    end = ticks_add(start, delta)
    assert 0 <= end < TICKS_PERIOD
    assert ticks_diff(end, start) == delta


@given(st.integers(0, TICKS_PERIOD - 1), st.integers(0, 999), st.integers(-(10**11), 10**11))
def test_stamp_after_ns_and_diff_ns_agree(us, ns, delta):
    a = Stamp(us, ns)
    b = a.after_ns(delta)
    assert 0 <= b.ns < 1000
    if abs(delta) < (1 << 29) * 1000:
        assert b.diff_ns(a) == delta


# ------------------------------------------------------------------------------------- PRNG
def test_prng_is_deterministic_and_uniform_enough():
    a, b = Prng(seed_from_hex("1")), Prng(seed_from_hex("1"))
    draws = [a.below(6) for _ in range(6000)]
    assert draws == [b.below(6) for _ in range(6000)]
    counts = [draws.count(i) for i in range(6)]
    assert all(800 < c < 1200 for c in counts), counts


def test_prng_differs_by_seed_and_shuffle_is_a_permutation():
    deck = list(range(52))
    Prng(seed_from_hex("2")).shuffle(deck)
    assert sorted(deck) == list(range(52)) and deck != list(range(52))
    assert Prng(seed_from_hex("1")).next32() != Prng(seed_from_hex("2")).next32()


class _Xoshiro128StarStar:
    """The generator as Blackman & Vigna write it, on four plain 32-bit ints: what Prng, which
    keeps 16-bit halves (no int of 2**30 or more on the chip), must draw exactly."""

    def __init__(self, seed):
        import hashlib

        digest = hashlib.sha256(b"tablebuzz-prng:" + seed).digest()
        self.s = [int.from_bytes(digest[4 * i : 4 * i + 4], "big") for i in range(4)]
        if not any(self.s):
            self.s[0] = 1

    def next32(self):
        s, m = self.s, 0xFFFFFFFF

        def rotl(x, k):
            return ((x << k) | (x >> (32 - k))) & m

        result = (rotl((s[1] * 5) & m, 7) * 9) & m
        t = (s[1] << 9) & m
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 11)
        return result

    def below(self, n):
        limit = (1 << 32) - ((1 << 32) % n)
        while True:
            x = self.next32()
            if x < limit:
                return x % n


@given(
    st.binary(min_size=16, max_size=16),
    st.lists(st.one_of(st.integers(1, 60), st.integers(1, 1 << 32)), min_size=1, max_size=80),
)
def test_prng_draws_what_xoshiro128_starstar_draws(seed, bounds):
    ours, reference = Prng(seed), _Xoshiro128StarStar(seed)
    assert ours.state() == reference.s
    for n in bounds:
        assert ours.below(n) == reference.below(n)
        assert ours.next32() == reference.next32()
        assert ours.state() == reference.s
    again = Prng(b"")
    again.restore(list(ours.state()))
    assert [again.next32() for _ in range(8)] == [reference.next32() for _ in range(8)]


def test_prng_below_from_restored_words_draws_as_the_reference():
    """below(n) on the halves (n up to 2**14) against the plain rejection, from hand-picked
    words (a restore: the journal's `ties`), words with all their high bits set among them."""
    for words in ([0x12345678, 0, 0, 0], [0xFFFFFFFF, 0x80000001, 3, 0xFFFF0000]):
        for n in (3, 7, 52, 1000, 16384):
            ours, reference = Prng(b""), _Xoshiro128StarStar(b"")
            ours.restore(words)
            reference.s = list(words)
            assert [ours.below(n) for _ in range(50)] == [reference.below(n) for _ in range(50)]


def _reference_shuffle(generator, items):
    for i in range(len(items) - 1, 0, -1):
        j = generator.below(i + 1)
        items[i], items[j] = items[j], items[i]


def _word_drawing(output):
    """Words whose next 32-bit output is `output`: s1 from result = rotl(s1 * 5, 7) * 9."""
    m = 0xFFFFFFFF
    x = (output * pow(9, -1, 1 << 32)) & m
    x = ((x >> 7) | (x << 25)) & m  # rotr(x, 7)
    return [0, (x * pow(5, -1, 1 << 32)) & m, 0, 0]


@given(st.binary(min_size=16, max_size=16), st.integers(0, 70))
def test_prng_shuffle_deals_what_the_reference_deals(seed, length):
    ours, reference = Prng(seed), _Xoshiro128StarStar(seed)
    deck, expected = list(range(length)), list(range(length))
    ours.shuffle(deck)
    _reference_shuffle(reference, expected)
    assert deck == expected and ours.state() == reference.s
    assert ours.below(1000) == reference.below(1000)  # and the draws go on from there


def test_prng_shuffle_rejects_the_draws_below_rejects():
    """From words whose next output is the last one (2**32 - 1, rejected for every n that does
    not divide 2**32, as 52 does not), the shuffle draws again, as below does."""
    words = _word_drawing(0xFFFFFFFF)
    probe = _Xoshiro128StarStar(b"")
    probe.s = list(words)
    assert probe.next32() == 0xFFFFFFFF
    ours, reference = Prng(b""), _Xoshiro128StarStar(b"")
    ours.restore(words)
    reference.s = list(words)
    deck, expected = list(range(52)), list(range(52))
    ours.shuffle(deck)
    _reference_shuffle(reference, expected)
    assert deck == expected and ours.state() == reference.s


def test_seed_commitment_is_sha256_of_the_revealed_seed():
    import hashlib

    seed = seed_from_hex("00ff")
    assert seed_hex(seed) == "0" * 28 + "00ff"
    expected = hashlib.sha256(b"tablebuzz-seed-v1:" + seed_hex(seed).encode()).hexdigest()
    assert commitment(seed) == expected


@pytest.mark.parametrize("text", ["", "xyz", "1" * 33, "-1"])
def test_bad_seed_text_is_rejected(text):
    with pytest.raises(ValueError):
        seed_from_hex(text)


# ------------------------------------------------------------------------------------- protocol
def test_events_have_fixed_key_order_and_are_ascii_json():
    line = encode_event(
        "x", (("b", 1), ("a", [1, None, True]), ("s", 'é"\n'), ("o", {"z": 1, "a": 2}))
    )
    assert line == '{"ev":"x","b":1,"a":[1,null,true],"s":"\\u00e9\\"\\u000a","o":{"a":2,"z":1}}'
    assert json.loads(line)["s"] == 'é"\n'
    with pytest.raises(TypeError):
        encode_event("x", (("f", 1.5),))


def _reference_json(value):
    """The protocol's JSON by the rules alone (per character, no caches): what encode_event's
    fast paths must reproduce byte for byte."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        out = []
        for ch in value:
            o = ord(ch)
            if ch in '"\\':
                out.append("\\" + ch)
            elif 0x20 <= o < 0x7F:
                out.append(ch)
            elif o > 0xFFFF:
                o -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
            else:
                out.append("\\u%04x" % o)
        return '"' + "".join(out) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_reference_json(v) for v in value) + "]"
    keys = sorted(value)
    return "{" + ",".join(_reference_json(k) + ":" + _reference_json(value[k]) for k in keys) + "}"


_chars = st.characters(min_codepoint=0, max_codepoint=0x1F600)
_texts = st.text(_chars, max_size=12) | st.sampled_from(
    ["%", "%s", ":%s", '":%s', "%%d", "ev", "player", ""]
)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | _texts,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(_texts, inner, max_size=3)
    ),
    max_leaves=8,
)


@given(st.lists(st.tuples(_texts, st.lists(st.tuples(_texts, _values), max_size=5)), max_size=4))
def test_event_lines_match_the_rules_through_every_cache(events):
    # the same names again with other keys, and again with the first: the kept shapes and
    # texts never leak from one line into another
    for name, fields in events + events[::-1] + events:
        expected = (
            "{"
            + ",".join(
                [_reference_json("ev") + ":" + _reference_json(name)]
                + [_reference_json(k) + ":" + _reference_json(v) for k, v in fields]
            )
            + "}"
        )
        assert encode_event(name, tuple(fields)) == expected


@given(
    winner=st.integers(1, 8),
    margin=st.one_of(st.none(), st.integers(0, 2**40)),
    tied=st.lists(st.integers(1, 8), max_size=8),
    t_us=st.integers(0, 2**30 - 1),
    t_ns=st.integers(0, 999),
)
def test_the_race_line_has_the_general_encoders_bytes(winner, margin, tied, t_us, t_ns):
    fields = (("winner", winner), ("margin_ns", margin), ("tie", bool(tied)), ("tied", tied),
              ("t_us", t_us), ("t_ns", t_ns))
    assert [key for key, _ in fields] == list(protocol.RACE_KEYS)
    line = protocol.encode_race(fields)
    assert line == encode_event("race", fields).encode() + b"\n"
    assert json.loads(line)["tied"] == tied


def test_the_race_paths_written_out_shapes_are_the_built_ones():

    for name, (keys, text) in protocol._SHAPES.items():
        assert text == protocol._shape(name, keys), name


@pytest.mark.parametrize(
    "line, code",
    [
        (b"not json", "bad_json"),
        (b"[1,2]", "not_object"),
        (b'{"x":1}', "missing_field"),
        (b'{"cmd":"fly"}', "unknown_command"),
        (b'{"cmd":"judge"}', "missing_field"),
        (b'{"cmd":"judge","correct":1}', "bad_field"),
        (b'{"cmd":"arm","extra":1}', "unknown_field"),
        (b'{"cmd":"new_game","game":"quiz","players":true}', "bad_field"),
        (b"\xff\xfe", "bad_encoding"),
        (b'{"cmd":"new_game","game":"quiz","players":07}', "bad_json"),
        (b'{"cmd":"arm",}', "bad_json"),
        (b'{"cmd":"new_game","game":"quiz","players":Infinity}', "bad_json"),
        (b'{"cmd":"new_game","game":"quiz","options":{"target":NaN}}', "bad_json"),
        (b'{"cmd":"new_game","game":"quiz","players":4.0}', "bad_json"),
        (b'{"cmd":"state"} trailing', "bad_json"),
        (b"[" * 40 + b"]" * 40, "bad_json"),
    ],
)
def test_malformed_commands_raise_protocol_errors(line, code):
    with pytest.raises(ProtocolError) as e:
        parse_command(line)
    assert e.value.code == code


def test_commands_parse():
    assert parse_command(b'{"cmd":"judge","correct":false}') == ("judge", {"correct": False}, None)
    assert parse_command(b'{"cmd":"new_game","game":"quiz","players":3}')[1]["players"] == 3


# the characters a flat command's skeleton is made of, and some that break it
_JSONISH = st.sampled_from(
    list('{}[]:,"@ -0123456789') + ["true", "false", "null", "a", "\\", "\t", "1.5", "e"]
)


def _grammar_accepts(text):
    try:
        t = text.encode()
        end = protocol._skip_space(t, protocol._json_value(t, 0, 0))
    except ValueError:
        return False
    return end == len(t)


@given(st.lists(_JSONISH, max_size=30))
def test_the_flat_object_shortcut_accepts_only_what_the_grammar_accepts(pieces):
    """check_json's shortcut (protocol._flat_object) never accepts a line the strict grammar
    refuses: its True is the grammar's answer by a shorter way."""
    text = "".join(pieces)
    if protocol._flat_object(text):
        assert _grammar_accepts(text), text


@given(
    st.dictionaries(
        st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters='"\\{['),
                max_size=8),
        st.one_of(st.integers(-10**12, 10**12), st.booleans(), st.none(),
                  st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF,
                                        exclude_characters='"\\{['), max_size=12)),
        min_size=1, max_size=6),
    st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]),
)
def test_flat_commands_take_the_shortcut_with_the_same_answer(obj, separators):
    """A flat object of plain strings (no brace or bracket in them: such a line goes to the
    grammar), integers, booleans and nulls, however it is spaced, is answered by the shortcut,
    and the grammar accepts it too."""
    text = json.dumps(obj, separators=separators, ensure_ascii=False)
    assert protocol._flat_object(text), text
    assert _grammar_accepts(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"cmd":"arm",}', '{"a":07}', '{"a":1 2}', '{"a":tru e}', '{"a":-}', '{"a":"b":"c"}',
        '{"a" "b"}', '{"a":@}', '{"a":"b"}}', '{"a":"b"} x', '{"a":1.5}', '{"a":"b\\"}',
        '{"a":"b}', '{}', '{"a":[1]}', '{"a":\t1}', '{"a":１}', ' {"a":1} ',
    ],
)
def test_the_shortcut_leaves_every_other_line_to_the_grammar(text):
    if protocol._flat_object(text):
        assert _grammar_accepts(text), text
    try:
        protocol.check_json(text)
        accepted = True
    except ValueError:
        accepted = False
    assert accepted == _grammar_accepts(text)


def test_line_assembler_bounds_lines_and_recovers():
    asm = LineAssembler()
    out = asm.feed(b'{"cmd":"arm"}\r\n' + b"x" * (MAX_LINE + 10) + b"\n" + b'{"cmd":"state"}\n')
    assert out[0] == b'{"cmd":"arm"}'
    assert isinstance(out[1], ProtocolError) and out[1].code == "line_too_long"
    assert out[2] == b'{"cmd":"state"}'


@given(st.lists(st.binary(max_size=40), max_size=20), st.data())
def test_line_assembler_is_independent_of_chunking(parts, data):
    stream = b"\n".join(p.replace(b"\n", b"") for p in parts) + b"\n"
    whole = LineAssembler().feed(stream)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    asm, pieces, last = LineAssembler(), [], 0
    for cut in cuts + [len(stream)]:
        pieces += asm.feed(stream[last:cut])
        last = cut
    assert [p if isinstance(p, bytes) else p.code for p in pieces] == [
        p if isinstance(p, bytes) else p.code for p in whole
    ]


# ------------------------------------------------------------------------------------- capture
def test_decoder_orders_words_and_unwraps_the_counter():
    dec = EdgeDecoder(6, 7000, 125)  # 56 ns a count, 24-bit counter: a wrap is 0.9395 s
    dec.start(1000, first_sample_cycles=0)
    edges = []
    mask = dec.counter_mask
    # station 2 closes 10 counts after start; read 30 µs later
    dec.word(((mask - 10) << 6) | 0b111011, 1030, edges)
    assert edges == [(2, True, Stamp(1000, 560))]
    # two counter wraps and 100 counts later, read 25 µs after it
    later = 2 * (mask + 1) + 110
    read = 1000 + (later * 56) // 1000 + 25
    dec.word(((mask - 110) << 6) | 0b111111, read, edges)
    assert edges[1][0:2] == (2, False)
    assert edges[1][2].diff_ns(edges[0][2]) == (later - 10) * 56


def test_decoder_places_a_word_read_almost_a_wrap_late():
    """A loop stalled 0.9 s (less than a 0.94 s wrap) before reading still places it exactly."""
    dec = EdgeDecoder(6, 7000, 125)
    dec.start(0, first_sample_cycles=0)
    edges = []
    mask = dec.counter_mask
    counts = 5_000_000  # 280 ms after the start
    dec.word(((mask - counts) << 6) | 0b111110, 280_000 + 900_000, edges)
    assert edges[0][2] == Stamp(280000, 0)


# ------------------------------------------------------------------------------------- debounce
def _feed(deb, edges, poll_at):
    out = []
    for closed, us in edges:
        deb.edge(closed, Stamp(us), out)
    deb.poll(Stamp(poll_at), out)
    return out


def test_bouncy_press_keeps_its_first_edge():
    bounces = [(True, 1000), (False, 1010), (True, 1030), (False, 1040), (True, 1100)]
    deb = Debouncer(0)
    assert _feed(deb, bounces, 2079) == []  # closed 0.999 ms in all: not yet
    assert _feed(deb, [], 2080) == [("press", 0, Stamp(1000))]  # 1 ms, openings not counted


def test_short_glitch_is_rejected():
    deb = Debouncer(0)
    out = _feed(deb, [(True, 1000), (False, 1005)], 1006 + Debouncer.bounce_gap_us)
    assert out == [] and deb.is_idle() and deb.glitches == 1


def test_noise_is_never_a_press():
    # a 50 µs closure (ESD / EMI), a 0.9 ms one then 4.5 ms open, a storm of 50 µs spikes
    # every 500 µs for 30 ms: never pressed
    cases = [
        [(True, 1000), (False, 1050)],
        [(True, 1000), (False, 1900), (True, 6401), (False, 6402)],
        [(k % 2 == 0, 1000 + (k // 2) * 500 + (k % 2) * 50) for k in range(120)],
    ]
    for edges in cases:
        deb = Debouncer(0)
        assert _feed(deb, edges, 40000) == [] and deb.is_idle() and deb.glitches >= 1


def test_a_worn_switch_drop_out_keeps_the_first_edge():
    # closed 0.9 ms, dropped out 4 ms (less than 5 x 0.9 ms), then closed for good
    deb = Debouncer(0)
    out = _feed(deb, [(True, 1000), (False, 1900), (True, 5900)], 8999)
    assert out == [] and deb.press_pending() == Stamp(1000)  # closed as long as it was open
    assert _feed(deb, [], 9000) == [("press", 0, Stamp(1000))]


def test_two_short_closures_with_a_long_gap_are_not_a_press():
    deb = Debouncer(0)
    out = _feed(deb, [(True, 1000), (False, 1600), (True, 4100), (False, 4700)], 40000)
    assert out == [] and deb.is_idle()


def test_a_spike_long_before_a_press_does_not_backdate_it():
    deb = Debouncer(0)
    out = _feed(deb, [(True, 1000), (False, 1010), (True, 1300)], 5000)
    assert out == [("press", 0, Stamp(1300))] and deb.glitches == 1


def test_judged_alike_however_often_the_loop_polls():
    edges = [(True, 1000), (False, 1040), (True, 1200), (False, 1230), (True, 1400)]
    edges += [(False, 9000), (True, 9100), (False, 30000)]
    sparse = _feed(Debouncer(0), edges, 40000)
    dense = Debouncer(0)
    out = []
    for closed, us in edges:
        for t in range(us - 300, us, 7):
            dense.poll(Stamp(t), out)
        dense.edge(closed, Stamp(us), out)
    dense.poll(Stamp(40000), out)
    assert out == sparse == [("press", 0, Stamp(1000)), ("release", 0, Stamp(30000))]


def test_a_release_and_the_next_press_seen_together_are_both_reported():
    # the loop was away (a gc pause): the opening and the next closing arrive in one pass
    deb = Debouncer(0)
    out = _feed(deb, [(True, 0), (False, 2000), (True, 8000)], 9500)
    assert out == [("press", 0, Stamp(0)), ("release", 0, Stamp(2000)), ("press", 0, Stamp(8000))]


def test_a_release_is_stamped_at_its_first_opening():
    deb = Debouncer(0)
    # released at 50 ms, re-closing twice for 60 µs (release bounce)
    edges = [(True, 0), (False, 50000), (True, 50100), (False, 50160), (True, 50400)]
    out = _feed(deb, edges + [(False, 50460)], 50460 + Debouncer.release_us)
    assert out == [("press", 0, Stamp(0)), ("release", 0, Stamp(50000))]


def test_release_needs_the_contact_open_for_release_us():
    deb = Debouncer(0)
    out = _feed(deb, [(True, 0), (False, 50000), (True, 51000), (False, 60000)], 61000)
    assert out == [("press", 0, Stamp(0))]  # the 1 ms drop-out did not end the press
    deb.poll(Stamp(60000 + Debouncer.release_us), out)
    assert out[-1] == ("release", 0, Stamp(60000))


def test_the_catalogue_agrees_with_the_game_classes():
    from refbox.games import CATALOG, game_class, player_range

    for name, _, _, low, high in CATALOG:
        cls = game_class(name)
        assert cls.name == name
        assert (cls.min_players, cls.max_players) == (low, high) == player_range(name)


def test_the_loops_read_the_debouncers_states_as_refbox_debounce_numbers_them():
    from refbox import app, debounce

    assert (app._CANDIDATE, app._DOWN) == (debounce._CANDIDATE, debounce._DOWN)
    assert (app._V_STATE, app._V_DUE_US) == (debounce.V_STATE, debounce.V_DUE_US)


# ------------------------------------------------------------------ a host's text, by its bytes
# (refbox.protocol "text": on MicroPython a character taken out of a str is interned for good)


@given(st.text())
def test_code_points_are_the_characters(text):
    assert protocol.code_points(text) == [ord(ch) for ch in text]


@given(st.text())
def test_printable_ascii_is_the_characters_rule(text):
    assert protocol.printable_ascii(text) == all(" " <= ch <= "~" for ch in text)


@given(st.text(), st.integers(min_value=3, max_value=130))
def test_printable_text_makes_each_other_character_a_question_mark(text, longest):
    safe = [ch if " " <= ch <= "~" else "?" for ch in text[: longest + 1]]
    if len(safe) > longest:
        safe = safe[: longest - 3] + ["..."]
    assert protocol.printable_text(text, longest) == "".join(safe)


@given(st.text())
def test_escaped_text_is_json_of_the_same_characters(text):
    assert json.loads(protocol._escaped(text)) == text
    assert protocol._escaped(text).isascii()
