"""The offset clock (``--clock-offset-file``) alone: no server, no Redis."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.app.ground import clock as clock_module
from server.app.ground.clock import OffsetClock


class Base:
    """A machine's clock that stands still unless moved."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every reading of the clock looks at the file (no 0.1 s between looks)."""
    monkeypatch.setattr(clock_module, "LOOK_EVERY", 0.0)


def test_the_offset_is_added_and_read_again_when_the_file_changes(tmp_path: Path, looks: None
                                                                   ) -> None:
    path, base = tmp_path / "clock", Base()
    clock = OffsetClock(path, base)
    assert clock() == base.now  # no file: the machine's
    path.write_text("86400000")
    assert clock() == base.now + 86_400
    path.write_text("-5000\n")
    assert clock() == base.now - 5
    path.unlink()
    assert clock() == base.now


def test_a_file_read_while_it_is_written_keeps_the_last_offset(tmp_path: Path, looks: None
                                                               ) -> None:
    """Regression (issue 30): ``write_text`` truncates, then writes; a look
    between the two read an empty file as 0, and the clock went back to the
    machine's, by a day, for as long as the process did not look again."""
    path, base = tmp_path / "clock", Base()
    path.write_text("86400000")
    clock = OffsetClock(path, base)
    assert clock() == base.now + 86_400
    path.write_text("")  # truncated: the number is not written yet
    assert clock() == base.now + 86_400
    path.write_text("172800000")  # written: read at the next look
    assert clock() == base.now + 172_800


def test_a_second_change_of_the_same_size_and_time_is_seen(tmp_path: Path, looks: None) -> None:
    """Regression (issue 30): a file replaced by another of the same size
    within the file system's tick had the same (mtime, size): its offset was
    never read. Its inode differs."""
    path, base = tmp_path / "clock", Base()
    path.write_text("1000")
    clock = OffsetClock(path, base)
    stat = path.stat()
    part = tmp_path / "clock.part"
    part.write_text("2000")
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    part.replace(path)
    assert clock() == base.now + 2


def test_a_file_that_is_no_number_is_said_once_and_changes_nothing(
        tmp_path: Path, looks: None, capsys: pytest.CaptureFixture[str]) -> None:
    path, base = tmp_path / "clock", Base()
    path.write_text("3000")
    clock = OffsetClock(path, base)
    path.write_text("tomorrow")
    assert clock() == base.now + 3
    assert clock() == base.now + 3


def test_the_file_is_looked_at_no_more_than_every_tenth_of_a_second(tmp_path: Path) -> None:
    path, base = tmp_path / "clock", Base()
    path.write_text("1000")
    clock = OffsetClock(path, base)
    clock()
    path.write_text("9000")
    assert clock() == base.now + 1  # within the tenth of a second: not looked at
