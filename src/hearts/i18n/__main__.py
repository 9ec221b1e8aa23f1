"""``python -m hearts.i18n``: the catalogs' tooling (needs Babel).

    python -m hearts.i18n --check    # every message in every catalog, none unused; exit 1 if not
    python -m hearts.i18n --update   # the template from the sources, each .po brought up to it
    python -m hearts.i18n --json de  # the JSON the browser reads for German

``--check`` prints each problem on a line, then exactly ``languages=N messages=M missing=K unused=U``.
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hearts.i18n", description="The message catalogs.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--check", action="store_true", help="fail on a message missing from a catalog or unused")
    what.add_argument("--update", action="store_true", help="extract the template and update every catalog")
    what.add_argument("--json", metavar="LANG", help="print the browser's JSON of LANG")
    args = parser.parse_args(argv)
    try:
        from hearts.i18n import catalogs
    except ImportError as e:
        print(f"python -m hearts.i18n needs Babel (pip install 'pyhearts[web]'): {e}", file=sys.stderr)
        return 2
    if args.check:
        report = catalogs.check()
        for line in report.lines():
            print(line)
        return 0 if report.ok else 1
    if args.update:
        template = catalogs.update()
        print(f"template: {sum(1 for m in template if m.id)} messages")
        return 0
    print(json.dumps(catalogs.catalog_json(args.json), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
