// SPDX-License-Identifier: GPL-2.0-only
/*
 * Minimal helpers for timing loops of kernel code, see time_bench.h.
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

/* Fold the accumulated measurement of @rec into @sum */
void time_bench_add(struct time_bench_record *sum,
		    const struct time_bench_record *rec)
{
	sum->invoked_cnt += rec->invoked_cnt;
	sum->tsc_interval += rec->tsc_interval;
	sum->time_interval += rec->time_interval;
}

/* Derive the per element figures from the accumulated intervals */
int time_bench_calc_stats(struct time_bench_record *rec)
{
	u64 cnt = rec->invoked_cnt;
	u64 rem;

	if (!cnt) {
		pr_err("time_bench: nothing was measured\n");
		return -EINVAL;
	}
	if (!rec->time_interval) {
		pr_err("time_bench: measurement took zero time\n");
		return -EINVAL;
	}

	/* The cycle counter may not exist (reads zero) off x86 */
	rec->tsc_cycles = div64_u64(rec->tsc_interval, cnt);

	rec->ns_per_call_quotient = div64_u64(rec->time_interval, cnt);
	rem = rec->time_interval - rec->ns_per_call_quotient * cnt;
	/* rem < cnt <= U32_MAX * 10, so rem * 1000 cannot overflow */
	rec->ns_per_call_decimal = div64_u64(rem * 1000, cnt);

	rec->time_sec = div_u64_rem(rec->time_interval, NSEC_PER_SEC,
				    &rec->time_sec_remainder);
	return 0;
}

/*
 * Print a result in the format the original time_bench used, so existing
 * parsers keep working.  @label is inserted after the type, e.g. "cpu:3".
 */
void time_bench_print(const char *type, const char *label,
		      const struct time_bench_record *rec)
{
	pr_info("Type:%s%s%s Per elem: %llu cycles(tsc) %llu.%03llu ns (step:%d) - (measurement period time:%llu.%09u sec time_interval:%llu) - (invoke count:%llu tsc_interval:%llu)\n",
		type, label ? " " : "", label ? label : "",
		rec->tsc_cycles, rec->ns_per_call_quotient,
		rec->ns_per_call_decimal, rec->step, rec->time_sec,
		rec->time_sec_remainder, rec->time_interval,
		rec->invoked_cnt, rec->tsc_interval);
}
