"""The record's face for browsers: card drawings, the replayer page, routes for ``gostop serve``.

Everything a page needs is made here or shipped in this package (templates, one script, one
style sheet); pages never load anything from another host.
"""

from __future__ import annotations
