"""The integrity wing: its vocabulary names every module of it, and its chain is the log's."""

from __future__ import annotations

import pkgutil

import gostop_records.integrity as integrity
from gostop_records import events as E
from gostop_records.integrity import chain as wing_chain
from gostop_records.integrity import checkpoints
from gostop_records.log import chain as log_chain

WORDS = ("chain", "head", "seal", "signature", "checkpoint", "countersignature")


def test_the_package_docstring_defines_each_word_and_names_each_module() -> None:
    doc = integrity.__doc__ or ""
    for word in WORDS:
        assert f"- **{word}**:" in doc, f"the vocabulary does not define {word!r}"
    for module in pkgutil.iter_modules(integrity.__path__):
        assert f":mod:`.{module.name}`" in doc, f"the vocabulary does not name {module.name}"


def test_the_wing_chain_is_the_log_chain_not_a_copy() -> None:
    assert wing_chain.__all__
    for name in wing_chain.__all__:
        assert getattr(wing_chain, name) is getattr(log_chain, name), name


def test_every_signing_event_class_has_its_check() -> None:
    metadata = {c for c in E.EVENT_CLASSES if issubclass(c, E.Metadata)}
    assert set(checkpoints._CHECKS) == metadata
