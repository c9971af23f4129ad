"""Progress of long work on stderr, one helper for every command that needs one.

On a terminal it is a bar (rich: the count, the rate, the time left) redrawn in place; when
stderr is a pipe or a file it is plain lines, one at each tenth of the work, that a log can
keep. Results never go here: stdout stays clean for ``--json`` and pipes.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import IO, Any

from . import common

__all__ = ["Progress"]


class Progress:
    """``done`` of ``total`` ``unit``s of the work ``label``: a bar on a terminal, plain lines
    (``label: 2/20 hands (10%)``) elsewhere. ``plain=False`` keeps a pipe quiet but for
    :meth:`note` (a command with lines of its own there). Use it as a context manager, or
    call :meth:`close`."""

    def __init__(
        self,
        label: str,
        total: int | None,
        unit: str,
        *,
        stream: IO[str] | None = None,
        enabled: bool = True,
        plain: bool = True,
    ) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.plain = plain
        self.done = 0
        self._tenth = 0
        self._steps = 0
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self._bar: Any = None
        self._task: Any = None
        if enabled and self.tty:
            self._start_bar()

    def _start_bar(self) -> None:
        import shutil

        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.progress import (
            Progress as Bar,
        )

        size = shutil.get_terminal_size()
        console = Console(
            file=self.stream,
            force_terminal=True,
            width=size.columns,
            height=size.lines,
            no_color=not common.color_enabled(self.stream),
            highlight=False,
        )
        self._bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit + "s"),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            TextColumn("left"),
            TextColumn("{task.fields[detail]}"),
            console=console,
            transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=self.total, rate="", detail="")

    def update(self, done: int, total: int | None = None, detail: str = "") -> None:
        """The work done so far (and the total, when it became known)."""
        if total is not None:
            self.total = total
        self.done = done if self.total is None else min(done, self.total)
        if not self.enabled:
            return
        if self._bar is not None:
            task = self._bar.tasks[0]
            speed = task.speed
            rate = f"{speed:,.0f} {self.unit}s/s" if speed else ""
            self._bar.update(
                self._task, completed=self.done, total=self.total, rate=rate, detail=detail
            )
            return
        if not self.plain or not self.total:
            return
        tenth = self.done * 10 // self.total
        if tenth > self._tenth:
            self._tenth = tenth
            pct = self.done * 100 // self.total
            self._line(f"{self.label}: {self.done}/{self.total} {self.unit}s ({pct}%)")

    def step(self, text: str) -> None:
        """The next step of work counted in steps begins: the bar shows what it is; a plain
        line says it elsewhere ("demo: importing it into DuckDB ...")."""
        if self._bar is not None:
            self.update(self._steps, detail=text)
            self._steps += 1
        else:
            self.note(f"{self.label}: {text} ...")

    def note(self, text: str) -> None:
        """A line said once: above the bar on a terminal, a plain line elsewhere."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            self._line(text)

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
