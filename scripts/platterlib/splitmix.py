"""splitmix64, the generator every seeded choice of platter's tooling
draws from (the drive's own power-cut-seed is hw-model's hwm_splitmix64,
the same function): the same seed, the same cuts and crash states, on
any machine."""

MASK64 = (1 << 64) - 1


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)
