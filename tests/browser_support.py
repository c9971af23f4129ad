"""The system's Chromium for the browser tests, how it is launched here, and the guarded
browser context every browser test opens its pages in."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["ARGS", "CHROMIUM", "Guarded", "guarded_contexts"]

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


class Guarded:
    """A browser context whose pages may ask only the URLs starting with ``allowed`` (any
    other request is refused and kept) and whose script errors are kept; :meth:`close`
    fails the test on either. ``serve`` answers every request itself instead (a page
    served by an app in the test's own process): a request it returns False for is kept."""

    def __init__(
        self,
        browser: Any,
        allowed: tuple[str, ...] = (),
        serve: Callable[[Any], bool] | None = None,
        **options: Any,
    ) -> None:
        self.ctx = browser.new_context(**options)
        self.blocked: list[str] = []
        self.errors: list[str] = []

        def guard(route: Any) -> None:
            url = route.request.url
            if serve is not None:
                if not serve(route):
                    self.blocked.append(url)
                    route.abort()
            elif url.startswith(allowed):
                route.continue_()
            else:
                self.blocked.append(url)
                route.abort()

        self.ctx.route("**/*", guard)

    def page(self) -> Any:
        pg = self.ctx.new_page()
        pg.on("pageerror", lambda e: self.errors.append(str(e)))
        return pg

    def close(self) -> None:
        self.ctx.close()
        assert not self.errors, self.errors
        assert not self.blocked, f"the page asked the network for {self.blocked}"


def guarded_contexts(browser: Any, url: str) -> Iterator[Callable[..., Guarded]]:
    """The body of a ``contexts`` fixture: yields a maker of contexts allowed ``url`` (and
    ``data:``), and closes each made afterwards, failing the test on what it kept."""
    made: list[Guarded] = []

    def make(**options: Any) -> Guarded:
        g = Guarded(browser, (url, "data:"), **options)
        made.append(g)
        return g

    yield make
    for g in made:
        g.close()
