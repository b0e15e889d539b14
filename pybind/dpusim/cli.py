"""The ``dpusim`` command line (run, demo)."""
import sys


def main(argv):
    print("dpusim: no commands yet", file=sys.stderr)
    return 2
