#!/usr/bin/python3
"""Kernel specs (scripts/platterlib/kernelspec.py) on small real git trees, the
compare matrix they make, and the guest's boot-time option check
(guest-tests/initramfs/lib/options.sh) on made-up sysfs trees; prints TAP.
Nothing is built or booted.
usage: test-kernelspec.py PLATTER_SIM"""
import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from platterlib import devicespec  # noqa: E402
from platterlib import expspec  # noqa: E402
from platterlib import kernelspec  # noqa: E402
from platterlib import matrix  # noqa: E402
from platterlib import paths  # noqa: E402
from platterlib import tap  # noqa: E402

ROOT = paths.ROOT
# kernelspec run as build-kernel runs it (scripts/lib/guest-common.sh)
SCRIPTS_ENV = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scripts"))
SIM = os.path.abspath(sys.argv[1])
GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
VARIANTS = ["base", "fops"]


def git(tree, *args):
    return subprocess.run(["git", "-C", tree, *args], env=GIT_ENV, check=True,
                          capture_output=True, text=True).stdout.strip()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def linux_like(tmp):
    """A git tree with what kernelspec looks for, two commits: the second
    changes block/fops.c."""
    t = os.path.join(tmp, "linux")
    write(os.path.join(t, "scripts", "kconfig", "merge_config.sh"), "#!/bin/sh\n")
    write(os.path.join(t, "block", "fops.c"), "int a;\nint b;\nint c;\n")
    git(tmp, "init", "-q", t)
    git(t, "add", "-A")
    git(t, "commit", "-qm", "one")
    write(os.path.join(t, "block", "fops.c"), "int a;\nint B;\nint c;\n")
    git(t, "commit", "-qam", "two")
    return t


def patch(tmp, name, old, new):
    p = os.path.join(tmp, name)
    write(p, "--- a/block/fops.c\n+++ b/block/fops.c\n@@ -1,3 +1,3 @@\n int a;\n"
             f"-{old}\n+{new}\n int c;\n")
    return p


def error(text, base_dir):
    try:
        kernelspec.parse(text, base_dir, VARIANTS)
    except kernelspec.Error as e:
        assert "\n" not in str(e), str(e)
        return str(e)
    raise AssertionError(f"{text!r} was accepted")


def test_variant_and_labels(tmp):
    assert kernelspec.parse("fops", tmp, VARIANTS)["kind"] == "variant"
    assert "unknown kernel 'zz' (a variant: base, fops" in error("zz", tmp)
    assert kernelspec.label("fops") == "fops"
    assert kernelspec.label("tree:~/src/linux@HEAD~1") == "tree-linux-HEAD-1"
    assert kernelspec.label("tree:/x/linux") == "tree-linux-HEAD"
    assert kernelspec.label("patches:a/mine.patch@tree:/x/linux@v7") == \
        "patches-mine-patch-on-tree-linux-v7"
    assert kernelspec.label("bzimage:/boot/vmlinuz-7") == "bzimage-vmlinuz-7"


def test_tree_resolves_to_commit(tmp):
    t = linux_like(tmp)
    head, first = git(t, "rev-parse", "HEAD"), git(t, "rev-parse", "HEAD~")
    k = kernelspec.parse("tree:linux@HEAD~", tmp, VARIANTS)
    assert k["commit"] == first and k["path"] == t and k["describe"] == first[:7]
    assert kernelspec.parse("tree:linux", tmp, VARIANTS)["commit"] == head
    # the run spec pins the commit, so a moving branch does not change the run
    assert kernelspec.run_spec(k) == f"tree:{t}@{first}"
    assert git(t, "status", "--porcelain") == ""


def test_tree_errors(tmp):
    t = linux_like(tmp)
    assert "no such directory" in error("tree:nope@HEAD", tmp)
    assert "not a git tree" in error(f"tree:{tmp}@HEAD", "/")
    assert "no revision 'v99'" in error("tree:linux@v99", tmp)
    assert "an empty revision" in error("tree:linux@", tmp)
    os.makedirs(os.path.join(tmp, "other"))
    git(tmp, "init", "-q", "other")
    write(os.path.join(tmp, "other", "f"), "x\n")
    git(os.path.join(tmp, "other"), "add", "f")
    git(os.path.join(tmp, "other"), "commit", "-qm", "x")
    assert "not a Linux source tree" in error("tree:other@HEAD", tmp)
    assert "unknown kind 'git'" in error("git:linux", tmp)
    assert "'config=' is not an option" in error("tree:linux@HEAD,config=", tmp)
    assert "a prebuilt bzImage takes none" in error("bzimage:x,config=y", tmp)
    assert t


def test_patches_apply_check(tmp):
    t = linux_like(tmp)
    objects = git(t, "count-objects", "-v")
    good = patch(tmp, "good.patch", "int B;", "int BB;")
    stale = patch(tmp, "stale.patch", "int b;", "int bb;")
    k = kernelspec.parse(f"patches:{good}@tree:linux@HEAD", tmp, VARIANTS)
    assert k["files"] == [good] and len(k["sha256"][0]) == 64
    why = error(f"patches:{stale}@tree:linux@HEAD", tmp)
    assert "stale.patch' does not apply to tree" in why and "at 'HEAD'" in why, why
    # onto the first revision the stale one applies and the good one not
    kernelspec.parse(f"patches:{stale}@tree:linux@HEAD~", tmp, VARIANTS)
    # checking wrote nothing into the user's repository or checkout
    assert git(t, "count-objects", "-v") == objects
    assert git(t, "status", "--porcelain") == ""


def fake_pinned_source(tmp):
    """A cache whose extracted pinned source is a block/fops.c alone (what
    build-kernel --print-source finds: no download), made the one the
    checks use; returns a function that puts the real one back."""
    cache = os.path.join(tmp, "cache")
    src = os.path.join(cache, "kernel", "src", "7.3.4-1~bpo13+1")
    write(os.path.join(src, "block", "fops.c"), "int a;\nint b;\nint c;\n")
    write(os.path.join(src, ".platter-complete"), "")
    old = os.environ.get("PLATTER_CACHE")
    os.environ["PLATTER_CACHE"] = cache
    kernelspec.pinned_source.cache_clear()

    def restore():
        if old is None:
            os.environ.pop("PLATTER_CACHE")
        else:
            os.environ["PLATTER_CACHE"] = old
        kernelspec.pinned_source.cache_clear()
    return src, restore


def test_patches_on_pinned_source_checked_at_load(tmp):
    src, restore = fake_pinned_source(tmp)
    try:
        assert kernelspec.pinned_source() == src
        good = patch(tmp, "good.patch", "int b;", "int bb;")
        stale = patch(tmp, "stale.patch", "int B;", "int BB;")
        assert kernelspec.parse(f"patches:{good}", tmp, VARIANTS)["files"] == [good]
        why = error(f"patches:{stale}", tmp)
        assert why == (f"patch '{stale}' does not apply to the pinned source (linux-source-7.3 "
                       "7.3.4-1~bpo13+1): hunk #1 of block/fops.c fails"), why
        # in order: the second patch sees the first's change
        then = patch(tmp, "then.patch", "int bb;", "int bbb;")
        series = os.path.join(tmp, "series")
        os.makedirs(series)
        for i, f in enumerate((good, then)):
            os.link(f, os.path.join(series, f"000{i}.patch"))
        kernelspec.parse(f"patches:{series}", tmp, VARIANTS)
        # a variant's patches too: fops's do not apply to this source
        why = error("fops", tmp)
        assert why.startswith("variant 'fops': patch '") and \
            "fops-1-skip-redundant-flush.patch' does not apply to the pinned source" in why and \
            "of block/fops.c fails" in why, why
        kernelspec.parse("base", tmp, VARIANTS)
        # the pinned source is only read
        with open(os.path.join(src, "block", "fops.c")) as f:
            assert f.read() == "int a;\nint b;\nint c;\n"
        # on the command line: one line, before any build
        p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", "--base",
                            "base", "--patched", f"patches:{stale}", "--sim-only", "--sim", SIM,
                            "--out", os.path.join(tmp, "out")], capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and \
            "stale.patch' does not apply to the pinned source" in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(tmp, "out"))
    finally:
        restore()


def test_patch_directory_in_order(tmp):
    d = os.path.join(tmp, "series")
    for name in ("0002-b.patch", "0001-a.patch", "notes.txt"):
        write(os.path.join(d, name), f"--- /dev/null\n+++ b/new-{name}\n@@ -0,0 +1 @@\n+x\n")
    k = kernelspec.parse(f"patches:{d}", tmp, VARIANTS)
    assert [os.path.basename(f) for f in k["files"]] == ["0001-a.patch", "0002-b.patch"]
    os.makedirs(os.path.join(tmp, "empty"))
    assert "without *.patch" in error("patches:empty", tmp)
    write(os.path.join(tmp, "prose.patch"), "just words\n")
    assert "not a patch" in error("patches:prose.patch", tmp)
    assert "onto the pinned source or onto tree" in error(f"patches:{d}@bzimage:x", tmp)
    # issue 40: an '@' of the path's own (b4's message-id names) is no base
    b4 = os.path.join(tmp, "b4")
    write(os.path.join(b4, "v2_20261201_dev_fops.mbx"),
          "--- /dev/null\n+++ b/new-b4\n@@ -0,0 +1 @@\n+x\n")
    k = kernelspec.parse(f"patches:{b4}", tmp, VARIANTS)
    assert [os.path.basename(f) for f in k["files"]] == ["v2_20261201_dev_fops.mbx"]
    msgid = os.path.join(tmp, "20261201.1234-1-dev@example.org")
    write(msgid, "--- /dev/null\n+++ b/new-m\n@@ -0,0 +1 @@\n+x\n")
    assert kernelspec.parse(f"patches:{msgid}", tmp, VARIANTS)["files"] == [msgid]
    why = error("patches:20261202.5678-1-dev@example.org", tmp)
    assert "no such file" in why and "b4 am" in why and "example.org'" in why, why


def test_config_and_bzimage(tmp):
    linux_like(tmp)
    write(os.path.join(tmp, "ok.config"), "# mine\nCONFIG_XFS_FS=y\n# CONFIG_FOO is not set\n\n")
    k = kernelspec.parse("tree:linux@HEAD,config=ok.config", tmp, VARIANTS)
    assert k["config"] == os.path.join(tmp, "ok.config")
    write(os.path.join(tmp, "bad.config"), "CONFIG_A=y\nXFS=y\n")
    assert "bad.config' line 2" in error("tree:linux,config=bad.config", tmp)
    img = os.path.join(tmp, "bzImage")
    with open(img, "wb") as f:
        f.write(b"\0" * 0x202 + b"HdrS" + b"\0" * 64)
    assert kernelspec.parse(f"bzimage:{img}", tmp, VARIANTS)["sha256"]
    assert "not an x86 bzImage" in error("bzimage:ok.config", tmp)
    assert "no such file" in error("bzimage:nope", tmp) or "No such file" in error(
        "bzimage:nope", tmp)


def test_shell_for_build_kernel(tmp):
    t = linux_like(tmp)
    good = patch(tmp, "my patch.patch", "int B;", "int BB;")
    out = subprocess.run(
        [sys.executable, "-m", "platterlib.kernelspec", "shell",
         f"patches:{good}@tree:linux@HEAD"], cwd=tmp, capture_output=True, text=True, check=True,
        env=SCRIPTS_ENV)
    sh = subprocess.run(["bash", "-c", out.stdout + '\nprintf "%s|" "$k_kind" "$k_tree_path" '
                         '"${k_patches[0]}" "${#k_patches[@]}" "$k_tree_commit"'],
                        capture_output=True, text=True, check=True).stdout
    assert sh == f"patches|{t}|{good}|1|{git(t, 'rev-parse', 'HEAD')}|", sh


def test_default_matrix_cells(tmp):
    t = linux_like(tmp)
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        exp = matrix.default_matrix("tree:linux@HEAD~", "tree:linux@HEAD")
        nvme = matrix.select_devices(exp, ["nvme"])
    finally:
        os.chdir(cwd)
    cells = matrix.cells(nvme)
    assert [c["id"] for c in cells] == [
        "seq.st20000nm007d.nvme.tree-linux-HEAD-", "seq.st20000nm007d.nvme.tree-linux-HEAD",
        "rand.st20000nm007d.nvme.tree-linux-HEAD-", "rand.st20000nm007d.nvme.tree-linux-HEAD"]
    cmd = matrix.guest_command(cells[0], 1)
    assert cmd[cmd.index("--kernel") + 1] == f"tree:{t}@{git(t, 'rev-parse', 'HEAD~')}"


def test_colliding_labels(tmp):
    linux_like(tmp)
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        matrix.default_matrix("tree:linux@HEAD~", "tree:linux@HEAD^")
    except SystemExit as e:
        assert "both go by 'tree-linux-HEAD-'" in str(e), str(e)
    else:
        raise AssertionError("two kernels with one label were accepted")
    finally:
        os.chdir(cwd)


FAKE_MESON = """#!/bin/sh
# stands in for meson: setup makes the build dir, compile prints a ninja
# line and writes each program (a copy of /bin/true)
case $1 in
setup) mkdir -p "$2" && : > "$2/build.ninja" ;;
compile) dir=$3; shift 3; echo "[1/2] Compiling C object guest-tests/x.o"
    mkdir -p "$dir/guest-tests"; for p; do cp /bin/true "$dir/guest-tests/$p"; done ;;
esac
"""


def test_build_initramfs_prefixes_ninja_lines(tmp):
    # every stderr line of a build step names the step, ninja's too (its
    # "[1/2] Compiling" reached stderr bare and was taken for a cell line)
    fake = os.path.join(tmp, "bin", "meson")
    write(fake, FAKE_MESON)
    os.chmod(fake, 0o755)
    env = dict(os.environ, PATH=f"{os.path.dirname(fake)}:{os.environ['PATH']}",
               PLATTER_CACHE=os.path.join(tmp, "cache"))
    p = subprocess.run([os.path.join(ROOT, "scripts", "build-initramfs")], env=env,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert "build-initramfs: [1/2] Compiling C object guest-tests/x.o" in lines, lines
    assert all(ln.startswith("build-initramfs: ") for ln in lines), lines
    assert p.stdout.strip().endswith("/initramfs.cpio"), p.stdout
    # the helper keeps the command's exit status
    lib = os.path.join(ROOT, "scripts", "lib", "guest-common.sh")
    p = subprocess.run(["bash", "-c", f'. "{lib}"; prefixed sh -c "echo a; exit 3"; echo $?',
                        "step"], capture_output=True, text=True)
    assert (p.stdout, p.stderr) == ("3\n", "step: a\n"), (p.stdout, p.stderr)


def test_fs_option(tmp):
    # fs=FS: a kernel with guest-tests/kernel/fs-FS.config merged in, on
    # every kind but a prebuilt bzImage; a kernel of its own (label +FS)
    t = linux_like(tmp)
    k = kernelspec.parse("fops,fs=btrfs", tmp, VARIANTS)
    assert (k["kind"], k["name"], k["fs"], k["label"]) == ("variant", "fops", "btrfs",
                                                          "fops+btrfs"), k
    k = kernelspec.parse("tree:linux@HEAD~,fs=btrfs", tmp, VARIANTS)
    assert kernelspec.run_spec(k) == f"tree:{t}@{git(t, 'rev-parse', 'HEAD~')},fs=btrfs"
    assert kernelspec.label("tree:linux@HEAD~,fs=btrfs") == "tree-linux-HEAD-+btrfs"
    assert "fs=zfs: no guest-tests/kernel/fs-zfs.config (a file system to build in: btrfs)" \
        in error("base,fs=zfs", tmp)
    assert "a prebuilt bzImage takes none" in error("bzimage:x,fs=btrfs", tmp)
    assert "'config=x' is not an option here (fs=FS, frontend=FE, net=NET, each once)" \
        in error("base,config=x", tmp)
    assert "(fs=FS, frontend=FE, net=NET, each once)" in error("base,fs=btrfs,fs=btrfs", tmp)
    # what a run on a file system needs: only a fragment's file system
    # changes the spec; a bzImage boots as it is
    assert kernelspec.with_fs("base", "btrfs") == "base,fs=btrfs"
    assert kernelspec.with_fs("base,fs=btrfs", "btrfs") == "base,fs=btrfs"
    assert kernelspec.with_fs("base", "ext4") == "base"
    assert kernelspec.with_fs("bzimage:/b", "btrfs") == "bzimage:/b"
    sh = subprocess.run([sys.executable, "-m", "platterlib.kernelspec",
                         "shell", "fops,fs=btrfs"], capture_output=True, text=True,
                        check=True, env=SCRIPTS_ENV).stdout
    assert "k_name=fops\n" in sh and "k_suffix=+btrfs\n" in sh and \
        "k_fragment_options=(fs frontend net)\n" in sh, sh
    assert re.search(r"^k_fragment_paths=\(\S+/fs-btrfs\.config '' ''\)$", sh, re.M), sh


def test_fs_kernel_key(tmp):
    # the fragment is one more input of the key: base's own key and
    # inputs are those of a kernel without it (the cached kernels stay)
    bk = os.path.join(ROOT, "scripts", "build-kernel")

    def run(*args):
        return subprocess.run([bk, *args], capture_output=True, text=True,
                              check=True).stdout.splitlines()
    plain, with_fs = run("--print-inputs", "fops"), run("--print-inputs", "fops,fs=btrfs")
    assert with_fs[:len(plain) - 2] == plain[:-2] and with_fs[-2:] == plain[-2:], with_fs
    (extra,) = [x for x in with_fs if x not in plain]
    assert extra.startswith("file fs-btrfs.config "), extra
    assert run("--print-key", "fops") != run("--print-key", "fops,fs=btrfs")
    assert run("--print-inputs", "base,fs=btrfs") == run("--print-inputs", "base") + [extra]


def test_fs_cells_get_the_kernel(tmp):
    # a cell on btrfs runs its pair's kernel with fs=btrfs, under the
    # pair's label; a cell on ext4 or the raw device runs it as it is
    job = os.path.join(tmp, "j.fio")
    write(job, "[w]\nrw=randwrite\nsize=8m\n")
    spec = {"name": "t", "pairs": [["base", "fops"]], "devices": [{"frontend": "nvme"}],
            "profiles": ["990pro"],
            "workloads": [{"name": "b", "fio": "j.fio", "fs": "btrfs", "mount_opts": "ssd"},
                          {"name": "e", "fio": "j.fio", "fs": "ext4"},
                          {"name": "d", "test": "dsync"}]}
    cells = matrix.cells(expspec.check_experiment(spec, "t", base_dir=tmp))
    assert [(c["id"], c["kernel"]) for c in cells] == [
        ("b.990pro.nvme.base", "base,fs=btrfs"), ("b.990pro.nvme.fops", "fops,fs=btrfs"),
        ("e.990pro.nvme.base", "base"), ("e.990pro.nvme.fops", "fops"),
        ("d.990pro.nvme.base", "base"), ("d.990pro.nvme.fops", "fops")], cells
    cmd = matrix.guest_command(cells[0], 1)
    assert cmd[cmd.index("--kernel") + 1] == "base,fs=btrfs"
    assert cmd[cmd.index("--fs") + 1] == "btrfs" and "--mount-opts" in cmd, cmd
    # a pair may name the fs kernel itself; it declares what its variant does
    spec["pairs"] = [["base", "fops,fs=btrfs"]]
    exp = expspec.check_experiment(spec, "t", base_dir=tmp)
    assert exp["kernels"]["fops,fs=btrfs"] == kernelspec.variant_declares("fops"), exp["kernels"]
    assert [c["kernel"] for c in matrix.cells(exp)][:2] == ["base,fs=btrfs", "fops,fs=btrfs"]
    # run-guest, given the test's --fs, asks for the same kernel itself
    rg = os.path.join(ROOT, "scripts", "run-guest")
    p = subprocess.run([rg, "--check", "--kernel", "fops,fs=zfs", "fio", "--", "--fs", "btrfs"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "fs=zfs: no guest-tests/kernel/fs-zfs.config" in p.stderr


def test_net_option(tmp):
    # net=NET: guest-tests/kernel/net-NET.config (sockets for a client's
    # server), a kernel of its own whose label ends +NET, after +FS and +FE;
    # every other kernel keeps its key
    k = kernelspec.parse("fops,net=unix", tmp, VARIANTS)
    assert (k["net"], k["label"]) == ("unix", "fops+unix"), k
    assert kernelspec.label("fops,net=unix,frontend=sata,fs=btrfs") == "fops+btrfs+sata+unix"
    # what a cell's kernel is called in build steps and kernel_identity:
    # base and base+sata once shared a name there
    assert kernelspec.suffix("base,net=unix,frontend=sata") == "+sata+unix"
    assert kernelspec.suffix("tree:x@y,config=c") == ""
    assert "net=inet: no guest-tests/kernel/net-inet.config (sockets to build in: unix)" \
        in error("base,net=inet", tmp)
    assert kernelspec.with_fragment("base,fs=btrfs", "net", "unix", "client") == \
        "base,fs=btrfs,net=unix"
    t = linux_like(tmp)
    k = kernelspec.parse("tree:linux@HEAD~,frontend=sata,net=unix", tmp, VARIANTS)
    # (a tree's run spec once dropped frontend=)
    assert kernelspec.run_spec(k) == \
        f"tree:{t}@{git(t, 'rev-parse', 'HEAD~')},frontend=sata,net=unix"
    bk = os.path.join(ROOT, "scripts", "build-kernel")

    def run(*args):
        return subprocess.run([bk, *args], capture_output=True, text=True,
                              check=True).stdout.splitlines()
    plain, net = run("--print-inputs", "fops"), run("--print-inputs", "fops,fs=btrfs,net=unix")
    assert [x.split()[1] for x in net if x not in plain] == ["fs-btrfs.config",
                                                              "net-unix.config"], net
    keys = {s: run("--print-key", s)[0] for s in ("fops", "fops,net=unix", "fops,fs=btrfs",
                                                    "fops,fs=btrfs,net=unix")}
    assert len(set(keys.values())) == 4, keys


def test_frontend_option(tmp):
    # frontend=FE: guest-tests/kernel/frontend-FE.config merged in (sata's
    # libata and AHCI), a kernel of its own (label +FE, after +FS); only a
    # front end with a fragment changes the spec a run needs
    k = kernelspec.parse("fops,frontend=sata", tmp, VARIANTS)
    assert (k["name"], k["frontend"], k["label"]) == ("fops", "sata", "fops+sata"), k
    assert kernelspec.label("fops,fs=btrfs,frontend=sata") == "fops+btrfs+sata"
    assert kernelspec.label("fops,frontend=sata,fs=btrfs") == "fops+btrfs+sata"
    assert "frontend=nvme: no guest-tests/kernel/frontend-nvme.config (a front end's " \
        "drivers to build in: sata)" in error("base,frontend=nvme", tmp)
    assert kernelspec.with_frontend("base", "sata") == "base,frontend=sata"
    assert kernelspec.with_frontend("base,frontend=sata", "sata") == "base,frontend=sata"
    assert kernelspec.with_frontend("base,fs=btrfs", "sata") == "base,fs=btrfs,frontend=sata"
    for fe in ("nvme", "scsi-hd", "virtio-blk"):
        assert kernelspec.with_frontend("base", fe) == "base"
    assert kernelspec.with_frontend("bzimage:/b", "sata") == "bzimage:/b"
    sh = subprocess.run([sys.executable, "-m", "platterlib.kernelspec",
                         "shell", "fops,frontend=sata"], capture_output=True, text=True,
                        check=True, cwd=os.path.join(ROOT, "scripts")).stdout
    assert "k_suffix=+sata\n" in sh and "frontend-sata.config" in sh, sh
    # one more input of the key; the kernels without it keep theirs
    bk = os.path.join(ROOT, "scripts", "build-kernel")

    def run(*args):
        return subprocess.run([bk, *args], capture_output=True, text=True,
                              check=True).stdout.splitlines()
    plain, sata = run("--print-inputs", "fops"), run("--print-inputs", "fops,frontend=sata")
    (extra,) = [x for x in sata if x not in plain]
    assert extra.startswith("file frontend-sata.config "), extra
    assert sorted(sata) == sorted(plain + [extra]), sata
    assert run("--print-key", "fops") != run("--print-key", "fops,frontend=sata")
    # a cell on sata runs its pair's kernel with frontend=sata
    spec = {"name": "t", "pairs": [["base", "fops"]],
            "devices": [{"frontend": "sata"}, {"frontend": "sata", "libata_fua": "1"},
                        {"frontend": "nvme"}],
            "profiles": ["990pro"], "workloads": [{"name": "d", "test": "dsync"}]}
    cells = matrix.cells(expspec.check_experiment(spec, "t", base_dir=tmp))
    assert [(c["id"], c["kernel"]) for c in cells] == [
        ("d.990pro.sata.base", "base,frontend=sata"), ("d.990pro.sata.fops", "fops,frontend=sata"),
        ("d.990pro.sata-libata-fua.base", "base,frontend=sata"),
        ("d.990pro.sata-libata-fua.fops", "fops,frontend=sata"),
        ("d.990pro.nvme.base", "base"), ("d.990pro.nvme.fops", "fops")], cells
    cmd = matrix.guest_command(cells[2], 1)
    assert cmd[cmd.index("--device") + 1] == "sata" and "libata.fua=1" in cmd, cmd
    assert "fua:1" in cmd[cmd.index("--expect") + 1], cmd
    cmd = matrix.guest_command(cells[0], 1)
    assert "fua:0" in cmd[cmd.index("--expect") + 1] and "--kernel-arg" not in cmd, cmd
    # the default matrix runs sata only when --devices names it
    names = [devicespec.device_name(d) for d in matrix.default_matrix("base", "fops")["devices"]]
    assert "sata" not in names, names
    names = [devicespec.device_name(d) for d in
             matrix.default_matrix("base", "fops", devices=["sata-libata-fua"])["devices"]]
    assert names[-1] == "sata-libata-fua" and "sata" not in names, names
    spec["devices"] = [{"frontend": "nvme", "libata_fua": "1"}]
    try:
        expspec.check_experiment(spec, "t", base_dir=tmp)
        raise AssertionError("libata_fua on nvme was accepted")
    except SystemExit as e:
        assert "libata_fua applies to sata only" in str(e), e
    rg = os.path.join(ROOT, "scripts", "run-guest")
    p = subprocess.run([rg, "--check", "--kernel", "fops,frontend=nvme", "--device", "sata",
                        "dsync"], capture_output=True, text=True)
    assert p.returncode == 2 and "frontend=nvme: no guest-tests/kernel/frontend-nvme.config" \
        in p.stderr, p.stderr


def options(root, *probes, kind="frontend"):
    lib = os.path.join(ROOT, "guest-tests", "initramfs", "lib", "options.sh")
    return subprocess.run(["sh", "-c", f'. "{lib}"; options_root="$1"; shift; '
                           f'options_missing $(options_{kind} "$@")', "sh", root, *probes],
                          capture_output=True, text=True, check=True).stdout


def test_guest_fs_option_probes(tmp):
    # the guest's check before mkfs names the option a kernel lacks
    os.makedirs(os.path.join(tmp, "sys", "fs", "xfs"))
    assert options(tmp, "xfs", kind="fs") == ""
    assert options(tmp, "btrfs", kind="fs") == "CONFIG_BTRFS_FS"
    assert options(tmp, "ext4", kind="fs") == "CONFIG_EXT4_FS"
    os.makedirs(os.path.join(tmp, "sys", "fs", "btrfs"))
    assert options(tmp, "btrfs", kind="fs") == ""
    # a module is not built in: the initramfs carries no modules
    os.makedirs(os.path.join(tmp, "proc"))
    with gzip.open(os.path.join(tmp, "proc", "config.gz"), "wt") as f:
        f.write("CONFIG_XFS_FS=y\nCONFIG_BTRFS_FS=m\n")
    assert options(tmp, "btrfs", kind="fs") == "CONFIG_BTRFS_FS"
    assert options(tmp, "xfs", kind="fs") == ""


def test_guest_option_probes(tmp):
    for d in ("sys/bus/pci/drivers/virtio-pci", "sys/bus/virtio/drivers/virtio_blk"):
        os.makedirs(os.path.join(tmp, d))
    assert options(tmp, "virtio-blk") == ""
    assert options(tmp, "nvme") == "CONFIG_BLK_DEV_NVME"
    assert options(tmp, "scsi-hd") == "CONFIG_SCSI_VIRTIO CONFIG_BLK_DEV_SD"
    assert options(tmp, "sata") == "CONFIG_ATA CONFIG_SATA_AHCI CONFIG_BLK_DEV_SD"
    # /proc/config.gz, when there, is what counts
    os.makedirs(os.path.join(tmp, "proc"))
    with gzip.open(os.path.join(tmp, "proc", "config.gz"), "wt") as f:
        f.write("CONFIG_PCI=y\nCONFIG_VIRTIO_PCI=y\n# CONFIG_VIRTIO_BLK is not set\n")
    assert options(tmp, "virtio-blk") == "CONFIG_VIRTIO_BLK"


def test_compare_base_patched_sim_only(tmp):
    out = os.path.join(tmp, "out")
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", "--base", "base",
                        "--patched", "fops", "--devices", "nvme", "--sim-only", "--sim", SIM,
                        "--runtime", "0.5", "--out", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out, "report.json")) as f:
        doc = json.load(f)
    assert sorted(c["id"] for c in doc["cells"]) == [
        "rand.st20000nm007d.nvme.base", "rand.st20000nm007d.nvme.fops",
        "seq.st20000nm007d.nvme.base", "seq.st20000nm007d.nvme.fops"]
    assert doc["spec"]["pairs"] == [["base", "fops"]]
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "report", out],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def sim_policies(out):
    """{cell id: the sim's --policy, or its reason for no prediction}."""
    with open(os.path.join(out, "report.json")) as f:
        doc = json.load(f)
    return {c["id"]: (c["sim"]["command"].split("--policy ")[1].split()[0]
                      if c["sim"]["command"] else c["sim"]["no_prediction"])
            for c in doc["cells"]}


def compare_sim_only(tmp, out, *args):
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", *args,
                        "--workloads", "seq", "--sim-only", "--sim", SIM, "--runtime", "0.2",
                        "--out", os.path.join(tmp, out)], cwd=tmp, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(tmp, out, "report.md")) as f:
        return sim_policies(os.path.join(tmp, out)), p.stderr, f.read()


def test_sim_follows_what_kernels_declare(tmp):
    # a variant declares its behaviour in guest-tests/kernel/variants (fops
    # was predicted as base by --base/--patched before: nothing declared it)
    pol, _, _ = compare_sim_only(tmp, "v", "--base", "base", "--patched", "fops")
    assert pol == {"seq.st20000nm007d.nvme.base": "fua+flush",
                   "seq.st20000nm007d.nvme.fops": "fua",
                   "seq.st20000nm007d.scsi-hd-dpofua-on.base": "fua+flush",
                   "seq.st20000nm007d.scsi-hd-dpofua-on.fops": "fua",
                   "seq.st20000nm007d.virtio-blk.base": "fua-emulated",
                   "seq.st20000nm007d.virtio-blk.fops": "write+flush"}, pol
    # fops-broken keeps no flush for a write without FUA
    pol, _, _ = compare_sim_only(tmp, "b", "--base", "fops", "--patched", "fops-broken",
                                 "--devices", "virtio-blk")
    assert pol["seq.st20000nm007d.virtio-blk.fops-broken"] == "write", pol
    # a user's kernels declare nothing: no sim prediction, said so
    t = linux_like(tmp)
    trees = ("--base", f"tree:{t}@HEAD~", "--patched", f"tree:{t}@HEAD", "--devices", "nvme")
    pol, err, md = compare_sim_only(tmp, "t", *trees)
    assert all("declares nothing about its I/O path" in why for why in pol.values()), pol
    assert err.count("no sim prediction") == 2, err
    assert "- kernel tree:" in md and "declares: nothing platter can know (no sim " \
        "prediction)" in md and "| no sim prediction | no sim prediction |" in md, md
    # unless the user declares it
    pol, _, md = compare_sim_only(tmp, "d", *trees, "--base-declares", "none",
                                  "--patched-declares", "dsync_fua_no_flush")
    assert pol == {"seq.st20000nm007d.nvme.tree-linux-HEAD-": "fua+flush",
                   "seq.st20000nm007d.nvme.tree-linux-HEAD": "fua"}, pol
    assert "declares: dsync_fua_no_flush" in md, md
    # an experiment's "kernels" the same way, and a bad name is refused
    p = subprocess.run([os.path.join(ROOT, "scripts", "platter"), "compare", *trees,
                        "--patched-declares", "fua", "--sim-only", "--sim", SIM],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "argument --patched-declares: 'fua' is not one of none, " \
        "dsync_fua_no_flush" in p.stderr, p.stderr


tap.run([(name[5:], fn) for name, fn in sorted(globals().items())
         if name.startswith("test_")], with_tmpdir=True)
