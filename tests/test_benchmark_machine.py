"""What the load benchmark notes about the machine: how long it waited for its disk."""

from __future__ import annotations

from pathlib import Path

from benchmarks.machine import io_stall_seconds


def test_the_disk_wait_is_read_from_the_some_line(tmp_path: Path) -> None:
    pressure = tmp_path / "io"
    pressure.write_text(
        "some avg10=9.68 avg60=7.49 avg300=3.78 total=753610555\n"
        "full avg10=9.24 avg60=6.97 avg300=3.37 total=588182311\n"
    )
    assert io_stall_seconds(pressure) == 753.610555


def test_no_pressure_information_is_none_not_zero(tmp_path: Path) -> None:
    assert io_stall_seconds(tmp_path / "missing") is None
    (tmp_path / "empty").write_text("")
    assert io_stall_seconds(tmp_path / "empty") is None
