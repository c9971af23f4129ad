"""The card drawings: one per card of the table, each marked by its kind, nothing external."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from gostop_records import cards as C
from gostop_records.web import cards as W

SVG = "{http://www.w3.org/2000/svg}"
ALL = [c.code for c in C.ALL_CARDS]


def _classes(svg: str) -> set[str]:
    root = ET.fromstring(svg)
    out: set[str] = set()
    for el in root.iter():
        out.update((el.get("class") or "").split())
    return out


@pytest.mark.parametrize("code", [*ALL, "back"])
def test_every_card_is_a_well_formed_svg_with_its_label(code: str) -> None:
    svg = W.card_svg(code, width=40)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox") == "0 0 50 80"
    assert root.get("width") == "40" and root.get("height") == "64"
    assert root.get("aria-label") == W.label(code)
    assert root.find(f"{SVG}title").text == W.label(code)
    if code != "back":
        assert W.label(code).startswith(code + " ")
        # the code is written in the corner
        texts = [t.text for t in root.iter(f"{SVG}text")]
        assert code in texts


@pytest.mark.parametrize("card", C.ALL_CARDS, ids=lambda c: c.code)
def test_the_kind_mark_follows_the_card_table(card: C.Card) -> None:
    marks = {m for m in _classes(W.card_svg(card.code)) if m.startswith(("mark-", "ribbon-"))}
    expected = {
        C.Kind.BRIGHT: {"mark-bright"},
        C.Kind.ANIMAL: {"mark-animal"},
        C.Kind.RIBBON: {"mark-ribbon", f"ribbon-{card.ribbon_set or 'plain'}"},
        C.Kind.JUNK: set(),
        C.Kind.DOUBLE_JUNK: {"mark-double"},
        C.Kind.BONUS: {"mark-bonus"},
    }[card.kind]
    assert marks == expected


def test_poem_ribbons_carry_their_hangul_and_the_rain_ribbon_none() -> None:
    hong = W._glyph("홍", 0, 0, 10, "#000")
    cheong = W._glyph("청", 0, 0, 10, "#000")
    cho = W._glyph("초", 0, 0, 10, "#000")
    dan = W._glyph("단", 0, 0, 10, "#000")
    paths = {
        k: re.search(r'd="([^"]+)"', g).group(1)
        for k, g in {"홍": hong, "청": cheong, "초": cho, "단": dan}.items()
    }
    for card in C.MONTH_CARDS:
        if card.kind is not C.Kind.RIBBON:
            continue
        svg = W.card_svg(card.code)
        has = {k for k, d in paths.items() if d in svg}
        want = {
            C.RibbonSet.HONGDAN: {"홍", "단"},
            C.RibbonSet.CHEONGDAN: {"청", "단"},
            C.RibbonSet.CHODAN: {"초", "단"},
            None: set(),
        }[card.ribbon_set]
        assert has == want, card.code


def test_brights_show_the_character_gwang() -> None:
    gwang = re.search(r'd="([^"]+)"', W._glyph("光", 0, 0, 10, "#000")).group(1)
    for card in C.ALL_CARDS:
        assert (gwang in W.card_svg(card.code)) == (card.kind is C.Kind.BRIGHT), card.code


def test_month_name_and_plant_come_from_the_card_table() -> None:
    assert W.plant(1) == "pine" and W.plant(11) == "paulownia" and W.plant(12) == "rain"
    for card in C.MONTH_CARDS:
        svg = W.card_svg(card.code)
        assert W.MONTH_NAMES[card.month][:3].upper() in svg
        assert W.MONTH_NAMES[card.month] in W.label(card.code)


def test_labels_are_distinct_and_cover_every_card() -> None:
    labels = W.labels()
    assert set(labels) == {*ALL, "back"}
    assert len(set(labels.values())) == len(labels)


def test_nothing_is_loaded_from_outside() -> None:
    sprite = W.sprite()
    ET.fromstring(sprite)
    # the only URL is the SVG namespace; every reference is to an id in the document
    assert re.findall(r"https?://[^\"']+", sprite) == ["http://www.w3.org/2000/svg"]
    for ref in re.findall(r'(?:href|url\()\s*=?\s*"?([^")\s]+)', sprite):
        assert ref.startswith("#"), ref
    ids = re.findall(r'<symbol id="([^"]+)"', sprite)
    assert ids == [W.symbol_id(c) for c in [*ALL, "back"]]
    assert '<use href="#card-01G"/>' in W.use_svg("01G")
