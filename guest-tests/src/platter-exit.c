/* platter-exit CODE: end the QEMU run with an exit status derived from CODE
 * by writing it to QEMU's isa-debug-exit port (0xf4, 1 byte; QEMU then
 * exits with status (CODE << 1) | 1). This is the one way out of the guest
 * that carries the test's status to the host without ACPI or a reboot
 * race. If the device is absent the write has no effect and the caller
 * falls back to poweroff -f. */
#include <stdio.h>
#include <sys/io.h>
#include <termios.h>
#include <unistd.h>

#include "parse.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: platter-exit CODE (0..127)\n");
        return 2;
    }
    /* anything but 0..127 (atoi() made "x" a 0, a pass) is 127, a failure */
    uint64_t code;
    if (parse_u64(argv[1], &code) || code > 127)
        code = 127;
    /*
     * The result the caller just echoed may still sit in the console's tty
     * and UART buffers: QEMU exits at the port write, and the host would
     * read a cut result.  Each byte out is a port access, and with a CPU
     * profile that charges them (run-guest --cpu) the last few KiB took
     * longer than the caller's sync: a 16-job fio result ended mid-line.
     * (Not a terminal: nothing to wait for.)
     */
    tcdrain(STDOUT_FILENO);
    if (ioperm(0xf4, 1, 1) != 0) {
        perror("platter-exit: ioperm");
        return 1;
    }
    outb((unsigned char)code, 0xf4);
    /* Still here: no isa-debug-exit device. */
    return 1;
}
