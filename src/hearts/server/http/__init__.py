"""The HTTP layer of the web table: one module per resource, each exporting its ``ROUTES``
(Starlette routes of plain ``async def`` handlers) that :func:`hearts.server.app.create_app`
mounts. A handler reads what it shares with the others — the manager, the store, the limits,
the metrics, the address guard, the review runner, the public URL — from
``request.app.state.services`` through :func:`.services.services` (a typed
:class:`~.services.Services`, set when the app starts).

- :mod:`.pages`: the client's page, card images, ``/api/config`` and the static files;
- :mod:`.tables`: ``/api/tables`` — create, list, show, join, claim, invite, record, replay;
- :mod:`.players`: ``/api/players``, ``/api/me``, ``/api/me/games``, ``/api/leaderboard``;
- :mod:`.passkeys`: ``/api/passkeys``, ``/api/session`` (passkeys, sign-in sessions, sign out
  everywhere) and ``/api/tables/{id}/ticket`` (a profile's seat on another device);
- :mod:`.reviews`: ``/api/tables/{id}/review``;
- :mod:`.ops`: ``/healthz`` and ``/metrics``;
- :mod:`.play`: the WebSocket ``/ws/{id}``;
- :mod:`.errors`: the exception handlers (every refusal as ``{"error": "..."}``);
- :mod:`.headers`: the security headers on every response;
- :mod:`.common`: JSON answers and bodies, the client's address, public URLs;
- :mod:`.services`: :class:`~.services.Services` and what the app does at start and stop.
"""
