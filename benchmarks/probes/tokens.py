"""Child process: count tokens of each string of a JSON list on stdin with a real tokenizer.

Prints {"tokenizer": ..., "counts": [...]} ; exits 3 when no tokenizer is installed.
Uses bpe-openai (tiktoken-compatible, its tables embedded: works offline), o200k_base.
"""

import json
import sys


def main() -> None:
    try:
        import bpe_openai
    except ImportError:
        sys.exit(3)
    encoding = bpe_openai.get_encoding("o200k_base")
    texts = json.load(sys.stdin)
    version = getattr(bpe_openai, "__version__", "?")
    print(
        json.dumps(
            {"tokenizer": f"bpe-openai {version}, o200k_base", "counts": [len(encoding.encode(t)) for t in texts]}
        )
    )


main()
