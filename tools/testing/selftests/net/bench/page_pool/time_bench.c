// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmarking code execution time inside the kernel
 *
 * Copyright (C) 2014, Red Hat, Inc., Jesper Dangaard Brouer
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/module.h>
#include <linux/time.h>

#include "time_bench.h"

/** Generic functions **
 */

/* Calculate stats, store results in record */
bool time_bench_calc_stats(struct time_bench_record *rec)
{
	if (rec->invoked_cnt < 1000) {
		pr_err("ERR: need more(>1000) loops(%llu) for timing\n",
		       rec->invoked_cnt);
		return false;
	}
	if (rec->time_interval == 0) {
		pr_err("ABORT: timing took ZERO time\n");
		return false;
	}
	/*
	 * Exact 64-bit divisions, with three decimals.  get_cycles() is 0
	 * where an architecture has no counter (asm-generic/timex.h): the
	 * nanoseconds are the figure then.
	 */
	rec->tsc_cycles_milli = div64_u64(rec->tsc_interval * 1000,
					  rec->invoked_cnt);
	rec->ns_per_call_milli = div64_u64(rec->time_interval * 1000,
					   rec->invoked_cnt);
	return true;
}

void time_bench_print(const char *txt, struct time_bench_record *rec)
{
	u32 rem, cyc_rem, ns_rem;
	/* div_u64_rem(): 32-bit architectures link no 64-bit division */
	u64 sec = div_u64_rem(rec->time_interval, NSEC_PER_SEC, &rem);
	u64 cyc = div_u64_rem(rec->tsc_cycles_milli, 1000, &cyc_rem);
	u64 ns = div_u64_rem(rec->ns_per_call_milli, 1000, &ns_rem);
	char cycles[32] = "n/a";

	/* Cycles are the TSC's on x86, the architecture's counter's ticks
	 * elsewhere (see time_bench_cycles()), none where it is 0
	 */
	if (rec->tsc_interval)
		snprintf(cycles, sizeof(cycles), "%llu.%03u", cyc, cyc_rem);
	pr_info("Type:%s Per elem: %s cycles(%s) %llu.%03u ns (step:%d) - (measurement period time:%llu.%09u sec time_interval:%llu) - (invoke count:%llu tsc_interval:%llu)\n",
		txt, cycles, !rec->tsc_interval ? "none" :
		IS_ENABLED(CONFIG_X86) ? "tsc" : "ticks",
		ns, ns_rem, rec->step, sec, rem,
		rec->time_interval, rec->invoked_cnt, rec->tsc_interval);
}

/* Generic function for invoking a loop function and calculating
 * execution time stats.  The function being called/timed is assumed
 * to perform a tight loop, and update the timing record struct.
 */
bool time_bench_loop(uint32_t loops, int step, const char *txt, void *data,
		     int (*func)(struct time_bench_record *record, void *data))
{
	struct time_bench_record rec = { .loops = loops, .step = step };

	/*** Loop function being timed ***/
	if (!func(&rec, data)) {
		pr_err("ABORT: function being timed failed\n");
		return false;
	}

	if (rec.invoked_cnt < loops)
		pr_warn("WARNING: Invoke count(%llu) smaller than loops(%u)\n",
			rec.invoked_cnt, loops);

	/* Calculate stats */
	if (!time_bench_calc_stats(&rec))
		return false;
	time_bench_print(txt, &rec);
	return true;
}
