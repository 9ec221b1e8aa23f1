"""The web table: an ASGI app (Starlette) with an HTTP lobby and JSON over WebSocket for play.

Needs the ``web`` extra (``pip install pyhearts[web]``). Start it with ``hearts serve``.
"""

from __future__ import annotations

__all__ = ["create_app", "serve"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from hearts.server import app

        return getattr(app, name)
    raise AttributeError(name)
