"""GET /api/games/{id}/now, what the web recorder draws its buttons from: at every step of a
recorded hand the next entry is among the lines it offers, a line it does not offer is
refused, a Stop pays what it said, and the pages of the table are served whole."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from record_helpers import script_for, sim_payloads
from service_helpers import auth, new_game, service_client

#: A matgo hand (seed 5) with a two-card choice, a Go and then a Stop.
SEED = 5


def _lines() -> list[str]:
    return script_for(sim_payloads("matgo", 2, SEED), hidden=True)


def _post(client: Any, gid: str, token: str, line: str, version: int) -> Any:
    return client.post(
        f"/api/games/{gid}/entries",
        json={"entry": line, "expected_version": version},
        headers=auth(token),
    )


def test_every_entry_of_a_hand_is_offered_before_it_is_made(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client)
        gid, token = g["game_id"], g["recorder_token"]
        choices = 0
        stop_said: list[int] | None = None
        for line in _lines():
            now = client.get(f"/api/games/{gid}/now").json()
            kind = now["waiting"]["kind"]
            offered = [a["line"] for a in now["actions"]]
            verb = line.split()[0]
            if verb == "deal":
                assert kind == "deal" and now["deal"]["layout"] == 8
                assert offered == []
            elif verb == "pay":
                # between hands the night can be closed too (the settlement)
                assert kind == "pay" and offered == ["pay", "settle"]
                assert [d["chips"] for d in now["dues"]] == stop_said
                assert line == f"pay {now['dues'][0]['payer']}->{now['dues'][0]['payee']} 22"
            else:
                assert line in offered, (line, kind, offered[:10])
                assert {"play": "play", "flip": "flip", "go": "decide", "stop": "decide"}[
                    verb
                ] == kind
                if verb in ("play", "flip"):
                    card = line.split()[1]
                    same = [a for a in now["actions"] if a.get("card") == card]
                    choices += len(same) > 1
                    assert card in now["unseen"]
                if kind == "decide":
                    assert now["stop_pays"] is not None
                    stop_said = [lo["pays_chips"] for lo in now["stop_pays"]["losers"]]
                else:
                    assert now["stop_pays"] is None
            r = _post(client, gid, token, line, now["version"])
            assert r.status_code == 201, (line, r.text)
            after = client.get(f"/api/games/{gid}/now").json()
            assert after["version"] == r.json()["version"]
            assert after["recent"][-1]["line"].split()[0] == verb
            if verb != "deal":
                assert after["undo"]["line"].split()[0] == verb
        assert choices >= 1, "the hand has a two-card choice"
        assert client.get(f"/api/games/{gid}/now").json()["waiting"]["kind"] == "deal"


def test_a_line_not_offered_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client)
        gid, token = g["game_id"], g["recorder_token"]
        lines = _lines()
        v = g["version"]
        for line in lines[:2]:  # the deal and the first play
            v = _post(client, gid, token, line, v).json()["version"]
        now = client.get(f"/api/games/{gid}/now").json()
        assert now["waiting"]["kind"] == "flip"
        played = lines[1].split()[1]
        assert f"flip {played}" not in [a["line"] for a in now["actions"]]
        r = _post(client, gid, token, f"flip {played}", v)
        assert r.status_code == 422 and r.json()["rule"], r.text
        assert client.get(f"/api/games/{gid}/now").json() == now


def test_the_pages_are_served_whole(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client)
        gid = g["game_id"]
        for path in ("/", f"/games/{gid}", f"/games/{gid}/record"):
            r = client.get(path)
            assert r.status_code == 200, path
            assert r.headers["content-type"].startswith("text/html")
            # nothing from outside: no address with a scheme in any src or href
            assert not re.search(r"""(src|href)=["']?(https?:)?//""", r.text), path
            assert "card-01G" in r.text  # the card drawings are inside
        assert client.get("/games/no-such-game").status_code == 404
        qr = client.post("/qr", content=f"http://table/games/{gid}/record#token=x")
        assert qr.status_code == 200 and qr.text.startswith("<svg")


def test_the_first_deal_leaves_its_dealer_to_the_table_unless_drawn(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client)
        now = client.get(f"/api/games/{g['game_id']}/now").json()
        assert now["deal"]["choose_dealer"] is True
        assert now["waiting"] == {"kind": "deal", "seat": None, "hand": 1, "options": []}
        deal = _lines()[0].replace("dealer 0", "dealer 1")
        r = _post(client, g["game_id"], g["recorder_token"], deal, now["version"])
        assert r.status_code == 201, r.text
        now = client.get(f"/api/games/{g['game_id']}/now").json()
        assert now["deal"]["choose_dealer"] is False
        assert now["waiting"]["seat"] == 1
        drawn = new_game(client, ruleset={"base": "matgo", "first_dealer": "draw"})
        now = client.get(f"/api/games/{drawn['game_id']}/now").json()
        assert now["deal"]["choose_dealer"] is False
        assert now["around"]["entries"] == ["draw"]


def test_between_hands_now_gives_the_seal_and_the_entries_in_sentences(tmp_path: Path) -> None:
    from gostop_records import log as L
    from gostop_records.integrity.seals import seal_text

    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client)
        gid, token = g["game_id"], g["recorder_token"]
        lines = _lines()
        stop = lines.index("stop")
        for line in lines[: stop + 1]:
            now = client.get(f"/api/games/{gid}/now").json()
            assert now["hand_end"] is None  # no hand has ended yet
            assert _post(client, gid, token, line, now["version"]).status_code == 201

        def head(now: dict[str, Any]) -> Any:
            text = client.get(f"/api/games/{gid}/events").text
            envs = [L.decode_json_line(x) for x in text.splitlines()]
            return next(e for e in envs if e.seq == now["hand_end"]["seq"])

        # the hand ended, its payment due: the seal of the checkpoint at its end
        now = client.get(f"/api/games/{gid}/now").json()
        end = now["hand_end"]
        assert end["hand"] == 1 and end["due"] is True
        cp = head(now)
        assert cp.type == "checkpoint_signed" and seal_text(cp.hash) == end["seal"]
        assert end["uri"] == f"gostop-seal:{gid}:{cp.seq}:{cp.hash}"
        assert now["table"]["proof"]["winner"] == now["dues"][0]["payee"]
        # paid: the seal moves to the checkpoint after the payment, the last event
        assert _post(client, gid, token, "pay", now["version"]).status_code == 201
        now = client.get(f"/api/games/{gid}/now").json()
        assert now["hand_end"]["due"] is False and now["hand_end"]["seq"] == now["version"]
        assert seal_text(head(now).hash) == now["hand_end"]["seal"]
        # the latest entries in the narrator's sentences, with names
        texts = [r["text"] for r in now["recent"]]
        assert any(re.match(r"(Ann|Ben) plays \w+", t) for t in texts), texts
        assert not any(t.startswith(("play ", "flip ")) for t in texts)
