"""``gostop serve`` that kills itself (SIGKILL) right after it commits an entry and before it
answers: how the tests show that a retry after such a crash appends nothing twice.

Run as ``python tests/fault_server.py --db FILE --port N`` (the server key from
``$GOSTOP_SERVER_KEY``)."""

from __future__ import annotations

import argparse
import os
import signal

from gostop_records.service.serve import ServeOptions, serve
from gostop_records.service.state import ServiceConfig


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    service = ServiceConfig(db=a.db, key=os.environ["GOSTOP_SERVER_KEY"], after_commit=_die)
    serve(ServeOptions(service, port=a.port))
