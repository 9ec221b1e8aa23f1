"""What follows a table's command: :class:`Effects`, the small value a part returns with its
answer when it handles a command in the table's turn, and which :meth:`Table.process
<hearts.server.tables.table.Table.process>` carries out in one place — so a part says what
must follow (the clocks started again, an event to the clients, who is there told, the bots
woken) instead of calling the other parts itself.

>>> Effects(tell=True) | Effects(broadcast="table")
Effects(clocks=False, broadcast='table', tell=True, kick=False)
>>> NOTHING | Effects(kick=True) == Effects(kick=True)
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Effects:
    """What the table does after a command, in this order: ``clocks``, ``broadcast``,
    ``tell``, ``kick`` (:meth:`Table.perform <hearts.server.tables.table.Table.perform>`)."""

    clocks: bool = False
    """The clocks start again for the seats to act (:meth:`Clocks.start
    <hearts.server.tables.clocks.Clocks.start>`)."""
    broadcast: str | None = None
    """An event of what changed to every client, with this reason (``None``: none;
    :meth:`StateMessages.broadcast <hearts.server.tables.messages.StateMessages.broadcast>`)."""
    tell: bool = False
    """Who is at the table, told to every client and to the other processes (:meth:`Presence.tell
    <hearts.server.tables.presence.Presence.tell>`)."""
    kick: bool = False
    """The bots (and the stand-ins of away seats) act if it is their turn (:meth:`BotTurns.kick
    <hearts.server.tables.bots.BotTurns.kick>`)."""

    def __or__(self, other: Effects) -> Effects:
        """Both effects (the first one's broadcast reason, if both have one)."""
        return Effects(self.clocks or other.clocks, self.broadcast or other.broadcast, self.tell or other.tell,
                       self.kick or other.kick)


NOTHING = Effects()
"""No effect."""
