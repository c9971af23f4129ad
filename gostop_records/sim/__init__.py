"""Simulated and scripted games: the seeded dealer, the bots, self-play and scripts.

- :mod:`.dealer`: SplitMix64 and a Fisher-Yates shuffle (the same deck on every machine),
  the deal of a shuffled deck;
- :mod:`.bots`: ``random`` and ``greedy``, which choose among the legal inputs;
- :mod:`.selfplay`: complete, strictly valid game logs from a seed (``gostop simulate``);
- :mod:`.summary`: what a run produced (games, hands, outcomes, chips per hand, per bot);
- :mod:`.scripted`: a log from an explicit deal and inputs, for samples and tests.
"""
