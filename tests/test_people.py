"""Players as people: ids apart from names, renames and merges as events of the store's
people record (chained, verified), ``/players`` counting a person across games and names,
``/play`` giving each browser its own person, and old logs without ids still replayed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from service_helpers import KEY, auth, hand_lines, service_client
from store_support import gostop
from test_service_api import record_lines
from test_web_play_routes import play_out

from gostop_records import events as E
from gostop_records import log as L
from gostop_records import people as people_record
from gostop_records.people import People, PeopleError, derived_person_id
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store
from gostop_records.store.people import append_person_event, persons
from gostop_records.web.play_routes import PERSON_COOKIE

# --- the fold and the ids -------------------------------------------------------------------


def _env(seq: int, ev: Any) -> E.Envelope:
    return L.envelope("people", seq, None, ev, by="t", at="2026-01-01T00:00:00.000Z")


def test_the_people_record_folds_and_refuses_what_does_not_follow() -> None:
    people = People(
        [
            _env(1, E.PersonRenamed(person="a", name=" Ann Lee ")),
            _env(2, E.PersonsMerged(person="b", into="a")),
            _env(3, E.PersonsMerged(person="a", into="c")),
        ]
    )
    assert people.canonical("b") == "c" and people.canonical("a") == "c"
    assert people.persons["a"].name == "Ann Lee"
    for ev, why in [
        (E.PersonRenamed(person="b", name="B"), "b was merged into a: rename a"),
        (E.PersonsMerged(person="d", into="d"), "cannot be merged into itself"),
        (E.PersonsMerged(person="b", into="d"), "b was merged into a already"),
        (E.PersonsMerged(person="d", into="a"), "a was merged into c already: merge into c"),
        (E.PersonRenamed(person="c", name="  "), "the name is empty"),
        (E.PersonRenamed(person="c", name="x" * 81), "give at most 80"),
        (E.PersonRenamed(person="no spaces", name="X"), "not a person id"),
        (E.NoteAdded(text="hi"), "renames, merges and forgettings only"),
    ]:
        with pytest.raises(PeopleError, match=why):
            people.check(ev)


def test_a_log_without_player_ids_replays_with_ids_made_from_the_names() -> None:
    """An old producer's ``game_started`` without ids: the line keeps its hash, and each
    seat is the person the recorder always made of the name."""
    game = next(iter(simulate(PRESETS["matgo"], 2, 1, 1, 5)))
    lines = []
    prev = L.GENESIS
    for env in game:
        d = json.loads(L.encode_json(env))
        if d["event"]["type"] == "game_started":
            d["event"]["players"] = [{"name": "Ann Lee"}, {"name": "Ben"}]
        body = {k: v for k, v in d.items() if k not in ("prev", "hash")}
        canon = msgspec.json.encode(body, order="sorted")
        d["prev"], d["hash"] = prev, L.digest_after(prev, canon)
        prev = d["hash"]
        lines.append(json.dumps(d))
    envs = [L.decode_json_line(line) for line in lines]
    assert L.verify(envs).ok  # the stored form is what was hashed
    result = project(envs)
    assert result.ok, result.issues
    assert [p.id for p in result.game.players] == ["ann-lee", "ben"]
    assert derived_person_id("Ann Lee") == "ann-lee"
    assert derived_person_id("김 철수") != derived_person_id("  ")  # no letters a-z: hex


# --- the store ------------------------------------------------------------------------------


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "p.duckdb") as s:
        logs = simulate(PRESETS["matgo"], 2, 3, 2, 7)
        assert s.import_envelopes([e for g in logs for e in g]).ok
        yield s


def _stats(s: Store) -> dict[str, tuple[Any, ...]]:
    rows = s.conn.execute(
        "SELECT player_id, player_name, games, hands, names, ids FROM v_player_stats"
    ).fetchall()
    return {r[0]: r[1:] for r in rows}


def test_renames_and_merges_are_chained_events_and_the_views_count_a_person(
    store: Store,
) -> None:
    before = _stats(store)
    assert set(before) == {"p1", "p2"} and before["p1"][1] == 3
    env = append_person_event(store, E.PersonRenamed(person="p1", name="Ann"), by="club")
    assert env.seq == 1 and env.game_id == "people" and env.prev == L.GENESIS
    merged = append_person_event(store, E.PersonsMerged(person="p2", into="p1"), by="club")
    assert merged.prev == env.hash
    after = _stats(store)
    assert list(after) == ["p1"]
    name, games, hands, names, ids = after["p1"]
    assert (name, games, hands) == ("Ann", 3, before["p1"][2] + before["p2"][2])
    assert names == ["Player 1", "Player 2"] and ids == ["p1", "p2"]
    people = {r["person_id"]: r for r in persons(store.conn)}
    assert people["p2"]["counts_for"] == "p1" and people["p1"]["name"] == "Ann"
    # the games are as recorded: the rename and the merge edited none of them
    assert store.conn.execute("SELECT DISTINCT player_ids FROM games").fetchall() == [
        (["p1", "p2"],)
    ]
    heads = store.conn.execute(
        "SELECT seq, head FROM heads WHERE kind = 'people' ORDER BY entry"
    ).fetchall()
    assert heads == [(1, env.hash), (2, merged.hash)]
    report = store.verify()
    assert report.ok and report.person_events == 2, report.problems()


def test_an_unknown_person_or_a_refused_event_writes_nothing(store: Store) -> None:
    with pytest.raises(PeopleError, match="no game seated a person 'zed'"):
        append_person_event(store, E.PersonRenamed(person="zed", name="Zed"), by="t")
    append_person_event(store, E.PersonsMerged(person="p2", into="p1"), by="t")
    with pytest.raises(PeopleError, match="p2 was merged into p1: rename p1"):
        append_person_event(store, E.PersonRenamed(person="p2", name="B"), by="t")
    assert store.conn.execute("SELECT count(*) FROM person_events").fetchall() == [(1,)]


def test_verify_names_a_changed_or_cut_people_record(store: Store) -> None:
    append_person_event(store, E.PersonRenamed(person="p1", name="Ann"), by="t")
    append_person_event(store, E.PersonRenamed(person="p2", name="Ben"), by="t")
    store.conn.execute(
        "UPDATE person_events SET payload = replace(payload::VARCHAR, '\"p2\"', '\"p1\"') "
        "WHERE seq = 2"
    )
    problems = store.verify().people
    assert any("chain breaks" in p for p in problems), problems
    assert any("table people differs" in p for p in problems), problems
    store.conn.execute("DELETE FROM person_events WHERE seq = 2")
    problems = store.verify().people
    assert any("recorded 2 event(s)" in p and "holds 1" in p for p in problems), problems


def test_the_command_line_lists_renames_and_merges(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    with Store(db) as s:
        s.import_envelopes([e for g in simulate(PRESETS["matgo"], 2, 1, 1, 3) for e in g])
    done = gostop("people", "rename", "p1", "Ann Lee", "--db", str(db))
    assert done.returncode == 0 and "p1 is shown as 'Ann Lee'" in done.stdout, done.stderr
    done = gostop("people", "merge", "p2", "p2", "--db", str(db))
    assert done.returncode == 1 and "cannot be merged into itself" in done.stderr
    listed = json.loads(gostop("people", "list", "--json", "--db", str(db)).stdout)
    assert {r["person_id"]: r["name"] for r in listed} == {"p1": "Ann Lee", "p2": "Player 2"}
    done = gostop("db", "verify", "--db", str(db))
    assert done.returncode == 0 and "the people record's 1 event(s)" in done.stdout


# --- over HTTP ------------------------------------------------------------------------------


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[Any]:
    with service_client(tmp_path / "s.duckdb") as c:
        yield c


def _game(client: Any, players: list[str], gid: str, seed: int = 7) -> None:
    r = client.post(
        "/api/games",
        json={"players": players, "ruleset": "matgo", "game_id": gid},
        headers=auth(KEY),
    )
    assert r.status_code == 201, r.text
    _, lines = hand_lines("matgo", 2, seed)
    record_lines(client, r.json(), lines)


def test_a_known_person_is_seated_again_renamed_and_merged_over_http(client: Any) -> None:
    _game(client, ["Ann", "Ben"], "night-1")
    people = {p["name"]: p for p in client.get("/api/people").json()}
    ann = people["Ann"]["person_id"]
    assert ann.startswith("p_")  # minted: not the name
    # the recorder picks Ann from the known players; a second "Ben" is a new person
    _game(client, [f"Annie={ann}", "Ben"], "night-2")
    people = client.get("/api/people").json()
    bens = [p["person_id"] for p in people if p["name"] == "Ben"]
    assert len(bens) == 2 and len({p["person_id"] for p in people}) == 3
    page = client.get(f"/players/{ann}")
    assert page.status_code == 200
    assert 'data-figure="games">2<' in page.text and "Ann, Annie" in page.text
    # a rename and a merge need the server key, and say why when refused
    body = {"name": "Ann Lee"}
    assert client.post(f"/api/people/{ann}/rename", json=body).status_code == 401
    assert client.post(f"/api/people/{ann}/rename", json=body, headers=auth("x")).status_code == 403
    r = client.post(f"/api/people/{ann}/rename", json=body, headers=auth(KEY))
    assert r.status_code == 201 and r.json()["seq"] == 1, r.text
    r = client.post(
        "/api/people/merge", json={"person": bens[1], "into": bens[1]}, headers=auth(KEY)
    )
    assert r.status_code == 400 and "cannot be merged into itself" in r.json()["reason"]
    r = client.post("/api/people/merge", json={"person": "nobody", "into": ann}, headers=auth(KEY))
    assert r.status_code == 400 and "no game seated a person 'nobody'" in r.json()["reason"]
    r = client.post("/api/people/merge", json={"persons": 1}, headers=auth(KEY))
    assert r.status_code == 400
    r = client.post(
        "/api/people/merge", json={"person": bens[1], "into": bens[0]}, headers=auth(KEY)
    )
    assert r.status_code == 201, r.text
    listing = client.get("/players").text
    assert "Ann Lee" in listing and listing.count('data-player="') == 2
    ben = client.get(f"/players/{bens[1]}")  # a merged id shows the person it counts for
    assert ben.status_code == 200 and f'data-player="{bens[0]}"' in ben.text
    assert 'data-figure="games">2<' in ben.text
    hands = client.get("/api/games", params={"player": bens[0]}).json()
    assert hands["total"] == 2  # the games of both ids


def test_each_browser_on_play_is_its_own_person(tmp_path: Path) -> None:
    ids = []
    for _ in range(2):  # two browsers: two clients, two cookie jars
        with service_client(tmp_path / "s.duckdb") as c:
            for _hand in range(2):  # one browser, two hands: one person
                r = c.post("/api/play", json={"bot": "greedy", "seed": 11})
                assert r.status_code == 201, r.text
                play_out(c, r.json())
            ids.append(c.cookies.get(PERSON_COOKIE))
            stats = {p["person_id"]: p for p in c.get("/api/people").json()}
    assert ids[0] and ids[1] and ids[0] != ids[1]
    assert stats[ids[0]]["games"] == 2 and stats[ids[1]]["games"] == 2
    assert stats[ids[0]]["name"] == "You" and stats["computer"]["games"] == 4
    # a cookie that is not a minted id is not taken: the browser gets a person of its own
    with service_client(tmp_path / "s.duckdb") as c:
        r = c.post(
            "/api/play",
            json={"bot": "greedy", "seed": 11},
            headers={"Cookie": f"{PERSON_COOKIE}=computer"},
        )
        assert r.status_code == 201
        assert r.cookies.get(PERSON_COOKIE) not in (None, "computer")


def test_every_people_event_class_is_checked_and_folded() -> None:
    kinds = {c for c in E.EVENT_CLASSES if issubclass(c, E.PeopleEvent)}
    assert set(people_record._CHECKS) == kinds
    assert set(people_record._APPLY) == kinds
