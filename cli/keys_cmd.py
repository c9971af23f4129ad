"""``gostop keys``: Ed25519 key files for signing records.

``gostop record`` signs every hand's end. Without ``--key`` it makes a key per game in the
key folder (``$GOSTOP_KEYS``, else ``~/.local/share/gostop/keys``); ``gostop keys new`` makes
a key of one's own to sign with on every game (``gostop record --key FILE``), whose
fingerprint other players can note once and recognise in every record it signs.
"""

from __future__ import annotations

import getpass
import re
from pathlib import Path
from typing import Annotated

import typer

from gostop_records.integrity.signing import (
    SigningKey,
    default_key_dir,
    read_key_file,
    write_key_file,
)

from . import common

__all__ = ["app"]

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Signing keys (Ed25519): make one, show its fingerprint.",
    epilog='Example: gostop keys new --holder "Ann\'s phone" --out ann.key',
)


def _default_holder() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "recorder"


@app.command("new", epilog="Example: gostop keys new --out ann.key")
def new(
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Where to write the key (default: HOLDER.key in the key folder).",
        ),
    ] = None,
    holder: Annotated[
        str | None,
        typer.Option("--holder", metavar="NAME", help="Who holds the key (default: your user)."),
    ] = None,
) -> None:
    """Make a new key file (private key, mode 0600; never overwritten)."""
    who = (holder or _default_holder()).strip() or "recorder"
    path = out
    if path is None:
        slug = re.sub(r"[^0-9A-Za-z._-]+", "-", who).strip("-") or "recorder"
        path = default_key_dir() / f"{slug}.key"
    key = SigningKey.generate(who)
    write_key_file(path, key)
    common.echo(f"wrote {path} (mode 0600): key {key.fingerprint}, held by {who}")
    common.echo(f"sign with it: gostop record --key {path} ...")


@app.command("show", epilog="Example: gostop keys show ann.key")
def show(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A key file.")],
) -> None:
    """Print a key file's fingerprint, holder and public key (never the private key)."""
    key = read_key_file(file)
    common.echo(f"fingerprint {key.fingerprint}")
    common.echo(f"holder      {key.holder or '-'}")
    common.echo(f"public key  {key.public.text}")
