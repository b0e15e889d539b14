"""Seed lists as users write them: "7", "1-1000", "1,5,9", "1-10,42" (ranges inclusive)."""

MAX_SEEDS = 10_000_000


def parse_seeds(text):
    """The seeds `text` names, in order, each once; ValueError naming the bad part."""
    seeds, seen = [], set()
    for part in str(text).split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        try:
            first = int(lo)
            last = int(hi) if sep else first
        except ValueError:
            raise ValueError(f"seed list {text!r}: '{part}' is not a seed or a range A-B") from None
        if first < 0 or last < first:
            raise ValueError(f"seed list {text!r}: '{part}' is not a range of non-negative seeds, low to high")
        if len(seeds) + last - first + 1 > MAX_SEEDS:
            raise ValueError(f"seed list {text!r} names more than {MAX_SEEDS} seeds")
        for s in range(first, last + 1):
            if s not in seen:
                seen.add(s)
                seeds.append(s)
    return seeds
