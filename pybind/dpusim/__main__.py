"""Command line: ``python3 -m dpusim run|demo ...`` (normally through ./dpusim)."""
import sys

from dpusim.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
