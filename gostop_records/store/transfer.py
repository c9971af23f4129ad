"""How a worker's Arrow tables reach the importer: in an anonymous memory file.

A piece's rows are tens of megabytes. Pickled through the worker's stdout they are copied
four times (into the pickle, into the pipe, out of it, into the unpickled tables). Written
as Arrow IPC streams into a memory file (``memfd_create``) whose descriptor goes to the
importer over a Unix socket, they are copied once, and the importer maps the file: the
tables DuckDB reads are views of those pages (docs/performance.md, "Import: rows in memory
files").

The memory file has no name. It is freed when its last descriptor and mapping close, so a
worker or an importer killed at any moment leaves nothing behind, which a file in
``/dev/shm`` would; a descriptor still in flight dies with the socket. Where the platform
has no memory files or no descriptor passing, or one cannot be made, the tables go
pickled with the rest of the result (:func:`send` returns None).
"""

from __future__ import annotations

import mmap
import os
import socket
from typing import Any

__all__ = ["Index", "available", "channel", "receive", "send"]

#: Where each table sits in the memory file: (name, offset, size) of its IPC stream.
Index = list[tuple[str, int, int]]


def available() -> bool:
    """Whether tables can go through memory files on this platform (Linux)."""
    return hasattr(os, "memfd_create") and hasattr(socket, "send_fds")


def channel() -> tuple[socket.socket, socket.socket]:
    """The importer's end and the worker's end of a socket for descriptors; a packet
    socket, so that each descriptor arrives with its own one-byte message."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


def send(sock: socket.socket, tables: dict[str, Any]) -> Index | None:
    """Write the tables to a new memory file and send its descriptor; their index, or
    None when no memory file could be made or written (the caller pickles them)."""
    import pyarrow as pa

    try:
        fd = os.memfd_create("gostop-rows", os.MFD_CLOEXEC)
    except OSError:
        return None
    try:
        index: Index = []
        try:
            with open(fd, "wb", closefd=False) as f:
                for name, table in tables.items():
                    at = f.tell()
                    with pa.ipc.new_stream(f, table.schema) as writer:
                        writer.write_table(table)
                    index.append((name, at, f.tell() - at))
        except OSError:  # out of memory for the file: the tables go pickled
            return None
        socket.send_fds(sock, [b"t"], [fd])
        return index
    finally:
        os.close(fd)


def receive(sock: socket.socket, index: Index) -> dict[str, Any]:
    """The tables of the next memory file on the socket, as views of its mapped pages.

    Raises OSError when the socket brings no descriptor (the worker ended)."""
    import pyarrow as pa

    _, fds, _, _ = socket.recv_fds(sock, 1, 1)
    if not fds:
        raise OSError("the worker sent no rows")
    fd = fds[0]
    try:
        size = os.fstat(fd).st_size
        pages = mmap.mmap(fd, size, prot=mmap.PROT_READ) if size else b""
    finally:
        os.close(fd)
    data = pa.py_buffer(pages)  # holds the mapping until the last table is dropped
    return {
        name: pa.ipc.open_stream(data.slice(at, length)).read_all() for name, at, length in index
    }
