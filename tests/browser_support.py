"""The system's Chromium for the browser tests, and how it is launched here."""

from __future__ import annotations

import os
import shutil

__all__ = ["ARGS", "CHROMIUM"]

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
