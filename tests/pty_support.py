"""Driving ``gostop`` in a pseudo-terminal, as a person at a keyboard does."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

GOSTOP = Path(sys.executable).with_name("gostop")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """``gostop ARGS`` on a pty of ``cols`` columns: ``send`` keys, ``expect`` text."""

    def __init__(self, *args: str, cols: int = 100, env: dict[str, str] | None = None) -> None:
        self.master, slave = pty.openpty()
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
        full = {**os.environ, "NO_COLOR": "1", "COLUMNS": str(cols), "TERM": "dumb"}
        self.proc = subprocess.Popen(
            [str(GOSTOP), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**full, **(env or {})},
            close_fds=True,
        )
        os.close(slave)
        self.text = ""  # what is shown and not yet consumed by expect (no colour, \n ends)
        self.shown = ""  # everything shown so far, in the same form

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def _pump(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the program ended and closed the terminal
            return False
        if not data:
            return False
        text = ANSI.sub("", data.decode(errors="replace")).replace("\r\n", "\n")
        self.text += text
        self.shown += text
        return True

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) shows after what earlier calls consumed."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.compile(pattern).search(self.text)
            if m is not None:
                self.text = self.text[m.end() :]
                return m
            left = deadline - time.monotonic()
            if left <= 0 or (not self._pump(min(left, 0.5)) and self.proc.poll() is not None):
                if m is None and self.proc.poll() is not None:
                    while self._pump(0.1):
                        pass
                    m = re.compile(pattern).search(self.text)
                    if m is not None:
                        self.text = self.text[m.end() :]
                        return m
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"{pattern!r} not shown; screen:\n{self.text[-3000:]}")

    def wait(self, timeout: float = 20.0) -> int:
        """The exit code, reading what is left on the screen."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._pump(0.2)
        while self._pump(0.05):
            pass
        rc = self.proc.wait(timeout=1)
        os.close(self.master)
        return rc
