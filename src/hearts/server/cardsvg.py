"""Card images drawn by the package, as SVG (served by the web table under ``/cards/QS.svg``).

>>> svg = card_svg("QS")
>>> svg.startswith("<svg") and "♠" in svg and "Q" in svg
True
>>> "pattern" in back_svg()
True
"""

from __future__ import annotations

from functools import lru_cache

from hearts.cards import SUIT_SYMBOLS, Card

WIDTH, HEIGHT = 100, 140
_RANK_SHOWN = {"T": "10"}
_PIPS: dict[int, list[tuple[float, float]]] = {
    2: [(50, 30), (50, 110)],
    3: [(50, 30), (50, 70), (50, 110)],
    4: [(32, 30), (68, 30), (32, 110), (68, 110)],
    5: [(32, 30), (68, 30), (50, 70), (32, 110), (68, 110)],
    6: [(32, 30), (68, 30), (32, 70), (68, 70), (32, 110), (68, 110)],
    7: [(32, 30), (68, 30), (50, 50), (32, 70), (68, 70), (32, 110), (68, 110)],
    8: [(32, 30), (68, 30), (50, 50), (32, 70), (68, 70), (50, 90), (32, 110), (68, 110)],
    9: [(32, 28), (68, 28), (32, 56), (68, 56), (50, 70), (32, 84), (68, 84), (32, 112), (68, 112)],
    10: [(32, 28), (68, 28), (50, 42), (32, 56), (68, 56), (32, 84), (68, 84), (50, 98), (32, 112), (68, 112)],
}


@lru_cache(maxsize=64)
def card_svg(code: str) -> str:
    """The face of one card (``"QS"``, ``"10h"``, ``"Q♠"`` …) as a standalone SVG document."""
    card = Card.parse(code)
    letter = str(card)[0]
    rank = _RANK_SHOWN.get(letter, letter)
    suit = SUIT_SYMBOLS[card.suit]
    color = "#c8102e" if card.suit in (1, 2) else "#1a1a1a"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-label="{rank}{suit}">',
        f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" rx="8" fill="#fff" stroke="#888" stroke-width="1.5"/>',
        f'<g fill="{color}" font-family="Georgia, \'DejaVu Serif\', serif" text-anchor="middle">',
        f'<text x="13" y="22" font-size="18" font-weight="bold">{rank}</text>',
        f'<text x="13" y="40" font-size="17">{suit}</text>',
        f'<g transform="rotate(180 {WIDTH / 2} {HEIGHT / 2})">'
        f'<text x="13" y="22" font-size="18" font-weight="bold">{rank}</text>'
        f'<text x="13" y="40" font-size="17">{suit}</text></g>',
    ]
    value = card.rank + 2
    if value in _PIPS:
        for x, y in _PIPS[value]:
            flip = f' transform="rotate(180 {x} {y})"' if y > 75 else ""
            parts.append(f'<text x="{x}" y="{y + 7}" font-size="22"{flip}>{suit}</text>')
    elif value == 14:
        parts.append(f'<text x="50" y="88" font-size="56">{suit}</text>')
    else:
        parts.append(
            f'<rect x="24" y="26" width="52" height="88" rx="4" fill="none" stroke="{color}" stroke-width="1.2"/>'
            f'<text x="50" y="72" font-size="34" font-weight="bold">{rank}</text>'
            f'<text x="50" y="102" font-size="26">{suit}</text>'
        )
    parts.append("</g></svg>")
    return "".join(parts)


def back_svg() -> str:
    """The back of a card."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}">'
        '<defs><pattern id="p" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="10" height="10" fill="#1d4e89"/><rect width="5" height="10" fill="#2a64a8"/></pattern></defs>'
        f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" rx="8" fill="#fff" stroke="#888"/>'
        f'<rect x="7" y="7" width="{WIDTH - 14}" height="{HEIGHT - 14}" rx="5" fill="url(#p)"/></svg>'
    )
