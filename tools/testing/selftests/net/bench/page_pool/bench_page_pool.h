/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of bench_page_pool.ko share */
#ifndef _BENCH_PAGE_POOL_H
#define _BENCH_PAGE_POOL_H

#include <linux/types.h>

#include "time_bench.h"

/* bench_page_pool_simple.c */
bool bench_aborted(void);
int bench_report(const char *type, const char *label,
		 struct time_bench_record *rec);

/* bench_page_pool_cross_cpu.c */
int bench_cross_cpu_run(const char *name, const char *label, u64 loops,
			int cpu, unsigned int returning_cpus, bool verbose);

#endif /* _BENCH_PAGE_POOL_H */
