"""The exceptions of the package: every refusal is a precise ``ValueError`` subclass.

>>> issubclass(IllegalPlay, ValueError)
True
"""

from __future__ import annotations


class HeartsError(ValueError):
    """Base class of every error this package raises for bad input."""


class CardParseError(HeartsError):
    """Text that is not a card (or a list of cards); the message quotes the input."""


class RulesError(HeartsError):
    """An unknown rule option or an impossible value; the message names it and what is allowed."""


class IllegalAction(HeartsError):
    """An action the rules refuse. Nothing has changed when it is raised.

    Attributes name the rule (an R-number of docs/rules.md), the seat, the card(s) and the reason.
    """

    def __init__(self, reason: str, *, rule: str, seat: int | None = None, cards: str = "") -> None:
        self.reason = reason
        self.rule = rule
        self.seat = seat
        self.cards = cards
        who = f"seat {seat}" if seat is not None else "the player"
        what = f" {cards}" if cards else ""
        super().__init__(f"{rule}: {who} may not{what}: {reason}")


class IllegalPlay(IllegalAction):
    """A card that may not be played now (wrong turn, not held, or against R3)."""


class IllegalPass(IllegalAction):
    """A pass that is refused (wrong count, cards not held, passing twice, no pass this round)."""


class IllegalMoonChoice(IllegalAction):
    """A moon choice (R4.4 ``shooter_chooses``) that is not asked of this seat now."""


class ActionError(HeartsError):
    """Something that is not an action: a malformed :class:`~hearts.actions.Pass`, ``Play`` or
    ``Moon``, or JSON that does not decode to one. The message quotes the input."""


class RecordError(HeartsError):
    """A malformed or forged record; the message names the event that is wrong."""


class RecordFileError(RecordError):
    """A record file that cannot be read at all (missing, a folder, not readable): a usage
    error of the command that was given it, not a record that is wrong."""


class BotError(HeartsError):
    """A bot spec that makes no bot — an unknown name, a module that does not import, an entry
    point that does not load, an option the bot does not take — or a bot that cannot play the
    rules; the message names the spec."""
