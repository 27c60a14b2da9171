/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Benchmarking code execution time inside the kernel
 *
 * Copyright (C) 2014, Red Hat, Inc., Jesper Dangaard Brouer
 *
 * A record accumulates the cycles, nanoseconds and element count of one
 * or more timed chunks, so a long measurement can be split into short
 * chunks (with rescheduling or a softirq exit in between) without
 * counting the time spent outside the chunks.
 *
 * It also keeps the chunk with the fewest cycles per element: that chunk
 * saw no interrupt and none of the occasional slow work (a refill or
 * flush of a per-CPU list) that the mean spreads over all elements.
 * Where cycles count instructions (QEMU -icount), this minimum repeats
 * exactly from boot to boot while the mean varies with such events.
 */
#ifndef _BENCH_TIME_BENCH_H
#define _BENCH_TIME_BENCH_H

#include <linux/compiler.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>
#include <linux/types.h>

struct time_bench_record {
	/* Accumulated over all timed chunks */
	u64 invoked_cnt;	/* elements processed */
	u64 tsc_interval;	/* cycles */
	u64 time_interval;	/* nanoseconds */
	int step;		/* bulk size or similar, printed only */

	/* Start stamps of the chunk being timed */
	u64 tsc_start;
	u64 time_start;

	/* The chunk with the fewest cycles per element */
	u64 min_cnt;		/* its elements, 0 before the first chunk */
	u64 min_tsc;		/* its cycles */
	u64 min_time;		/* its nanoseconds */

	/* Derived by time_bench_calc_stats(): per element, with 3 decimals */
	u64 cycles_quotient;
	u64 cycles_decimal;
	u64 ns_per_call_quotient;
	u64 ns_per_call_decimal;
	u64 time_sec;
	u32 time_sec_remainder;
	u64 min_cycles_quotient;	/* in the minimum chunk */
	u64 min_cycles_decimal;
	u64 min_ns_quotient;
	u64 min_ns_decimal;
};

/*
 * Cycle counter.  On x86 this is the TSC read with rdtsc_ordered(), which
 * orders the read against the surrounding instructions.  Elsewhere it is
 * get_cycles(), which may tick at another rate than the CPU or even read
 * as zero; the nanosecond figures are the comparable ones there.
 */
#ifdef CONFIG_X86_TSC
#define TIME_BENCH_CYCLES	"cycles(tsc)"
#else
#define TIME_BENCH_CYCLES	"cycles(get_cycles)"
#endif

/*
 * The counter behind the cycles, for the run's header: the TSC at tsc_khz;
 * on arm64 the generic timer at CNTFRQ_EL0 as firmware set it, tens of MHz
 * or 1 GHz whatever the CPU clock; elsewhere at a rate not known here (0).
 */
#if defined(CONFIG_X86_TSC)
#define TIME_BENCH_COUNTER	"tsc"
#elif defined(CONFIG_ARM64)
#define TIME_BENCH_COUNTER	"arch_timer"
#else
#define TIME_BENCH_COUNTER	"get_cycles"
#endif

static inline u64 time_bench_counter_hz(void)
{
#if defined(CONFIG_X86_TSC)
	return (u64)tsc_khz * 1000;
#elif defined(CONFIG_ARM64)
	return arch_timer_get_cntfrq();
#else
	return 0;
#endif
}

static __always_inline u64 time_bench_cycles(void)
{
#ifdef CONFIG_X86_TSC
	return rdtsc_ordered();
#else
	return get_cycles();
#endif
}

static __always_inline void time_bench_start(struct time_bench_record *rec)
{
	rec->time_start = ktime_get_ns();
	rec->tsc_start = time_bench_cycles();
}

void time_bench_chunk_done(struct time_bench_record *rec, u64 cnt, u64 tsc,
			   u64 time);

static __always_inline void time_bench_stop(struct time_bench_record *rec,
					    u64 invoked_cnt)
{
	u64 tsc_stop = time_bench_cycles();
	u64 time_stop = ktime_get_ns();

	time_bench_chunk_done(rec, invoked_cnt, tsc_stop - rec->tsc_start,
			      time_stop - rec->time_start);
}

void time_bench_init(struct time_bench_record *rec, int step);
void time_bench_add(struct time_bench_record *sum,
		    const struct time_bench_record *rec);
int time_bench_calc_stats(struct time_bench_record *rec);
void time_bench_print(const char *type, const char *label,
		      const struct time_bench_record *rec);

#endif /* _BENCH_TIME_BENCH_H */
