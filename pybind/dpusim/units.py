"""Simulated time is an integer count of picoseconds everywhere in dpusim."""

PS = 1
NS = 1_000
US = 1_000_000
MS = 1_000_000_000
S = 1_000_000_000_000


def ns(x):
    return int(round(x * NS))


def us(x):
    return int(round(x * US))


def ms(x):
    return int(round(x * MS))


def s(x):
    return int(round(x * S))
