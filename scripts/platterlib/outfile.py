"""Writing an output file: beside its name, then renamed onto it.  A rename
replaces a symlink rather than writing through it (issue 39: `platter
report` on a downloaded report folder whose report.md was a link wrote
outside the folder), and a write that fails half way (a full disk)
leaves the earlier file whole.  report.json keeps its one-space indent
while it stays small enough to read; a larger one is written compact, so
that re-rendering a report never makes it too large to read back."""
import json
import os
import tempfile

# an indented report.json past this size is written compact instead
INDENT_MAX_BYTES = 8 << 20


def write_bytes(path, data):
    """path's contents become data, all at once."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text(path, text):
    write_bytes(path, text.encode("utf-8"))


def json_text(doc, max_bytes=None):
    """doc as report files hold it: sorted keys, one-space indent unless
    that passes INDENT_MAX_BYTES (then compact); ValueError when even the
    compact text passes max_bytes (what a reader accepts)."""
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if len(text) > INDENT_MAX_BYTES:
        text = json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n"
    if max_bytes is not None and len(text.encode("utf-8")) > max_bytes:
        raise ValueError(f"{len(text)} bytes of JSON, more than the {max_bytes} a reader "
                         "accepts")
    return text
