/*
 * Cache-line ownership between vCPUs under lockstep SMP time (platter):
 * what icount-common.c asks of icount-coherence.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ICOUNT_COHERENCE_H
#define ICOUNT_COHERENCE_H

/*
 * @cpu did a locked read-modify-write at guest physical address @paddr
 * (virtual @vaddr, the instruction at @pc) at @at on its own clock (in
 * instructions).  Returns the wait the line's last replay predicts, which
 * the caller charges now (0: none).
 */
int64_t icount_coherence_log(CPUState *cpu, uint64_t paddr, uint64_t vaddr,
                             uint64_t pc, int64_t at);

/* has the round logged so many accesses that they must be replayed now? */
bool icount_coherence_log_full(void);

/*
 * The round has ended (called before the next one starts, with the BQL
 * held): replay its accesses in the order of the vCPUs' clocks, each
 * transfer of a line taking @charge instructions' worth of time while the
 * line is busy, and call @owe for each vCPU that took lines from others
 * or was charged a predicted wait: how many transfers, and the
 * instructions it waited beyond what it was charged (negative: short).
 */
void icount_coherence_round_end(int64_t charge,
                                void (*owe)(CPUState *cpu, uint64_t transfers,
                                            int64_t insns));

/*
 * Print the totals and the lines that moved most on @f, with the
 * instructions their transfers cost the vCPUs (waits included):
 *   icount-coherence lines=N transfers=N evictions=N
 *   icount-coherence-line rank=R paddr=0x.. vaddr=0x.. pc=0x.. cpus=0x..
 *       transfers=N waited_insns=N
 */
void icount_coherence_report(FILE *f);

#endif
