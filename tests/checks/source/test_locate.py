"""Switching a locate LED on the host: the enclosure class file, and `sg_ses` run through the
command runner (argument list, timeout) — real fake tools on PATH, and the real sg_ses."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tool_stubs import fake_tool_dir

from pinchpoint.checks.source import locate
from pinchpoint.checks.source.locate import (
    LocateError,
    class_slot_file,
    sg_ses_ident,
    write_locate_file,
)
from pinchpoint.model.sas import Enclosure, SesDevice, Slot


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


def on_path(monkeypatch: pytest.MonkeyPatch, bin_dir: Path) -> None:
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def test_the_slot_file_is_found_by_the_number_the_kernel_gives_it(tmp_path: Path) -> None:
    root = class_tree(tmp_path / "enclosure")
    found = class_slot_file(enclosure(["sg5"]), 2, str(root))
    assert found == root / "11:0:24:0" / "Slot 02" / "locate"
    assert class_slot_file(enclosure(["sg5"]), 3, str(root)) is None
    assert class_slot_file(enclosure(["sg5"], hctl="12:0:0:0"), 2, str(root)) is None
    write_locate_file(found, True)
    assert found.read_text() == "1"
    write_locate_file(found, False)
    assert found.read_text() == "0"


def test_a_refused_write_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(LocateError, match=r"missing/locate: No such file or directory"):
        write_locate_file(tmp_path / "missing" / "locate", True)


def test_sg_ses_runs_with_an_argument_list_on_the_first_device_that_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    body = f'echo "$@" >> {calls}\ncase "$3" in */sg5) echo "sg5: not ready" >&2; exit 2;; esac'
    on_path(monkeypatch, fake_tool_dir(tmp_path, "sg_ses", body))
    used = sg_ses_ident(enclosure(["sg5", "sg6"]), "--dev-slot-num=2", True)
    assert used == "/dev/sg6"
    assert calls.read_text().splitlines() == [
        "--dev-slot-num=2 --set=ident /dev/sg5",
        "--dev-slot-num=2 --set=ident /dev/sg6",
    ]
    sg_ses_ident(enclosure(["sg6"]), "--index=enc,0", False)
    assert calls.read_text().splitlines()[-1] == "--index=enc,0 --clear=ident /dev/sg6"


def test_every_device_failing_says_why_each_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = 'case "$3" in */sg5) echo "sg5: not ready" >&2; exit 2;; *) sleep 30;; esac'
    on_path(monkeypatch, fake_tool_dir(tmp_path, "sg_ses", body))
    monkeypatch.setattr(locate, "SG_SES_TIMEOUT_S", 0.5)
    with pytest.raises(LocateError) as failure:
        sg_ses_ident(enclosure(["sg5", "sg6"]), "--index=enc,0", True)
    assert str(failure.value) == (
        "JBOD-003: /dev/sg5: sg_ses exit 2: sg5: not ready; /dev/sg6: no answer in 0.5 s"
    )


def test_without_sg_ses_the_package_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(LocateError, match=r"sg_ses is not installed \(Debian package sg3-utils\)"):
        sg_ses_ident(enclosure(["sg5"]), "--index=enc,0", True)


def test_without_an_sg_device_the_reason_is_said() -> None:
    with pytest.raises(LocateError, match="JBOD-003: no SES device"):
        sg_ses_ident(enclosure([]), "--index=enc,0", True)


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg3-utils is not installed")
def test_sg_ses_failing_on_a_missing_device_names_the_device() -> None:
    """The real sg_ses, run with an argument list, on a device this machine does not have."""
    with pytest.raises(LocateError) as failure:
        sg_ses_ident(enclosure(["sg-pinchpoint-missing"]), "--index=enc,0", True)
    message = str(failure.value)
    assert "/dev/sg-pinchpoint-missing" in message and "sg_ses exit" in message
