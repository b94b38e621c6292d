"""Locate LEDs: the kernel's enclosure class when it lists the slot, else the real `sg_ses`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tool_stubs import fake_tool_dir

from pinchpoint.model.sas import Enclosure, SesDevice, Slot
from pinchpoint.service.locate import LocateError, set_locate


def enclosure(sg: list[str], hctl: str = "11:0:24:0") -> Enclosure:
    return Enclosure(
        id="enclosure:0x5000ccab0200947e",
        logical_id="0x5000ccab0200947e",
        nickname="JBOD-003",
        ses_devices=[SesDevice(id="ses:1", hctls=[hctl], sg_devices=sg)],
        slots=[Slot(id="slot:1", index=1), Slot(id="slot:2", index=2)],
    )


def class_tree(root: Path, hctl: str = "11:0:24:0") -> Path:
    """/sys/class/enclosure/<hctl>/<component>/{slot,locate} as the ses driver lays it out."""
    for name, slot in (("Slot 01", 1), ("Slot 02", 2)):
        component = root / hctl / name
        component.mkdir(parents=True)
        (component / "slot").write_text(f"{slot}\n")
        (component / "locate").write_text("0\n")
    return root


def test_a_slot_is_lit_through_the_enclosure_class(tmp_path: Path) -> None:
    root = class_tree(tmp_path / "enclosure")
    result = set_locate(enclosure(["sg5"]), 2, True, class_root=str(root))
    assert result.method == "sysfs"
    assert (root / "11:0:24:0" / "Slot 02" / "locate").read_text() == "1"
    assert (root / "11:0:24:0" / "Slot 01" / "locate").read_text() == "0\n"
    set_locate(enclosure(["sg5"]), 2, False, class_root=str(root))
    assert (root / "11:0:24:0" / "Slot 02" / "locate").read_text() == "0"


def test_an_unknown_slot_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LocateError, match="has no slot 9"):
        set_locate(enclosure(["sg5"]), 9, True, class_root=str(tmp_path))


def test_without_an_sg_device_the_reason_is_said(tmp_path: Path) -> None:
    with pytest.raises(LocateError, match="no SES device"):
        set_locate(enclosure([]), None, True, class_root=str(tmp_path))


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg3-utils is not installed")
def test_sg_ses_failing_on_a_missing_device_names_the_device(tmp_path: Path) -> None:
    """The real sg_ses, run with an argument list, on a device this machine does not have."""
    with pytest.raises(LocateError) as failure:
        set_locate(enclosure(["sg-pinchpoint-missing"]), None, True, class_root=str(tmp_path))
    message = str(failure.value)
    assert "/dev/sg-pinchpoint-missing" in message and "sg_ses exit" in message


def test_a_refused_class_file_falls_back_to_sg_ses_and_both_reasons_are_said(
    tmp_path: Path,
) -> None:
    root = class_tree(tmp_path / "enclosure")
    locate = root / "11:0:24:0" / "Slot 02" / "locate"
    locate.unlink()
    locate.mkdir()  # exists, but cannot be written: as a read-only /sys refuses
    with pytest.raises(LocateError) as failure:
        set_locate(enclosure([]), 2, True, class_root=str(root))
    assert str(failure.value) == (
        f"{locate}: Is a directory; JBOD-003: no SES device (sg) is known to switch its LEDs"
    )


def test_the_whole_enclosure_is_switched_with_sg_ses_whatever_the_class_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = fake_tool_dir(tmp_path, "sg_ses", f'echo "$@" > {tmp_path / "args"}')
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ.get('PATH', '')}")
    root = class_tree(tmp_path / "enclosure")
    result = set_locate(enclosure(["sg5"]), None, True, class_root=str(root))
    assert (result.method, result.device, result.slot) == ("sg_ses", "/dev/sg5", None)
    assert (tmp_path / "args").read_text() == "--index=enc,0 --set=ident /dev/sg5\n"
    result = set_locate(enclosure(["sg5"]), 1, False, class_root=str(tmp_path / "no-class"))
    assert (result.method, result.device) == ("sg_ses", "/dev/sg5")
    assert (tmp_path / "args").read_text() == "--dev-slot-num=1 --clear=ident /dev/sg5\n"
