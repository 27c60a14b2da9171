/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Benchmarking code execution time inside the kernel
 *
 * Copyright (C) 2014, Red Hat, Inc., Jesper Dangaard Brouer
 *  for licensing details see kernel-base/COPYING
 */
#ifndef _LINUX_TIME_BENCH_H
#define _LINUX_TIME_BENCH_H

#include <linux/timekeeping.h>
#include <linux/types.h>
#include <asm/timex.h>

/* Main structure used for recording a benchmark run */
struct time_bench_record {
	uint32_t loops;		/* Requested loop invocations */
	uint32_t step;		/* option for e.g. bulk invocations */

	/* Records, summed over the timed sections */
	uint64_t invoked_cnt;	/* Returned actual invocations */
	uint64_t tsc_start;
	uint64_t tsc_interval;
	uint64_t time_start;
	uint64_t time_interval; /* in nanosec */

	/* Derived result records, per invocation in thousandths */
	uint64_t tsc_cycles_milli;
	uint64_t ns_per_call_milli;
};

/*
 * The cycle counter: the TSC read in order with the code around it on
 * x86 (rdtsc_ordered(), as the kernel's own timekeeping reads it), the
 * architecture's counter elsewhere (get_cycles(): the generic timer on
 * arm64, whose rate is not the CPU's clock).
 */
static __always_inline uint64_t time_bench_cycles(void)
{
#ifdef CONFIG_X86_TSC
	return rdtsc_ordered();
#else
	return get_cycles();
#endif
}

/** Generic functions **
 */
bool time_bench_loop(uint32_t loops, int step, const char *txt, void *data,
		     int (*func)(struct time_bench_record *rec, void *data));
bool time_bench_calc_stats(struct time_bench_record *rec);
void time_bench_print(const char *txt, struct time_bench_record *rec);

/*
 * A record may time several sections: each start/stop pair adds its
 * cycles, nanoseconds and invocations.
 */
static __always_inline void time_bench_start(struct time_bench_record *rec)
{
	rec->time_start = ktime_get_ns();
	rec->tsc_start = time_bench_cycles();
}

static __always_inline void time_bench_stop(struct time_bench_record *rec,
					    uint64_t invoked_cnt)
{
	rec->tsc_interval += time_bench_cycles() - rec->tsc_start;
	rec->time_interval += ktime_get_ns() - rec->time_start;
	rec->invoked_cnt += invoked_cnt;
}

#endif /* _LINUX_TIME_BENCH_H */
