"""What shows that a record was not changed: the chain, heads, seals, signatures.

One word per idea, used the same way in every module, message and page:

- **chain**: the events of one game, each carrying the hash of the event before it
  (``prev``; :data:`~.chain.GENESIS` for the first) and its own
  (``hash = sha256(prev + canonical bytes)``). An event changed, removed, inserted or moved
  breaks the chain at its seq. Filling ``prev`` and ``hash`` as an event is appended is
  *chaining* it (:class:`~.chain.Chain` and :func:`~.chain.seal` do it: to seal an event,
  in their names, is to chain it, not to make a seal). :mod:`.chain`.
- **head**: the hash of a game's latest event, or "the head at seq N": the hash of its event
  there. Through the chain a head stands for every event up to it.
- **seal**: a head short enough to read aloud or write on a score sheet: its first 50 bits in
  Crockford base32 (``K7Q2-M9XA-3F``), or the whole head in a QR code. A record *holds* a
  seal when one of its events still has that hash. :mod:`.seals`.
- **signature**: an Ed25519 signature of a message that starts with a domain tag and names
  the game; a **key** is named by its **fingerprint** (``ed25519:K7Q2-M9XA-3F``).
  :mod:`.signing`.
- **checkpoint**: the recorder's signature of a head (a ``checkpoint_signed`` event), at the
  end of every hand and again once its payments are in, and at the night's close (and again
  once its settlement is paid); a valid checkpoint
  *covers* every event up to its head (``vouched_until``, in reports and their JSON, is the
  latest seq a valid checkpoint covers).
- **countersignature**: a player's signature, with their own key, of a checkpoint's head
  (a ``result_countersigned`` event). :mod:`.checkpoints` makes both and checks every one.

The store keeps a chain of its own, of game heads (``store/heads.py``: an entry per write,
holding a game's count of events and its head); the hash of its last entry is its **tip**,
and the seal of the tip is the **store seal**. It stays in ``store/`` because it is SQL.

Not these ideas, though they share a word: a **sealed name** (:mod:`gostop_records.names`)
is a person's name encrypted under their own key, so that it can be forgotten while every
chain, seal and signature still verifies; it is about privacy, and lives outside this
package.

Whoever holds a file can recompute its chain: the chain shows that nothing was changed in
place, the seal written down and the signatures show that nothing was recomputed.
"""
