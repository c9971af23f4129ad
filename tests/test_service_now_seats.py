"""What ``GET /api/games/{id}/now`` tells the web recorder about the table around the hand:
chips and the draw while the rules wait for them, who deals and how many sit out, the seats
that may sell and the brights each may hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service_helpers import KEY, auth, service_client

NAMES = ["Ann", "Ben", "Cho", "Dan"]
RULES = {
    "base": "gostop3",
    "sit_out": "choice",
    "gwang_price": 5,
    "chip_limit": "holdings",
    "first_dealer": "draw",
}


def test_now_offers_the_table_around_the_hand_step_by_step(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as c:
        r = c.post("/api/games", json={"players": NAMES, "ruleset": RULES}, headers=auth(KEY))
        assert r.status_code == 201, r.text
        game = r.json()
        gid, token = game["game_id"], auth(game["recorder_token"])

        def now() -> dict[str, Any]:
            return c.get(f"/api/games/{gid}/now").json()  # type: ignore[no-any-return]

        def enter(line: str, status: int = 201) -> dict[str, Any]:
            body = {"entry": line, "expected_version": now()["version"]}
            r = c.post(f"/api/games/{gid}/entries", json=body, headers=token)
            assert r.status_code == status, r.text
            return r.json()  # type: ignore[no-any-return]

        first = now()
        assert first["around"]["entries"] == ["chips", "draw"]
        assert first["around"]["draw_seats"] == [0, 1, 2, 3]
        assert first["rules"]["sit_out"] == "choice" and first["rules"]["gwang_price"] == 5
        assert first["deal"]["sit_out"] == 1
        refused = enter("chips 50 50 50 -5", 400)
        assert "'-5': a number of chips is 0 or more" in refused["reason"]
        enter("chips 50 50 50 50")
        # a tie by night (two Marches): the tied seats draw again, and only they
        enter("draw night 0 03G 1 03R 2 11J1 3 08A")
        assert now()["around"]["draw_seats"] == [0, 1]
        enter("draw night 0 05A 1 04A")
        after = now()
        assert after["around"]["entries"] == []
        assert after["deal"]["dealer"] == 1 and after["waiting"]["kind"] == "deal"
        refused = enter("deal layout 01J1 02J1 04J1 05J1 06J1 07J1 out 1", 422)
        assert "the dealer plays" in refused["reason"]
        enter("deal layout 01J1 02J1 04J1 05J1 06J1 11G out 0")
        dealt = now()
        assert dealt["around"]["entries"] == ["sell"]
        (seller,) = dealt["around"]["sellers"]
        # the stock is unknown: the brights not seen in the play (11G lies on the layout)
        assert seller == {"seat": 0, "brights": ["01G", "03G", "08G", "12G"]}
        refused = enter("sell 0 11G", 422)
        assert refused["rule"] == "gwang_pali" and "11G" in refused["reason"]
        enter("sell 0 12G 03G")
        table = now()["table"]
        ann = table["hand"]["seats"][0]
        assert ann["plays"] is False
        assert ann["sold"] == {"cards": ["12G", "03G"], "points": 10, "chips": 10}
        assert table["holdings"] == [80, 40, 40, 40]
        assert now()["around"]["sellers"] == []
