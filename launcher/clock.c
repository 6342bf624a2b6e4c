/*
 * clock.c - the launcher's two clocks: the monotonic time every deadline
 * is counted in (ms), and a dead process's CPU time as the kernel counts
 * it against RLIMIT_CPU (us).  Used by the supervisor, the sinks, the
 * status writer, audit and learn.
 */
#include <stdint.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "cordon.h"

uint64_t clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The CPU time of a process that has exited and is not reaped yet, as
 * the kernel counts it against RLIMIT_CPU: its PROF clock (user plus
 * system, the tick-based sample the kernel compares with the limits; its
 * own, not its children's).  Its rusage is the precise time, which is
 * less on a loaded machine (seen: 722 ms where the kernel counted 1002
 * and sent SIGXCPU for a 1 s limit), and wait4's adds the children it
 * reaped.  0 when the clock cannot be read.  Through syscall(2), as
 * clock_gettime would be for this clock (not the vDSO's): a warm run's
 * init calls it after its shed (initend.c), when syscall(2) is all it
 * may use. */
uint64_t clock_cpu_us(pid_t pid)
{
	/* MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_PROF): ~pid << 3 | 0 */
	clockid_t c = (clockid_t)((~(unsigned int)pid) << 3);
	struct timespec ts;

	if (syscall(SYS_clock_gettime, c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
