"""platter's library: experiment specs, cells, reports, gates, the build
cache and kernel specs.  scripts/platter is its command line; scripts/ is
on sys.path as the directory of whichever script runs (through symlinks:
Python resolves the script's path), so `from platterlib import cli` works
from the checkout and from an installed prefix alike."""
