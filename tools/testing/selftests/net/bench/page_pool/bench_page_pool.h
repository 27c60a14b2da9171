/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of bench_page_pool.ko share */
#ifndef _BENCH_PAGE_POOL_H
#define _BENCH_PAGE_POOL_H

#include <linux/types.h>

#include "time_bench.h"

struct page_pool;

/* Where the pages a test returns go */
enum pp_path {
	PP_FAST,	/* recycle direct into the alloc cache */
	PP_RING,	/* normal return into the ptr_ring */
	PP_SLOW,	/* page not recyclable, back to the page allocator */
};

#define PP_PATH_NR	(PP_SLOW + 1)

/* page_pool's allocation counters, as struct page_pool_alloc_stats names them */
enum pp_alloc {
	PP_ALLOC_FAST,		/* handed out from the alloc cache */
	PP_ALLOC_REFILL,	/* the cache refilled from the ptr_ring */
	PP_ALLOC_SLOW,		/* a bulk allocation from the page allocator */
	PP_ALLOC_EMPTY,		/* the ptr_ring was empty at a refill */
	PP_ALLOC_NR,
};

/*
 * page_pool's statistics, read with page_pool_get_stats() when the kernel
 * keeps them (CONFIG_PAGE_POOL_STATS): the module reads no field of
 * struct page_pool, which is no interface.
 */
struct pp_recycle_cnt {
	bool valid;
	u64 path[PP_PATH_NR];	/* recycled or released */
	u64 ring_full;
	u64 alloc[PP_ALLOC_NR];
};

/* Counters of one test (or cross-CPU row), summed over its runs */
struct pp_path_acc {
	struct pp_recycle_cnt cnt;
	u64 returned;		/* pages the test returned, by its own count */
};

/* bench_page_pool_simple.c */
bool bench_aborted(void);
int bench_report(const char *type, const char *label,
		 struct time_bench_record *rec);
void pp_recycle_cnt_read(struct page_pool *pp, struct pp_recycle_cnt *c);
void pp_path_sum_add(struct pp_path_acc *acc,
		     const struct pp_recycle_cnt *before,
		     const struct pp_recycle_cnt *after, u64 returned);
void pp_path_print(const char *type, enum pp_path path,
		   const struct pp_path_acc *acc);
int pp_check_path(const char *type, enum pp_path path, u64 returned,
		  u64 need, const struct pp_recycle_cnt *before,
		  const struct pp_recycle_cnt *after);

/* bench_page_pool_cross_cpu.c */
int bench_cross_cpu_run(const char *name, const char *label, u64 loops,
			int cpu, unsigned int returning_cpus, bool verbose);

#endif /* _BENCH_PAGE_POOL_H */
