#!/usr/bin/python3
"""Kernel specs: the one parser of how a guest kernel is named, wherever
one is (experiment pairs, `platter compare --base/--patched`, run-guest
--kernel, build-kernel).  A spec is one of

  NAME[,fs=FS][,frontend=FE][,net=NET]
                                a variant (guest-tests/kernel/variants)
  tree:PATH[@REV][,config=FILE][,fs=FS][,frontend=FE][,net=NET]
                                a local git tree at a revision (any
                                commit-ish, default HEAD)
  patches:PATH[@tree:PATH@REV][,config=FILE][,fs=FS][,frontend=FE][,net=NET]
                                patch files (git format-patch output, an
                                mbox, or a directory of *.patch, *.diff,
                                *.mbox, *.mbx applied in name order) on the pinned
                                source, or on a tree at a revision
  bzimage:PATH                  a prebuilt kernel, booted as it is

config=FILE is a full .config or a fragment, merged over tinyconfig before
platter's own fragment (guest-tests/kernel/platter.config, whose every line
must survive).  fs=FS merges guest-tests/kernel/fs-FS.config (a file
system platter.config leaves out, e.g. btrfs) after platter's fragment;
the harness adds it to the kernel of every cell on that file system
(with_fs).  frontend=FE likewise merges guest-tests/kernel/frontend-FE.config
(the drivers of a front end platter.config leaves out: sata's libata and
AHCI), added to the kernel of every cell on that front end
(with_frontend), and net=NET guest-tests/kernel/net-NET.config (the
network a client needs: PostgreSQL's server listens on an AF_UNIX socket),
added to the kernel of every cell whose client asks for it.  Paths are relative to base_dir (the experiment file's
directory, or the current one on a command line) and may start with ~.

Patches are checked when the spec is loaded, before anything is built: a
patches: spec's and a variant's patches are applied with patch -p1, as the
build applies them, to copies of the files they touch from their source
(the tree's revision, or the pinned source once it is extracted in the
cache); the first that fails is one error naming it and its first failing
hunk's file.

Used as a module by scripts/platter and as a command by build-kernel and
run-guest:
  kernelspec.py check SPEC   exit 0, or one line on stderr and exit 1
  kernelspec.py shell SPEC   the resolved spec as shell assignments (k_*)
  kernelspec.py label SPEC   the name a spec goes by in cell ids
  kernelspec.py with-fs SPEC FS  the spec a test on file system FS needs
  kernelspec.py with-frontend SPEC FE  the spec a run on front end FE needs
"""
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys

from . import child, cli
from .paths import file_head, sha256_file as sha256

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KINDS = ("tree", "patches", "bzimage")
SYNTAX = ("a variant name, tree:PATH[@REV], patches:PATH[@tree:PATH@REV] "
          "or bzimage:PATH")
PATCH_SUFFIXES = (".patch", ".diff", ".mbox", ".mbx")
PATCH_DIR = os.path.join(ROOT, "guest-tests", "kernel", "patches")
KERNEL_DIR = os.path.join(ROOT, "guest-tests", "kernel")
CONFIG_LINE = re.compile(r"CONFIG_[A-Za-z0-9_]+=.*|# CONFIG_[A-Za-z0-9_]+ is not set|#.*|\s*")


class Error(Exception):
    """What is wrong with a spec, in one line."""


def _build_kernel(*args):
    p = child.run_plain([os.path.join(ROOT, "scripts", "build-kernel"), *args],
                        stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise cli.InfraError(f"platter: scripts/build-kernel {' '.join(args)} failed")
    return p.stdout


@functools.lru_cache(maxsize=None)
def variant_table():
    """{variant: (patch files, declared behaviours)}: scripts/build-kernel
    --table reads guest-tests/kernel/variants, the one place that defines
    them ("NAME: PATCH... | BEHAVIOUR...")."""
    table = {}
    for line in _build_kernel("--table").splitlines():
        name, _, rest = line.partition(":")
        patches, _, declares = rest.partition("|")
        table[name] = ([os.path.join(PATCH_DIR, p) for p in patches.split()],
                       declares.split())
    return table


def variants():
    """Kernel variant names, in the variants file's order."""
    return list(variant_table())


def variant_declares(name):
    """What a variant declares about its I/O path (the variants file)."""
    return variant_table()[name][1]


@functools.lru_cache(maxsize=None)
def pinned_source():
    """The pinned Linux source's directory when it is extracted in the
    cache, else None (nothing is downloaded to check a spec)."""
    return _build_kernel("--print-source").strip() or None


# The fragment options: OPTION=NAME merges guest-tests/kernel/OPTION-NAME.config
# after platter.config, in this order (fs: a file system, frontend: a front
# end's drivers, net: sockets), with what each builds in.  Kept out of
# platter.config so the kernels committed reports were measured with keep
# their cache keys and their guest-visible behaviour.
FRAGMENT_OPTIONS = ("fs", "frontend", "net")
FRAGMENT_METAVAR = {"fs": "FS", "frontend": "FE", "net": "NET"}
FRAGMENT_WHAT = {"fs": "a file system to build in", "frontend": "a front end's drivers to build in",
                 "net": "sockets to build in"}


def fragments(option):
    """The names a kernel can be asked for with OPTION=NAME: the fragments
    guest-tests/kernel/OPTION-NAME.config."""
    pre = option + "-"
    return sorted(f[len(pre):-7] for f in os.listdir(KERNEL_DIR)
                  if f.startswith(pre) and f.endswith(".config"))


def fragment(option, name):
    return os.path.join(KERNEL_DIR, f"{option}-{name}.config")


def fs_fragments():
    return fragments("fs")


def option_of(text, option):
    """The value of a spec's OPTION=VALUE, or None (syntax not checked)."""
    for opt in text.split(",")[1:]:
        if opt.startswith(option + "="):
            return opt[len(option) + 1:]
    return None


def with_fragment(text, option, name, what):
    """The spec a run on NAME (a file system or front end: what) needs:
    with OPTION=NAME when a fragment builds it in (one platter.config
    builds in needs nothing).  A prebuilt bzImage is left as it is: the
    guest's check names what it lacks.  Error if the spec already asks for
    another NAME."""
    have = option_of(text, option)
    if name not in fragments(option) or text.startswith("bzimage:") or have == name:
        return text
    if have:
        raise Error(f"'{text:.60}' builds in {have}, and a {what} on {name} needs "
                    f"{option}={name}: one {option}= per kernel")
    return f"{text},{option}={name}"


def with_fs(text, fs):
    return with_fragment(text, "fs", fs, "workload")


def with_frontend(text, frontend):
    return with_fragment(text, "frontend", frontend, "run")


def _label_part(value):
    return re.sub(r"[^A-Za-z0-9_+-]+", "-", value)


def suffix(text):
    """What a spec's fragment options add to its name: '+FS', '+FE', '+NET'
    in FRAGMENT_OPTIONS' order ('' for none)."""
    return "".join("+" + _label_part(v) for v in (option_of(text, o) for o in FRAGMENT_OPTIONS)
                   if v)


def label(text):
    """The name a spec goes by in cell ids and reports: a variant's own
    name, else KIND-BASENAME[-REV] with every other character a '-'; an
    fs=FS option adds '+FS', then a frontend=FE option '+FE', then net=NET
    '+NET' (FRAGMENT_OPTIONS' order, however the spec lists them)."""
    for option in reversed(FRAGMENT_OPTIONS):
        value = option_of(text, option)
        if value:
            return label(",".join(o for o in text.split(",")
                                  if not o.startswith(option + "="))) + \
                "+" + _label_part(value)
    if ":" not in text:
        return text.split(",", 1)[0]
    kind, _, rest = text.partition(":")
    main = rest.split(",", 1)[0]
    path, _, rev = main.partition("@")
    parts = [kind, os.path.basename(path.rstrip("/")) or "root"]
    if kind == "tree":
        # a full commit id (a run spec's) goes by its first 12 digits
        parts.append(rev[:12] if re.fullmatch(r"[0-9a-f]{40}", rev) else rev or "HEAD")
    elif kind == "patches" and rev:
        parts.append("on-" + label(rev))
    return re.sub(r"[^A-Za-z0-9_+-]+", "-", "-".join(parts))


def _path(p, base_dir):
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(p)))


def _git(args, cwd=None, env=None):
    try:
        p = child.run_plain(["git", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise Error(f"cannot run git: {e.strerror} (apt-get install git)")
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def parse(text, base_dir="", known=None):
    """The spec as a dict (kind, label, and per kind what names the kernel),
    or Error.  base_dir None: check the syntax only (a spec read back from
    a report, whose files may be elsewhere); else every file, tree and
    revision is checked, and a tree's revision resolved to its commit."""
    if not isinstance(text, str) or not text:
        raise Error(f"{text!r:.60} is not a kernel ({SYNTAX})")
    head, *opts = text.split(",")
    kind, _, main = head.partition(":") if ":" in head else ("variant", "", head)
    if kind not in KINDS + ("variant",):
        raise Error(f"'{text:.60}': unknown kind '{kind:.20}' ({SYNTAX})")
    k = {"kind": kind, "spec": text, "label": label(text)}
    takes = {"variant": FRAGMENT_OPTIONS, "bzimage": ()}.get(kind, ("config",) + FRAGMENT_OPTIONS)
    metavar = {"config": "FILE", **FRAGMENT_METAVAR}
    for opt in opts:
        key, eq, val = opt.partition("=")
        if key not in takes or not eq or not val or key in k:
            raise Error(f"'{text:.60}': '{opt:.40}' is not an option here (" + (
                ", ".join(f"{t}={metavar[t]}" for t in takes) +
                (", each once" if len(takes) > 1 else ", once") if takes
                else "a prebuilt bzImage takes none") + ")")
        k[key] = val
    for option in FRAGMENT_OPTIONS:
        if option in k and k[option] not in fragments(option):
            raise Error(f"'{text:.60}': {option}={k[option]:.20}: no guest-tests/kernel/"
                        f"{option}-{k[option]:.20}.config ({FRAGMENT_WHAT[option]}: "
                        f"{', '.join(fragments(option)) or 'none'})")
    if kind == "variant":
        known = variants() if known is None else known
        if main not in known:
            raise Error(f"unknown kernel '{main:.60}' (a variant: {', '.join(known)}; "
                        f"or tree:PATH[@REV], patches:PATH[@tree:PATH@REV], bzimage:PATH)")
        if base_dir is not None and main in variant_table():
            _check_applies(variant_table()[main][0], None, f"variant '{main}': ")
        k["name"] = main
        return k
    path, at, after = main.partition("@")
    if not path:
        raise Error(f"'{text:.60}': no PATH ({SYNTAX})")
    if kind == "tree":
        k["path"], k["rev"] = path, after or "HEAD"
        if at and not after:
            raise Error(f"'{text:.60}': an empty revision after '@'")
    elif kind == "patches":
        # the base is named by "@tree:"; any other '@' is the path's own (a
        # b4 message-id as a file name: issue 40 found it read as a base)
        path, at, after = main.partition("@tree:")
        if not path:
            raise Error(f"'{text:.60}': no PATH ({SYNTAX})")
        head, _, other = main.partition("@")
        # after '@', another kernel spec (a variant, bzimage:, patches:) or
        # a PATH that exists before it is a base given wrong, not a name
        if not at and other and (other.startswith(("bzimage:", "patches:")) or
                                 other.split(",")[0] in (variants() if known is None else known) or
                                 (base_dir is not None and
                                  os.path.exists(_path(head, base_dir)) and
                                  not os.path.exists(_path(path, base_dir)))):
            raise Error(f"'{text:.60}': patches go onto the pinned source or onto "
                        f"tree:PATH@REV, not '{other:.40}'")
        k["path"] = path
        if at:
            after = "tree:" + after
            if "," in after:
                raise Error(f"'{text:.60}': patches go onto the pinned source or onto "
                            f"tree:PATH@REV, not '{after:.40}'")
            k["base"] = parse(after, base_dir, known)
    elif at:
        raise Error(f"'{text:.60}': a bzImage takes no '@'")
    else:
        k["path"] = path
    if base_dir is not None:
        _resolve(k, base_dir)
    return k


def _resolve(k, base_dir):
    k["resolved"] = True
    k["path"] = _path(k["path"], base_dir)
    if "config" in k:
        k["config"] = _path(k["config"], base_dir)
        _check_config(k["config"])
        k["config_sha256"] = sha256(k["config"])
    if k["kind"] == "tree":
        _resolve_tree(k)
    elif k["kind"] == "patches":
        _resolve_patches(k)
    else:
        _check_bzimage(k["path"])
        k["sha256"] = sha256(k["path"])


def _resolve_tree(k):
    path, rev = k["path"], k["rev"]
    if not os.path.isdir(path):
        raise Error(f"tree '{path}': no such directory")
    rc, gitdir, _ = _git(["-C", path, "rev-parse", "--absolute-git-dir"])
    if rc != 0:
        raise Error(f"tree '{path}': not a git tree")
    rc, commit, _ = _git(["-C", path, "rev-parse", "--verify", "--quiet", "--end-of-options",
                          rev + "^{commit}"])
    if rc != 0 or not commit:
        raise Error(f"tree '{path}': no revision '{rev}'")
    rc, _, _ = _git(["-C", path, "cat-file", "-e", f"{commit}:scripts/kconfig/merge_config.sh"])
    if rc != 0:
        raise Error(f"tree '{path}' at '{rev}': not a Linux source tree "
                    "(no scripts/kconfig/merge_config.sh)")
    _, describe, _ = _git(["-C", path, "describe", "--always", "--tags", commit])
    k.update(gitdir=gitdir, commit=commit, describe=describe)


def patch_files(path):
    """A file, or a directory's *.patch, *.diff, *.mbox and *.mbx (b4 am's) in name order."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if f.endswith(PATCH_SUFFIXES) and os.path.isfile(os.path.join(path, f)))
        if not files:
            raise Error(f"patches '{path}': a directory without *.patch, *.diff, *.mbox "
                        "or *.mbx files")
        return files
    if not os.path.isfile(path):
        why = ("not a regular file or a directory" if os.path.exists(path) else
               "no such file or directory")
        if not os.path.exists(path) and "@" in os.path.basename(path):
            # the form of a message-id: platter reads patches from files
            why += (" (a lore message-id? platter reads patches from files: `b4 am "
                    "MSGID -o DIR` writes the series into DIR, then patches:DIR)")
        raise Error(f"patches '{path}': {why}")
    return [path]


def _resolve_patches(k):
    files = patch_files(k["path"])
    for f in files:
        try:
            with open(f, "rb") as fh:
                body = fh.read()
        except OSError as e:
            raise Error(f"patch '{f}': cannot read: {e.strerror}")
        if not re.search(rb"^(diff |--- )", body, re.M):
            raise Error(f"patch '{f}': not a patch (no diff in it)")
    k["files"] = files
    k["sha256"] = [sha256(f) for f in files]
    _check_applies(files, k.get("base"))


def touched(files):
    """The source files the patches change, as paths in the tree (-p1):
    what a check must copy before it applies them."""
    paths = []
    for f in files:
        with open(f, "rb") as fh:
            body = fh.read()
        for m in re.finditer(rb"^(?:---|\+\+\+) ([^\t\n]+)", body, re.M):
            name = m.group(1).decode("utf-8", "replace").strip()
            _, slash, rel = name.partition("/")
            rel = os.path.normpath(rel) if slash else ""
            if name != "/dev/null" and rel and not rel.startswith(("/", "..")) \
                    and rel not in paths:
                paths.append(rel)
    return paths


def _copy_source(paths, tree, dest):
    """The files of paths that exist in the source (a tree's commit, else
    the pinned source in the cache) into dest; False without a source."""
    if tree is None:
        src = pinned_source()
        if src is None:
            return False
        for rel in paths:
            if os.path.isfile(os.path.join(src, rel)):
                os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                shutil.copyfile(os.path.join(src, rel), os.path.join(dest, rel))
        return True
    git = ["--git-dir", tree["gitdir"]]
    rc, listed, err = _git(git + ["ls-tree", "-r", "-z", "--name-only", tree["commit"], "--",
                                  *paths])
    if rc != 0:
        raise Error(f"tree '{tree['path']}': cannot read {tree['rev']}: {err[:200]}")
    for rel in filter(None, listed.split("\0")):
        p = child.run_plain(["git", *git, "cat-file", "blob", f"{tree['commit']}:{rel}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with open(os.path.join(dest, rel), "wb") as f:
            f.write(p.stdout)
    return True


def _first_failure(out):
    """The first failing hunk (and its file) in GNU patch's output."""
    current = None
    for line in out.splitlines():
        m = re.match(r"(?:patching|checking) file '?(.*?)'?$", line)
        if m:
            current = m.group(1)
        m = re.match(r"Hunk #(\d+) FAILED", line)
        if m:
            return f"hunk #{m.group(1)} of {current} fails"
        if line.startswith("can't find file to patch"):
            return "a file it patches is not in the source"
        if "Reversed (or previously applied) patch detected" in line:
            return f"{current} already has it (reversed or applied)"
    return (out.strip().splitlines() or ["patch failed"])[-1][:200]


def _check_applies(files, tree, who=""):
    """Each patch applies, in order, to its source (the tree's revision,
    else the pinned source when the cache has it extracted) as the build
    applies it (patch -p1), to copies of the files it touches: neither the
    user's checkout nor their repository nor the cache is written."""
    if not files:
        return
    where = (f"tree '{tree['path']}' at '{tree['rev']}'" if tree else
             f"the pinned source (linux-source-7.3 {os.path.basename(pinned_source() or '')})")
    with child.temp_dir("platter-apply-") as tmp:
        if not _copy_source(touched(files), tree, tmp):
            return   # no source yet: build-kernel checks after the download
        for f in files:
            try:
                p = child.run_plain(["patch", "-d", tmp, "-p1", "--batch", "--forward",
                                     "--no-backup-if-mismatch", "--reject-file=-", "-i",
                                     os.path.abspath(f)],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    errors="replace")
            except OSError as e:
                raise Error(f"cannot run patch: {e.strerror} (apt-get install patch)")
            if p.returncode != 0:
                raise Error(f"{who}patch '{f}' does not apply to {where}: "
                            f"{_first_failure(p.stdout)}")


def _check_config(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise Error(f"config '{path}': cannot read: {getattr(e, 'strerror', None) or e}")
    for n, line in enumerate(lines, 1):
        if not CONFIG_LINE.fullmatch(line):
            raise Error(f"config '{path}' line {n}: '{line:.60}' is not CONFIG_NAME=VALUE "
                        "or '# CONFIG_NAME is not set'")


def _check_bzimage(path):
    head = file_head(path, 0x206, lambda why: Error(f"bzimage '{path}': {why}"))
    if head[0x202:0x206] != b"HdrS":
        raise Error(f"bzimage '{path}': not an x86 bzImage (no boot protocol header)")


def run_spec(k):
    """The spec run-guest and build-kernel are given for a parsed kernel k:
    absolute paths, and a tree's revision as the commit it resolved to when
    the spec was loaded (the run measures one commit even if the branch
    moves meanwhile)."""
    if k["kind"] == "variant" or not k.get("resolved"):
        return k["spec"]
    if k["kind"] == "bzimage":
        return f"bzimage:{k['path']}"
    if k["kind"] == "tree":
        text = f"tree:{k['path']}@{k['commit']}"
    else:
        text = f"patches:{k['path']}"
        if "base" in k:
            text += "@" + run_spec(k["base"])
    return text + (f",config={k['config']}" if "config" in k else "") + \
        "".join(f",{o}={k[o]}" for o in FRAGMENT_OPTIONS if o in k)


def shell(k):
    """The resolved spec as shell assignments for build-kernel."""
    out = {"kind": k["kind"], "label": k["label"], "spec": k["spec"],
           "name": k.get("name", ""), "config": k.get("config", ""),
           # what the fragment options add to the label (the build's name)
           "suffix": suffix(k["spec"]),
           "bzimage": k["path"] if k["kind"] == "bzimage" else ""}
    tree = k if k["kind"] == "tree" else k.get("base")
    for key in ("path", "gitdir", "commit", "describe", "rev"):
        out["tree_" + key] = tree[key] if tree else ""
    lines = [f"k_{key}={shlex.quote(v)}" for key, v in out.items()]
    lines.append("k_patches=(" + " ".join(shlex.quote(f) for f in k.get("files", [])) + ")")
    # each fragment option, and its fragment's path ('' when not asked for)
    lines.append("k_fragment_options=(" + " ".join(FRAGMENT_OPTIONS) + ")")
    lines.append("k_fragment_paths=(" + " ".join(
        shlex.quote(fragment(o, k[o]) if o in k else "") for o in FRAGMENT_OPTIONS) + ")")
    return "\n".join(lines)


def main(argv):
    if argv[1:2] in (["with-fs"], ["with-frontend"]) and len(argv) == 4:
        try:
            print((with_fs if argv[1] == "with-fs" else with_frontend)(argv[2], argv[3]))
        except Error as e:
            print(e, file=sys.stderr)
            return cli.EXIT_BAD_INPUT
        return 0
    if len(argv) != 3 or argv[1] not in ("check", "shell", "label"):
        print("usage: kernelspec.py check|shell|label SPEC | with-fs SPEC FS | "
              "with-frontend SPEC FE", file=sys.stderr)
        return 2
    if argv[1] == "label":
        print(label(argv[2]))
        return 0
    try:
        k = parse(argv[2], os.getcwd())
    except Error as e:
        print(e, file=sys.stderr)
        return cli.EXIT_BAD_INPUT
    if argv[1] == "shell":
        print(shell(k))
    return 0


if __name__ == "__main__":
    cli.run(lambda: child.run_main(main, sys.argv), "platterlib.kernelspec")
