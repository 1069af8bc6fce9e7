#!/usr/bin/env python3
"""The layers of src/ include only downwards: common <- runtime <- core <- kernels <- ops <- framework.

Exit 1, listing the offending includes, when a file includes a header of a layer above its own
(a ctest runs this)."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "src"
ORDER = ["common", "runtime", "core", "kernels", "ops", "framework"]


def main():
    bad = []
    for path in sorted(ROOT.rglob("*")):
        if path.suffix not in (".h", ".cpp", ".inc") or not path.is_file():
            continue
        layer = path.relative_to(ROOT).parts[0]
        if layer not in ORDER:
            continue
        for no, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"([a-z_]+)/', line)
            # framework sees only the public API (include/): no header of any src/ layer.
            if m and m.group(1) in ORDER and (ORDER.index(m.group(1)) > ORDER.index(layer) or
                                              (layer == "framework" and m.group(1) != "framework")):
                bad.append(f"{path.relative_to(ROOT.parent)}:{no}: {layer} includes {m.group(1)}: {line.strip()}")
    if bad:
        print("includes going up the layers (common <- runtime <- core <- kernels <- ops <- framework):", *bad, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
