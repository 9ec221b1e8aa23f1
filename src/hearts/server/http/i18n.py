"""The message catalogs for the browser (:mod:`hearts.i18n`)::

    GET  /i18n/{lang}.json   the catalog of ``lang`` (``de``) as JSON (its plural rule, its
                             translations, the languages offered): cacheable, with an ETag
    GET  /i18n/auto.json     the catalog of the language the browser asks for
                             (``Accept-Language``; English if none fits): not cached

An unknown language is a 404 (``no_language``). The JSON's form is
:func:`hearts.i18n.catalogs.catalog_json`'s.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.i18n import LOCALE_DIR, languages, negotiate
from hearts.i18n.catalogs import catalog_json
from hearts.server.tables import TableError


@lru_cache(maxsize=64)
def _body(lang: str) -> tuple[bytes, str]:
    body = json.dumps(catalog_json(lang, LOCALE_DIR), ensure_ascii=False, separators=(",", ":")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


async def catalog(request: Request) -> Response:
    lang = request.path_params["lang"]
    offered = languages(LOCALE_DIR)
    if lang == "auto":
        body, _etag = _body(negotiate(request.headers.get("accept-language", ""), offered))
        return Response(body, media_type="application/json",
                        headers={"Cache-Control": "no-cache", "Vary": "Accept-Language"})
    if lang not in offered:
        raise TableError(f"no language {lang!r:.20}; offered: {', '.join(offered)}", 404, "no_language")
    body, etag = _body(lang)
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"ETag": etag})
    return Response(body, media_type="application/json", headers={"Cache-Control": "public, max-age=3600", "ETag": etag})


ROUTES: list[BaseRoute] = [Route("/i18n/{lang}.json", catalog)]
