// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmarking code execution time inside the kernel, see time_bench.h.
 *
 * Copyright (C) 2014, Red Hat, Inc., Jesper Dangaard Brouer
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "time_bench.h"

void time_bench_init(struct time_bench_record *rec, int step)
{
	memset(rec, 0, sizeof(*rec));
	rec->step = step;
}

/* Keep @cnt, @tsc, @time as the cheapest chunk if it has fewer cycles per element */
static void time_bench_min(struct time_bench_record *rec, u64 cnt, u64 tsc,
			   u64 time)
{
	u64 key = tsc, min_key = rec->min_tsc;

	/* Without a cycle counter (reads zero), rank chunks by time */
	if (!tsc && !rec->min_tsc) {
		key = time;
		min_key = rec->min_time;
	}
	/* key / cnt < min_key / min_cnt, without rounding */
	if (!cnt || (rec->min_cnt && key * rec->min_cnt >= min_key * cnt))
		return;
	rec->min_cnt = cnt;
	rec->min_tsc = tsc;
	rec->min_time = time;
}

/* Account a timed chunk of @cnt elements; called after the stop stamps */
void time_bench_chunk_done(struct time_bench_record *rec, u64 cnt, u64 tsc,
			   u64 time)
{
	rec->tsc_interval += tsc;
	rec->time_interval += time;
	rec->invoked_cnt += cnt;
	/* A short chunk would compete with fewer batched events */
	if (rec->min_len && cnt == rec->min_len) {
		rec->min_chunks++;
		time_bench_min(rec, cnt, tsc, time);
	}
}

/* Fold the accumulated measurement of @rec into @sum */
void time_bench_add(struct time_bench_record *sum,
		    const struct time_bench_record *rec)
{
	sum->invoked_cnt += rec->invoked_cnt;
	sum->tsc_interval += rec->tsc_interval;
	sum->time_interval += rec->time_interval;
	sum->min_chunks += rec->min_chunks;
	time_bench_min(sum, rec->min_cnt, rec->min_tsc, rec->min_time);
}

/* @val / @cnt as a quotient and three (truncated) decimals */
static void time_bench_per_elem(u64 val, u64 cnt, u64 *quotient, u64 *decimal)
{
	u64 rem;

	*quotient = div64_u64(val, cnt);
	rem = val - *quotient * cnt;
	/* rem < cnt, far below U64_MAX / 1000 for any element count here */
	*decimal = div64_u64(rem * 1000, cnt);
}

/* Derive the per element figures from the accumulated intervals */
int time_bench_calc_stats(struct time_bench_record *rec)
{
	u64 cnt = rec->invoked_cnt;

	if (!cnt) {
		pr_err("time_bench: nothing was measured\n");
		return -EINVAL;
	}
	if (!rec->time_interval) {
		pr_err("time_bench: measurement took zero time\n");
		return -EINVAL;
	}

	/* The cycle counter may not exist (reads zero) off x86 */
	time_bench_per_elem(rec->tsc_interval, cnt, &rec->cycles_quotient,
			    &rec->cycles_decimal);
	time_bench_per_elem(rec->time_interval, cnt, &rec->ns_per_call_quotient,
			    &rec->ns_per_call_decimal);
	if (rec->min_cnt) {
		time_bench_per_elem(rec->min_tsc, rec->min_cnt,
				    &rec->min_cycles_quotient,
				    &rec->min_cycles_decimal);
		time_bench_per_elem(rec->min_time, rec->min_cnt,
				    &rec->min_ns_quotient, &rec->min_ns_decimal);
	}

	rec->time_sec = div_u64_rem(rec->time_interval, NSEC_PER_SEC,
				    &rec->time_sec_remainder);
	return 0;
}

/*
 * Print a result in the format the original time_bench used, cycles now
 * with decimals as the nanoseconds; then, when the record kept one, the
 * cheapest full chunk on a line of its own, as a diagnostic.
 * @label is inserted after the type, e.g. "cpu:3".
 */
void time_bench_print(const char *type, const char *label,
		      const struct time_bench_record *rec)
{
	const char *sep = label ? " " : "";

	label = label ? label : "";
	pr_info("Type:%s%s%s Per elem: %llu.%03llu %s %llu.%03llu ns (step:%d) - (measurement period time:%llu.%09u sec time_interval:%llu) - (invoke count:%llu tsc_interval:%llu)\n",
		type, sep, label,
		rec->cycles_quotient, rec->cycles_decimal, TIME_BENCH_CYCLES,
		rec->ns_per_call_quotient, rec->ns_per_call_decimal,
		rec->step, rec->time_sec, rec->time_sec_remainder,
		rec->time_interval, rec->invoked_cnt, rec->tsc_interval);
	if (rec->min_cnt)
		pr_info("Chunk:%s%s%s cheapest of %llu full chunks of %llu: %llu.%03llu %s %llu.%03llu ns per element, without most batched work\n",
			type, sep, label, rec->min_chunks, rec->min_cnt,
			rec->min_cycles_quotient, rec->min_cycles_decimal,
			TIME_BENCH_CYCLES, rec->min_ns_quotient,
			rec->min_ns_decimal);
}
