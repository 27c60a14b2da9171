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
 * The figure is the mean over all chunks.  As a diagnostic a record can
 * also keep the cheapest of its full chunks of min_len elements: a chunk
 * that saw no interrupt and fewer of the batched events the mean spreads
 * over all elements (page_pool's refills, the page allocator's per-CPU
 * list refills and flushes).  It leaves their cost out: a change to that
 * batched work does not show in it, and it falls with more chunks.
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

	/* The full chunk with the fewest cycles per element (diagnostic) */
	u64 min_len;		/* elements of a full chunk, 0: keep none */
	u64 min_chunks;		/* full chunks seen */
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
