"""The service's refusals: an HTTP status, a short error name and the reason in words."""

from __future__ import annotations

from typing import Any

from ..errors import GostopError

__all__ = ["ServiceError"]


class ServiceError(GostopError):
    """A request the service refuses; ``status`` is the HTTP status of the answer.

    ``error`` names the kind of refusal (``conflict``, ``rules``, ``bad_entry``,
    ``unauthorized`` ...), ``reason`` says why; ``extra`` adds fields to the answer (the
    current ``version`` of a conflict, the ``rule`` a refused entry breaks)."""

    def __init__(self, status: int, error: str, reason: str, **extra: Any) -> None:
        self.status = status
        self.error = error
        self.reason = reason
        self.extra = extra
        super().__init__(reason)

    def body(self) -> dict[str, Any]:
        return {"error": self.error, "reason": self.reason, **self.extra}
