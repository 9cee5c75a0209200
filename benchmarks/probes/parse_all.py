"""Child process: the naive scan, `ast.parse` of every module under ROOT (the scan benchmark's baseline)."""

import ast
import json
import os
import sys


def main() -> None:
    root = sys.argv[1]
    count = size = 0
    for current, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(current, name)
                with open(path, "rb") as handle:
                    data = handle.read()
                ast.parse(data, filename=path)
                count += 1
                size += len(data)
    print(json.dumps({"modules": count, "bytes": size}))


main()
