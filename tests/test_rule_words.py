"""The rules for players (issue 42, item 2): the rule book read by ``hearts.book`` (one source,
docs/rules.md, every R-number kept, each paragraph a message of the catalogs) and "why can't I
play this?": every kind of refused card (R1.3, R1.4, R2.1, R3.1–R3.7, R4) in a player's words,
citing its rule, in every language (``hearts.text.why_not``).
"""

from __future__ import annotations

import io
import random
import re

import pytest
from helpers import moon_deal, play_moon_round
from test_rulebook import book_text as repository_book
from test_rulebook import sections

from hearts import Card, CardSet, Game, Rules
from hearts.actions import Pass, Play
from hearts.book import book, book_text, extract, is_words, markdown, messages, parse, table_options
from hearts.errors import IllegalAction
from hearts.i18n import languages, translation, use
from hearts.round import Phase
from hearts.text import WHY_NOT, why_not, why_not_kind

RULE = re.compile(r"\((R\d(?:\.\d)?)\)\.$")


def test_the_book_is_the_repositorys_rule_book_every_rule_kept() -> None:
    """The package's book is docs/rules.md; every rule heading (R1 to R7) is a rule of the page,
    in order, and no paragraph is lost: each line of a rule's text is in one of its blocks."""
    assert book_text() == repository_book()
    numbers = [r.number for r in book()]
    assert numbers == list(sections(repository_book()))
    for r in book():
        body = sections(repository_book())[r.number].split("\n", 1)[1]
        words = " ".join(" ".join(b.text for b in r.blocks if b.kind != "table").split())
        cells = " ".join(" ".join(c for row in b.rows for c in row) for b in r.blocks if b.kind == "table")
        for line in body.splitlines():
            line = line.strip().removeprefix("- ")
            if line and not line.startswith("|"):
                assert line in words, (r.number, line)
            elif line.startswith("|") and not set(line) <= set("|-: "):
                assert all(c.strip() in cells for c in line.strip("|").split("|")), (r.number, line)


def test_the_parser_reads_paragraphs_items_and_tables() -> None:
    text = "# Title\n\npreface\n\n## R9. Nine\n\nOne\nline.\n\n- a\n  b\n- c\n\n| X | Y |\n|---|---|\n| 1 | two words |\n\n### R9.1 Sub\n\nEnd."
    rules = parse(text)
    assert [(r.number, r.title, r.level) for r in rules] == [("R9", "Nine", 2), ("R9.1", "Sub", 3)]
    assert [(b.kind, b.text) for b in rules[0].blocks[:3]] == [("p", "One line."), ("li", "a b"), ("li", "c")]
    assert rules[0].blocks[3].rows == (("X", "Y"), ("1", "two words"))
    assert [m for _line, m, _n in messages(text)] == ["Nine", "One line.", "a b", "c", "two words", "Sub", "End."]
    assert not is_words("1") and not is_words("`moon`") and is_words("none")


def test_the_extractor_gives_babel_each_message_with_its_rule() -> None:
    found = list(extract(io.BytesIO(book_text().encode()), None, None, None))
    assert len(found) == len(list(messages(book_text())))
    line, func, _message, notes = next(f for f in found if f[2] == "Following suit")
    assert func == "_" and "R3.2" in notes[0] and repository_book().splitlines()[line - 1].endswith("Following suit")


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_every_paragraph_of_the_book_is_translated_with_its_code_and_rule_numbers(lang: str) -> None:
    pytest.importorskip("babel")
    t = translation(lang)
    for _line, message, number in messages(book_text()):
        words = t.gettext(message)
        assert words != message or len(message.split()) < 4, (lang, number, message)  # ("Option `moon`:" is German too)
        assert sorted(re.findall(r"`[^`]*`", words)) == sorted(re.findall(r"`[^`]*`", message)), (lang, message)
        assert sorted(re.findall(r"R\d(?:\.\d)?", words)) == sorted(re.findall(r"R\d(?:\.\d)?", message)), (lang, message)


def test_the_tables_options_beside_their_rules_in_german() -> None:
    pytest.importorskip("babel")
    rules = Rules(moon="shooter_chooses", jack_of_diamonds=-10, pass_cycle=("left", "hold"))
    lines = {o.name: o for o in table_options(rules)}
    assert lines["pass_cycle"].value == ("left", "hold") and lines["jack_of_diamonds"].value == ("-10",)
    assert [o.rule for o in table_options(rules)][:3] == ["R1.1", "R1.2", "R2.1"]  # the book's order
    assert table_options(Rules(players=3))[3].value == ("left", "right", "hold")  # R2.2: the cycle in force
    use("de")
    try:
        text = markdown(rules)
    finally:
        use("en")
    assert text.startswith("## Die Regeln dieses Tisches")
    assert "- **R4.4** Den Mond schießen: **Schütze wählt**" in text
    assert "### R3.2 Farbe bedienen" in text
    assert "> An diesem Tisch: Den Mond schießen ist Schütze wählt." in text
    assert "Following suit" not in text and "At this table" not in text


def _attempt(game: Game, action: Play | Pass, found: dict[str, IllegalAction]) -> None:
    with pytest.raises(IllegalAction) as caught:
        game.apply(action)
    kind = why_not_kind(caught.value.rule, caught.value.reason, caught.value.cards.removeprefix("play "))
    if isinstance(action, Play):
        assert kind is not None, caught.value  # every refused card has words
        found.setdefault(kind, caught.value)
    else:
        assert kind is None and why_not(caught.value) is None  # a pass is not a card's refusal


def refused_cards() -> dict[str, IllegalAction]:
    """A refusal of each kind, from random games under several rules and from made-up deals."""
    found: dict[str, IllegalAction] = {}
    game = Game(Rules(), seed=1)
    _attempt(game, Play(0, next(iter(game.round.hand(0)))), found)  # the passing phase (R3)
    _attempt(game, Pass(0, CardSet(list(game.round.hand(0))[:2])), found)
    rng = random.Random(5)
    for seed in range(30):
        rules = [Rules(pass_count=0), Rules(pass_count=0, queen_lead="after_break"), Rules(pass_count=0, first_lead="any_club")][seed % 3]
        game = Game(rules, seed=seed)
        while not game.round.is_over:
            r, seat = game.round, game.actors()[0]
            _attempt(game, Play((seat + 1) % 4, Card.parse("2C")), found)  # R1.4: another seat's turn
            _attempt(game, Play(seat, next(c for c in CardSet.full() if c not in r.hand(seat))), found)  # R1.3
            for card in r.hand(seat) - r.legal_plays():
                _attempt(game, Play(seat, card), found)
            game.apply(rng.choice(list(game.legal_actions(seat))))
    # R3.7: seat 0 wins the first trick with the A♣ and holds only hearts and the Q♠.
    hand0 = CardSet.parse("AC QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH")
    rest = [c for c in CardSet.full() if c not in hand0]
    clubs, others = [c for c in rest if c.suit == 0], [c for c in rest if c.suit != 0]
    hands = [hand0.mask, 0, 0, 0]
    for i, c in enumerate(clubs + others):
        hands[1 + i % 3] |= 1 << c
    game = Game(Rules(pass_count=0), deals=[hands])
    while game.round.to_move != 0 or game.round.tricks_played == 0:
        seat = game.actors()[0]
        game.apply(Play(seat, max(game.round.legal_plays()) if seat == 0 else min(game.round.legal_plays())))
    _attempt(game, Play(0, Card.parse("2H")), found)
    # R4: the moon's choice is being made; no card is played now.
    game = Game(Rules(moon="shooter_chooses", pass_count=0), deals=[moon_deal(4, 0)])
    play_moon_round(game, 0)
    assert game.round.phase is Phase.MOON_CHOICE
    _attempt(game, Play(0, Card.parse("2C")), found)
    return found


def test_every_kind_of_refused_card_has_its_rule_in_words_in_every_language() -> None:
    """R1.3, R1.4, R2.1, R3.1–R3.7, R4: the engine's refusal of each card kind maps to words that
    cite the rule it breaks (the same R-number), translated in every catalog."""
    pytest.importorskip("babel")
    found = refused_cards()
    assert set(found) == set(WHY_NOT), set(WHY_NOT) - set(found)
    for kind, error in found.items():
        words = why_not(error)
        assert words == WHY_NOT[kind]
        assert why_not(str(error)) == words  # from the text the server's error carries, too
        m = RULE.search(words)
        assert m and (m.group(1) == error.rule or (kind == "passing" and error.rule == "R3") or kind == "no_play"), (kind, error)
        for lang in languages():
            said = translation(lang).gettext(words)
            assert (said != words) == (lang != "en") and RULE.search(said).group(1) == m.group(1), (lang, said)  # type: ignore[union-attr]


def test_a_refusal_that_is_not_a_cards_has_no_words() -> None:
    assert why_not("R2.1: seat 0 may not pass 2C 3C: 2 cards are passed, not 3") is None
    assert why_not("not an illegal action at all") is None
    assert why_not_kind("R3.2", "something new") is None
