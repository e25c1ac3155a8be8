"""`make flash` puts the optional display's driver (micropython-lib's ssd1306) on the board when
it is missing: by mpremote mip, or from a file given with --ssd1306; offline it warns and the
flash still succeeds (the box works without the display)."""

import hashlib
import json

import pytest
from tablebuzz.link import flash
from test_flash import MICROPYTHON, FakeBoard, unix_port_board

DRIVER = b"# stands in for micropython-lib's ssd1306.py in these tests\nWIDTH = 128\n"


class MipBoard(FakeBoard):
    """FakeBoard with `mip_install`: `index` maps a package to its file, else offline."""

    def __init__(self, fs=None, index=None):
        super().__init__(fs)
        self.index = index or {}

    def mip_install(self, package, index=None, target="lib"):
        if package not in self.index:
            raise flash.FlashError(
                "could not install %s: [Errno -3] Temporary failure in name resolution "
                "requesting https://micropython.org/pi/v2/package/6/%s/latest.json"
                % (package, package)
            )
        if target not in self.fs:
            self.mkdir(target)
        self.write(target + "/" + package + ".mpy", self.index[package])


def test_a_driver_already_on_the_board_is_left_alone():
    board = MipBoard({"lib": None, "lib/ssd1306.mpy": b"M\x06"})
    assert flash.install_display_driver(board, log=lambda line: None) == "present"
    assert board.log == []


def test_a_missing_driver_is_installed_by_mip():
    board = MipBoard(index={"ssd1306": b"M\x06\x00\x1f"})
    assert flash.install_display_driver(board, log=lambda line: None) == "installed"
    assert board.fs["lib/ssd1306.mpy"] == b"M\x06\x00\x1f"


def test_offline_the_flash_warns_in_plain_words_and_goes_on(capsys):
    board = MipBoard()
    assert flash.install_display_driver(board, log=lambda line: None) == "missing"
    err = capsys.readouterr().err
    assert "the display driver is not on the board" in err
    assert "works without the display" in err and "--ssd1306" in err
    assert "Traceback" not in err and board.log == []


def test_a_driver_file_given_is_copied(tmp_path):
    path = tmp_path / "ssd1306.py"
    path.write_bytes(DRIVER)
    board = MipBoard()
    assert flash.install_display_driver(board, str(path), log=lambda line: None) == "copied"
    assert board.fs["lib/ssd1306.py"] == DRIVER
    with pytest.raises(flash.FlashError, match="cannot read the display driver"):
        flash.install_display_driver(MipBoard(), str(tmp_path / "nope.py"), log=print)


@pytest.mark.micropython
def test_mip_installs_into_the_unix_port_from_a_package_index(tmp_path):
    """The real mpremote mip code, from a package index laid out as micropython.org's (a
    folder here: mip reads local paths as it reads URLs), into the unix port's lib/."""
    if not MICROPYTHON.exists():
        pytest.skip("no MicroPython unix port in this environment")
    index = tmp_path / "index"
    short = hashlib.sha256(DRIVER).hexdigest()[:8]
    (index / "file" / short[:2]).mkdir(parents=True)
    (index / "file" / short[:2] / short).write_bytes(DRIVER)
    with unix_port_board(tmp_path) as (board, folder):
        mpy = board.transport.eval("getattr(__import__('sys').implementation, '_mpy', 0) & 0xFF")
        package = index / "package" / str(mpy) / "ssd1306"
        package.mkdir(parents=True)
        hashes = {"hashes": [["ssd1306.py", short]], "version": "0.1.0"}
        (package / "latest.json").write_text(json.dumps(hashes))
        original = board.mip_install
        board.mip_install = lambda name: original(name, index=str(index))
        (folder / "lib").mkdir()
        assert flash.install_display_driver(board, log=lambda line: None) == "installed"
        assert (folder / "lib" / "ssd1306.py").read_bytes() == DRIVER
        assert flash.install_display_driver(board, log=lambda line: None) == "present"


# ------------------------------------------------------------------ USB keyboard mode (issue 23)
class KeyboardBoard(MipBoard):
    def read(self, rel):
        return self.fs.get(rel)


KEYBOARD_LIB = {"usb-device-keyboard": b"M\x06 stands in for micropython-lib's package"}


def test_usb_keyboard_keys_are_checked_before_the_board_is_touched():
    assert flash.keyboard_config("default") == {}
    assert flash.keyboard_config("off") is None
    assert flash.keyboard_config("1=a, 2=B,3=left_shift+c") == {
        "keys": {"1": "A", "2": "B", "3": ["LEFT_SHIFT", "C"]}}
    for bad, words in (("1=A,2", "'2' is not STATION=KEY"), ("9=A", "station '9' is not 1..8"),
                       ("1=NOPE", "unknown key 'NOPE'")):
        with pytest.raises(flash.FlashError, match=words):
            flash.keyboard_config(bad)


def test_usb_keyboard_on_writes_the_file_and_boot_py_and_installs_the_library_once():
    board = KeyboardBoard(index=KEYBOARD_LIB)
    config = flash.keyboard_config("1=A,2=B")
    assert flash.install_usb_keyboard(board, config, log=lambda line: None) == "on"
    assert json.loads(board.fs["usb_keyboard.json"]) == {"keys": {"1": "A", "2": "B"}}
    assert board.fs["boot.py"].startswith(flash.BOOT_MARK.encode())
    assert b"board.start_usb_keyboard(pinmap.PLAYER_COUNT)" in board.fs["boot.py"]
    assert "lib/usb-device-keyboard.mpy" in board.fs  # (MipBoard's stand-in for mip's layout)
    board.fs["lib/usb"] = board.fs["lib/usb/device"] = None
    board.fs["lib/usb/device/keyboard.mpy"] = b"M\x06"
    board.index = {}  # offline now: a second flash must not need mip
    assert flash.install_usb_keyboard(board, {}, log=lambda line: None) == "on"
    assert json.loads(board.fs["usb_keyboard.json"]) == {}
    assert flash.install_usb_keyboard(board, None, log=lambda line: None) == "off"
    assert "boot.py" not in board.fs and "usb_keyboard.json" not in board.fs
    assert "lib/usb/device/keyboard.mpy" in board.fs  # the library stays


def test_usb_keyboard_never_overwrites_a_boot_py_of_the_users_and_says_when_offline():
    board = KeyboardBoard({"boot.py": b"import network  # the user's own\n"})
    with pytest.raises(flash.FlashError, match="boot.py of its own"):
        flash.install_usb_keyboard(board, {}, log=print)
    assert board.fs["boot.py"] == b"import network  # the user's own\n"
    flash.install_usb_keyboard(board, None, log=lambda line: None)  # off leaves it too
    assert board.fs["boot.py"] == b"import network  # the user's own\n"
    offline = KeyboardBoard()
    with pytest.raises(flash.FlashError, match="boots without USB keyboard mode and says so"):
        flash.install_usb_keyboard(offline, {}, log=print)


def test_a_bad_usb_keyboard_option_is_one_line_before_any_board():
    from test_flash import assert_one_line_error, run_cli

    result = run_cli("flash", "--dry-run", "--port", "/dev/ttyNOPE", "--usb-keyboard", "1=NOPE")
    assert_one_line_error(result)
    assert "unknown key 'NOPE'" in result.stderr
