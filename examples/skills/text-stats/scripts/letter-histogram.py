"""Tool `letter_histogram`: reads the arguments (JSON) on stdin, writes the result (JSON) on stdout."""
import json
import sys
from collections import Counter

args = json.load(sys.stdin)
counts = Counter(ch for ch in str(args.get("text", "")).lower() if ch.isalpha())
json.dump({"letters": dict(sorted(counts.items())), "total": sum(counts.values())}, sys.stdout)
