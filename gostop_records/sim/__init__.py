"""Simulated games: the seeded dealer, the bots and self-play.

- :mod:`.dealer`: SplitMix64 and a Fisher-Yates shuffle (the same deck on every machine),
  the deal of a shuffled deck;
- :mod:`.bots`: ``random`` and ``greedy``, which choose among the legal inputs;
- :mod:`.strong`: ``strong``, which searches sampled deals of the hidden cards; :mod:`.view`
  is what a seat may know of a hand;
- :mod:`.roster`: every bot by name;
- :mod:`.selfplay`: complete, strictly valid game logs from a seed (``gostop simulate``);
- :mod:`.summary`: what a run produced (games, hands, outcomes, chips per hand, per bot).

Scripted games (an explicit deal and inputs) are a record format: :mod:`gostop_records.script`.
"""
