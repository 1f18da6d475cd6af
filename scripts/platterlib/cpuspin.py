"""The run-guest command of one cpu-spin boot (guest-tests/src/cpu-spin.c),
shared by scripts/test-smp-time and scripts/bench-smp.

The guest's disk is the hddmodel drive with the ideal profile, which
completes on the virtual clock: a host-AIO backend would let host I/O
timing into the guest (its boot-time partition scan), and two runs would
differ for that alone."""
import os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PROFILE = os.path.join(ROOT, "hw-model", "profiles", "ideal.profile")


def command(image, smp, ipns, threads, iters, mutex=False, quantum=None, timeout=900,
            chain_rounds=True, cpu=None, shared_counter=False):
    """run-guest argv; image is a sparse file of at least 1 GiB.  cpu: a CPU
    profile (run-guest --cpu; it gives the instructions per ns, so ipns is
    not passed with it)."""
    cmd = [os.path.join(ROOT, "scripts", "run-guest"), "--timeout", str(timeout),
           "--smp", str(smp), "--mem", "256M",
           "--drive-opts", f"driver=hddmodel,profile={PROFILE},file={image}"]
    cmd += ["--cpu", cpu] if cpu else ["--ipns", str(ipns)]
    if quantum is not None:
        cmd += ["--quantum", str(quantum)]
    if not chain_rounds:
        cmd += ["--chain-rounds", "off"]
    cmd += ["cpu-spin", "--", "--threads", str(threads), "--iters", str(iters)]
    if mutex:
        cmd.append("--mutex")
    if shared_counter:
        cmd.append("--shared-counter")
    return cmd
