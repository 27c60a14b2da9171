// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark module for page_pool.
 *
 * Derived from Jesper Dangaard Brouer's bench_page_pool_simple and
 * bench_page_pool_cross_cpu (github.com/netoptimizer/prototype-kernel);
 * chunked timing, the softirq, cross-CPU and path checks added in 2026.
 *
 * All selected tests run from module init, each result is printed as a
 * "Type:<name> Per elem: ..." line between a start and an end marker that
 * carry the "tag" parameter.  Init fails with -EIO when a test failed and
 * with -EINTR when a signal to the loading process stopped the run.
 *
 * Measurements are split into chunks of "chunk" elements.  Process
 * context reschedules between chunks, softirq tests run each chunk as one
 * BH work item, so no loop length can trigger a soft lockup or RCU stall
 * report.  Only the chunks are timed.  The figure is the mean over all
 * of them; a "Chunk:" line after each result gives the cheapest full
 * chunk as a diagnostic (see time_bench.h), which leaves out most of the
 * batched work the mean includes.
 *
 * With repeat=R the selected tests run in R rounds, each test once per
 * round, each run printing its own Type: line with a "rep:i/R" label after
 * the type name, so that the spread of the figures can be judged.  Rounds
 * rather than R runs in a row: a drift of the machine over time (clock,
 * other load, the page allocator's state) then spreads over the
 * repetitions of every test instead of shifting one test's figures.
 *
 * tasklet_page_pool04_napi_local returns the pages with allow_direct=false,
 * as the stack does when it frees an skb, to a pool created for the test
 * CPU with page_pool_create_percpu(): in softirq context on that CPU
 * page_pool_napi_local() puts them into the direct cache, as for a pool
 * bound to the NAPI instance that frees them (Dragos Tatulea's 2025 RFC
 * measured the same path as "napi_aware").
 *
 * When the kernel keeps page_pool statistics (CONFIG_PAGE_POOL_STATS),
 * each page_pool test checks with page_pool_get_stats() that every page
 * took the path it names and prints, summed over its repetitions, a
 * "Path:<name>" line with the allocation and recycling counters; otherwise
 * that line says the path was not checked.
 *
 * The tests run in a kernel thread bound to one CPU, "cpu" or else the
 * first online CPU the loading process may run on (so taskset chooses it),
 * and the start line says which.  CPU hotplug waits while a test runs;
 * a test whose CPU went offline between tests fails.
 *
 * Example, fast path in softirq only, on CPU 2, 5 repetitions:
 *   insmod bench_page_pool.ko run_flags=0x10 cpu=2 repeat=5
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string_choices.h>
#include <linux/workqueue.h>
#include <net/page_pool/helpers.h>

#include "bench_page_pool.h"

#define BENCH_LOOPS_MIN		1000	/* time_bench needs this many */
#define BENCH_LOOPS_DEFAULT	500000
/* Chunks hold whole alloc cache refills: PP_ALLOC_CACHE_REFILL divides them */
#define BENCH_CHUNK_MIN		PP_ALLOC_CACHE_REFILL
#define BENCH_CHUNK_DEFAULT	8192	/* elements per timed chunk */
#define BENCH_CHUNK_MAX		65536
#define BENCH_POOL_SIZE		1024
#define BENCH_WARMUP_PAGES	64
#define BENCH_TAG_MAX		32
#define BENCH_REPEAT_MAX	1000
#define BENCH_LABEL_MAX		32

/* Bits of run_flags, keep MODULE_PARM_DESC(run_flags) in sync */
enum bench_bit {
	BENCH_BIT_BASELINE,	/* 0x01 for_loop, atomic_inc, lock */
	BENCH_BIT_PROC_FAST,	/* 0x02 no-softirq-page_pool01 */
	BENCH_BIT_PROC_RING,	/* 0x04 no-softirq-page_pool02 */
	BENCH_BIT_PROC_SLOW,	/* 0x08 no-softirq-page_pool03 */
	BENCH_BIT_BH_FAST,	/* 0x10 tasklet_page_pool01_fast_path */
	BENCH_BIT_BH_RING,	/* 0x20 tasklet_page_pool02_ptr_ring */
	BENCH_BIT_BH_SLOW,	/* 0x40 tasklet_page_pool03_slow */
	BENCH_BIT_CROSS_CPU,	/* 0x80 cross_cpu_return */
	BENCH_BIT_BH_NAPI,	/* 0x100 tasklet_page_pool04_napi_local */
	BENCH_BIT_NR,
};

#define BENCH_FLAGS_ALL		(BIT(BENCH_BIT_NR) - 1)

static unsigned long loops = BENCH_LOOPS_DEFAULT;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops,
		 "Elements per test, 1000..4294967295 (default 500000); for_loop and atomic_inc run 10x, cross_cpu_return hands out this many pages per returning CPU");

static unsigned long run_flags = BENCH_FLAGS_ALL;
module_param(run_flags, ulong, 0444);
MODULE_PARM_DESC(run_flags,
		 "Bit mask of tests (default 0x1ff): 0x01 baselines for_loop, atomic_inc, lock; 0x02 no-softirq-page_pool01 fast path; 0x04 no-softirq-page_pool02 ptr_ring; 0x08 no-softirq-page_pool03 slow path; 0x10 tasklet_page_pool01_fast_path; 0x20 tasklet_page_pool02_ptr_ring; 0x40 tasklet_page_pool03_slow; 0x80 cross_cpu_return; 0x100 tasklet_page_pool04_napi_local");

static unsigned int repeat = 1;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat,
		 "Rounds of the selected tests, each test once per round, 1..1000 (default 1); with more than 1 each result line carries a rep:i/R label");

static unsigned int chunk = BENCH_CHUNK_DEFAULT;
module_param(chunk, uint, 0444);
MODULE_PARM_DESC(chunk,
		 "Elements per timed chunk, a multiple of page_pool's alloc cache refill (64 with 4K pages) up to 65536 (default 8192); rescheduling or a softirq exit happens between chunks");

static unsigned int returning_cpus;
module_param(returning_cpus, uint, 0444);
MODULE_PARM_DESC(returning_cpus,
		 "cross_cpu_return measures 1..returning_cpus CPUs returning pages concurrently, at most online CPUs - 1; 0 = up to 4 (default), skipped on one CPU");

static int bench_cpu = -1;
module_param_named(cpu, bench_cpu, int, 0444);
MODULE_PARM_DESC(cpu,
		 "CPU the tests run on and cross_cpu_return allocates on, -1 = the first online CPU the loading process may run on (default -1)");

static bool verbose;
module_param(verbose, bool, 0444);
MODULE_PARM_DESC(verbose, "Print setup details and page_pool statistics");

static char *tag;
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag,
		 "Up to 32 characters [A-Za-z0-9._-] echoed in the run start and end lines");

/* Set when the loading process got a fatal signal: stop between chunks */
static bool bench_stop;
static struct completion bench_done;
static unsigned int bench_ran, bench_failed;

bool bench_aborted(void)
{
	return READ_ONCE(bench_stop);
}

static const char *bench_tag(void)
{
	return tag ? tag : "-";
}

/* One timed chunk of @n elements, accumulated into @rec */
typedef int (*bench_chunk_fn)(void *arg, u32 n, struct time_bench_record *rec);

/* Run @total elements in process context, rescheduling between chunks */
static int bench_run_chunks(bench_chunk_fn fn, void *arg, u64 total,
			    struct time_bench_record *rec)
{
	rec->min_len = chunk;
	while (rec->invoked_cnt < total) {
		u32 n = min_t(u64, total - rec->invoked_cnt, chunk);
		int err;

		if (bench_aborted())
			return -EINTR;
		err = fn(arg, n, rec);
		if (err)
			return err;
		cond_resched();
	}
	return 0;
}

struct bench_bh_work {
	struct work_struct work;
	bench_chunk_fn fn;
	void *arg;
	u32 n;
	struct time_bench_record *rec;
	int err;
};

static void bench_bh_work_fn(struct work_struct *work)
{
	struct bench_bh_work *w = container_of(work, struct bench_bh_work, work);

	if (!in_serving_softirq()) {
		pr_err("BH work item not running in softirq context\n");
		w->err = -EINVAL;
		return;
	}
	w->err = w->fn(w->arg, w->n, w->rec);
}

/*
 * Run @total elements in softirq context on the test CPU: each chunk is
 * one work item on its BH workqueue, waited for before the next is queued.
 */
static int bench_run_chunks_bh(bench_chunk_fn fn, void *arg, u64 total,
			       struct time_bench_record *rec)
{
	struct bench_bh_work w = { .fn = fn, .arg = arg, .rec = rec };
	int err = 0;

	rec->min_len = chunk;
	INIT_WORK_ONSTACK(&w.work, bench_bh_work_fn);
	while (rec->invoked_cnt < total) {
		if (bench_aborted()) {
			err = -EINTR;
			break;
		}
		w.n = min_t(u64, total - rec->invoked_cnt, chunk);
		w.err = 0;
		queue_work_on(bench_cpu, system_bh_wq, &w.work);
		flush_work(&w.work);
		err = w.err;
		if (err)
			break;
		cond_resched();
	}
	destroy_work_on_stack(&w.work);
	return err;
}

/*
 * Keep the test CPU online while a test runs there (its BH work is queued
 * there); fails when it went offline since the load, which unbound the
 * benchmark thread from it for good.  bench_cpu_put() ends the hold.
 */
static int bench_cpu_hold(const char *type)
{
	cpus_read_lock();
	if (cpu_online(bench_cpu) &&
	    cpumask_equal(current->cpus_ptr, cpumask_of(bench_cpu)))
		return 0;
	cpus_read_unlock();
	pr_err("Type:%s CPU %d went offline during the run\n", type, bench_cpu);
	return -ENODEV;
}

static void bench_cpu_put(void)
{
	cpus_read_unlock();
}

int bench_report(const char *type, const char *label,
		 struct time_bench_record *rec)
{
	int err = time_bench_calc_stats(rec);

	if (!err)
		time_bench_print(type, label, rec);
	return err;
}

/* Baselines: the cost of the loop itself, of an atomic op and of a lock */

static int bl_for_loop(void *arg, u32 n, struct time_bench_record *rec)
{
	u64 cnt = 0;
	u32 i;

	time_bench_start(rec);
	for (i = 0; i < n; i++) {
		cnt++;
		barrier(); /* keep the compiler from removing the loop */
	}
	time_bench_stop(rec, cnt);
	return 0;
}

static int bl_atomic_inc(void *arg, u32 n, struct time_bench_record *rec)
{
	atomic_t cnt = ATOMIC_INIT(0);
	u32 i;

	time_bench_start(rec);
	for (i = 0; i < n; i++) {
		atomic_inc(&cnt);
		barrier();
	}
	time_bench_stop(rec, atomic_read(&cnt));
	return 0;
}

/* page_pool's ptr_ring takes a spinlock per returned page */
static int bl_lock(void *arg, u32 n, struct time_bench_record *rec)
{
	spinlock_t lock; /* private, never contended */
	u64 cnt = 0;
	u32 i;

	spin_lock_init(&lock);
	time_bench_start(rec);
	for (i = 0; i < n; i++) {
		spin_lock(&lock);
		cnt++;
		barrier();
		spin_unlock(&lock);
	}
	time_bench_stop(rec, cnt);
	return 0;
}

/* page_pool tests: one alloc and one return per element */

static const char * const pp_path_name[] = {
	[PP_FAST] = "alloc cache",
	[PP_RING] = "ptr_ring",
	[PP_SLOW] = "page allocator",
};

/* The recycle counter of each path, as named in the Path: line */
static const char * const pp_path_key[] = {
	[PP_FAST] = "cached",
	[PP_RING] = "ring",
	[PP_SLOW] = "released",
};

struct pp_bench {
	struct page_pool *pp;
	enum pp_path path;
};

static __always_inline int pp_loop(struct page_pool *pp,
				   const enum pp_path path, u32 n,
				   struct time_bench_record *rec)
{
	struct page *page;
	u32 i;

	time_bench_start(rec);
	for (i = 0; i < n; i++) {
		page = page_pool_alloc_pages(pp, GFP_ATOMIC);
		if (unlikely(!page))
			break;

		switch (path) {
		case PP_FAST:
			page_pool_recycle_direct(pp, page);
			break;
		case PP_RING:
			page_pool_put_full_page(pp, page, false);
			break;
		case PP_SLOW:
			/* An extra reference makes the page non-recyclable */
			get_page(page);
			page_pool_put_full_page(pp, page, false);
			put_page(page);
			break;
		}
	}
	time_bench_stop(rec, i);
	return i == n ? 0 : -ENOMEM;
}

/* Instantiate pp_loop() per path, so the loops carry no branch on it */
static int pp_chunk(void *arg, u32 n, struct time_bench_record *rec)
{
	struct pp_bench *b = arg;

	switch (b->path) {
	case PP_FAST:
		return pp_loop(b->pp, PP_FAST, n, rec);
	case PP_RING:
		return pp_loop(b->pp, PP_RING, n, rec);
	case PP_SLOW:
		return pp_loop(b->pp, PP_SLOW, n, rec);
	}
	return -EINVAL;
}

/* The accumulator of the test being run */
static struct pp_path_acc *pp_acc;

/* Add to @acc the counters of a run that returned @returned pages */
void pp_path_sum_add(struct pp_path_acc *acc,
		     const struct pp_recycle_cnt *before,
		     const struct pp_recycle_cnt *after, u64 returned)
{
	struct pp_recycle_cnt *s = &acc->cnt;
	unsigned int i;

	if (!before->valid || !after->valid)
		return;
	s->valid = true;
	for (i = 0; i < ARRAY_SIZE(s->path); i++)
		s->path[i] += after->path[i] - before->path[i];
	for (i = 0; i < PP_ALLOC_NR; i++)
		s->alloc[i] += after->alloc[i] - before->alloc[i];
	s->ring_full += after->ring_full - before->ring_full;
	acc->returned += returned;
}

/*
 * One line per page_pool test or cross-CPU row: the share of the returned
 * pages that took the expected path, and page_pool's counters.  A refill
 * or a slow allocation is one event that brings up to
 * PP_ALLOC_CACHE_REFILL pages.
 */
void pp_path_print(const char *type, enum pp_path path,
		   const struct pp_path_acc *acc)
{
	const struct pp_recycle_cnt *s = &acc->cnt;
	u32 bp = 0;	/* basis points */

	if (!s->valid) {
		pr_info("Path:%s expect:%s not checked: %s\n", type,
			pp_path_key[path],
			IS_ENABLED(CONFIG_PAGE_POOL_STATS) ?
			"the test stopped before its counters were read" :
			"CONFIG_PAGE_POOL_STATS off");
		return;
	}
	if (acc->returned)
		bp = min_t(u64, div64_u64(s->path[path] * 10000, acc->returned),
			   U32_MAX);
	pr_info("Path:%s expect:%s %u.%02u%% of returned:%llu alloc fast:%llu refill:%llu slow:%llu empty:%llu recycle cached:%llu ring:%llu released:%llu ring_full:%llu\n",
		type, pp_path_key[path], bp / 100, bp % 100, acc->returned,
		s->alloc[PP_ALLOC_FAST], s->alloc[PP_ALLOC_REFILL],
		s->alloc[PP_ALLOC_SLOW], s->alloc[PP_ALLOC_EMPTY],
		s->path[PP_FAST], s->path[PP_RING], s->path[PP_SLOW],
		s->ring_full);
}

void pp_recycle_cnt_read(struct page_pool *pp, struct pp_recycle_cnt *c)
{
	memset(c, 0, sizeof(*c));
#ifdef CONFIG_PAGE_POOL_STATS
	{
		struct page_pool_stats stats = {};

		page_pool_get_stats(pp, &stats);
		c->valid = true;
		c->path[PP_FAST] = stats.recycle_stats.cached;
		c->path[PP_RING] = stats.recycle_stats.ring;
		c->path[PP_SLOW] = stats.recycle_stats.released_refcnt;
		c->ring_full = stats.recycle_stats.ring_full;
		c->alloc[PP_ALLOC_FAST] = stats.alloc_stats.fast;
		c->alloc[PP_ALLOC_REFILL] = stats.alloc_stats.refill;
		c->alloc[PP_ALLOC_SLOW] = stats.alloc_stats.slow;
		c->alloc[PP_ALLOC_EMPTY] = stats.alloc_stats.empty;
	}
#endif
}

/*
 * Check with the page_pool statistics that at least @need of the
 * @returned pages took @path
 */
int pp_check_path(const char *type, enum pp_path path, u64 returned,
		  u64 need, const struct pp_recycle_cnt *before,
		  const struct pp_recycle_cnt *after)
{
	u64 got;

	if (!before->valid || !after->valid)
		return 0;
	got = after->path[path] - before->path[path];
	if (verbose)
		pr_info("Type:%s stats: %llu of %llu pages returned via %s, ring_full %llu\n",
			type, got, returned, pp_path_name[path],
			after->ring_full - before->ring_full);
	if (got < need) {
		pr_err("Type:%s only %llu of %llu pages were returned via %s\n",
		       type, got, returned, pp_path_name[path]);
		return -EIO;
	}
	return 0;
}

/*
 * A pool whose direct cache takes the pages returned in softirq context on
 * @cpuid even with allow_direct=false (page_pool_napi_local()), as a
 * driver's pool bound to its NAPI instance does; -1: no such CPU.
 */
static struct page_pool *bench_pool_create_percpu(unsigned int pool_size,
						  int cpuid)
{
	struct page_pool_params pp_params = {
		.order = 0,
		.flags = 0,
		.pool_size = pool_size,
		.nid = NUMA_NO_NODE,
		.dev = NULL,	/* no DMA mapping */
		.dma_dir = DMA_BIDIRECTIONAL,
	};

	return page_pool_create_percpu(&pp_params, cpuid);
}

/* Start with some pages in the ptr_ring, as a running pool would have */
static int pp_warmup(struct page_pool *pp)
{
	struct page *pages[BENCH_WARMUP_PAGES];
	int i, n, err = 0;

	for (n = 0; n < BENCH_WARMUP_PAGES; n++) {
		pages[n] = page_pool_alloc_pages(pp, GFP_KERNEL);
		if (!pages[n]) {
			err = -ENOMEM;
			break;
		}
	}
	for (i = 0; i < n; i++)
		page_pool_put_full_page(pp, pages[i], false);
	return err;
}

struct bench_test {
	const char *name;
	enum bench_bit bit;
	int (*run)(const struct bench_test *t, const char *label);
	bench_chunk_fn chunk;	/* baselines */
	unsigned int mult;	/* baselines: loops multiplier */
	enum pp_path path;	/* page_pool tests: what the loop does */
	bool softirq;		/* page_pool tests */
	bool napi_local;	/* page_pool tests: the pool is bound to the CPU */
};

/*
 * Where a test's pages should go back to: returns with allow_direct=false
 * to a pool bound to the current CPU go to its direct cache, in softirq
 * context only, and never on PREEMPT_RT (page_pool_napi_local()).
 */
static enum pp_path pp_expect(const struct bench_test *t)
{
	if (t->napi_local && !IS_ENABLED(CONFIG_PREEMPT_RT))
		return PP_FAST;
	return t->path;
}

static int bench_baseline_run(const struct bench_test *t, const char *label)
{
	struct time_bench_record rec;
	int err;

	time_bench_init(&rec, 0);
	err = bench_cpu_hold(t->name);
	if (err)
		return err;
	err = bench_run_chunks(t->chunk, NULL, (u64)loops * t->mult, &rec);
	bench_cpu_put();
	return err ? err : bench_report(t->name, label, &rec);
}

static int bench_pp_run(const struct bench_test *t, const char *label)
{
	struct pp_recycle_cnt before, after;
	struct time_bench_record rec;
	struct pp_bench b = { .path = t->path };
	u64 need;
	int err;

	b.pp = bench_pool_create_percpu(BENCH_POOL_SIZE,
					t->napi_local ? bench_cpu : -1);
	if (IS_ERR(b.pp)) {
		err = PTR_ERR(b.pp);
		pr_err("Type:%s page_pool_create failed: %d\n", t->name, err);
		return err;
	}

	time_bench_init(&rec, 0);
	err = bench_cpu_hold(t->name);
	if (err)
		goto out;
	err = pp_warmup(b.pp);
	if (!err) {
		pp_recycle_cnt_read(b.pp, &before);
		if (t->softirq)
			err = bench_run_chunks_bh(pp_chunk, &b, loops, &rec);
		else
			err = bench_run_chunks(pp_chunk, &b, loops, &rec);
		pp_recycle_cnt_read(b.pp, &after);
		pp_path_sum_add(pp_acc, &before, &after, rec.invoked_cnt);
		/* Every page, or for the NAPI-local test 99 % of them */
		need = rec.invoked_cnt;
		if (t->napi_local)
			need -= div_u64(need, 100);
		if (!err)
			err = pp_check_path(t->name, pp_expect(t), rec.invoked_cnt,
					    need, &before, &after);
	}
	bench_cpu_put();
out:
	/* Every page is back in the pool: this frees them all at once */
	page_pool_destroy(b.pp);

	return err ? err : bench_report(t->name, label, &rec);
}

/* The cross-CPU test has its own file, bench_page_pool_cross_cpu.c */
static int bench_xcpu_run(const struct bench_test *t, const char *label)
{
	return bench_cross_cpu_run(t->name, label, loops, bench_cpu,
				   returning_cpus, verbose);
}

static const struct bench_test bench_tests[] = {
	{ "for_loop", BENCH_BIT_BASELINE, bench_baseline_run,
	  .chunk = bl_for_loop, .mult = 10 },
	{ "atomic_inc", BENCH_BIT_BASELINE, bench_baseline_run,
	  .chunk = bl_atomic_inc, .mult = 10 },
	{ "lock", BENCH_BIT_BASELINE, bench_baseline_run,
	  .chunk = bl_lock, .mult = 1 },
	{ "no-softirq-page_pool01", BENCH_BIT_PROC_FAST, bench_pp_run,
	  .path = PP_FAST },
	{ "no-softirq-page_pool02", BENCH_BIT_PROC_RING, bench_pp_run,
	  .path = PP_RING },
	{ "no-softirq-page_pool03", BENCH_BIT_PROC_SLOW, bench_pp_run,
	  .path = PP_SLOW },
	{ "tasklet_page_pool01_fast_path", BENCH_BIT_BH_FAST, bench_pp_run,
	  .path = PP_FAST, .softirq = true },
	{ "tasklet_page_pool02_ptr_ring", BENCH_BIT_BH_RING, bench_pp_run,
	  .path = PP_RING, .softirq = true },
	{ "tasklet_page_pool03_slow", BENCH_BIT_BH_SLOW, bench_pp_run,
	  .path = PP_SLOW, .softirq = true },
	/* Returns as the stack frees skbs: allow_direct=false, same CPU */
	{ "tasklet_page_pool04_napi_local", BENCH_BIT_BH_NAPI, bench_pp_run,
	  .path = PP_RING, .softirq = true, .napi_local = true },
	{ "cross_cpu_return", BENCH_BIT_CROSS_CPU, bench_xcpu_run },
};

static bool bench_is_pp(const struct bench_test *t)
{
	return t->run == bench_pp_run;
}

/* Per test: its page_pool counters and its first error, which stops it */
static struct pp_path_acc bench_acc[ARRAY_SIZE(bench_tests)];
static int bench_err[ARRAY_SIZE(bench_tests)];

static bool bench_selected(const struct bench_test *t)
{
	return run_flags & BIT(t->bit);
}

/* One round: every selected test that has not failed runs once */
static void bench_round(unsigned int rep)
{
	char label[BENCH_LABEL_MAX];
	unsigned int i;

	snprintf(label, sizeof(label), "rep:%u/%u", rep, repeat);
	for (i = 0; i < ARRAY_SIZE(bench_tests); i++) {
		const struct bench_test *t = &bench_tests[i];

		if (!bench_selected(t) || bench_err[i])
			continue;
		if (bench_aborted())
			return;
		pp_acc = &bench_acc[i];
		bench_err[i] = t->run(t, repeat > 1 ? label : NULL);
	}
}

static int bench_thread(void *unused)
{
	unsigned int i, rep;

	for (rep = 1; rep <= repeat && !bench_aborted(); rep++)
		bench_round(rep);

	for (i = 0; i < ARRAY_SIZE(bench_tests) && !bench_aborted(); i++) {
		const struct bench_test *t = &bench_tests[i];

		if (!bench_selected(t))
			continue;
		bench_ran++;
		if (bench_is_pp(t))
			pp_path_print(t->name, pp_expect(t), &bench_acc[i]);
		if (bench_err[i]) {
			bench_failed++;
			pr_err("FAIL Type:%s error %d\n", t->name, bench_err[i]);
		}
	}
	kthread_complete_and_exit(&bench_done, 0);
}

static bool bench_tag_valid(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > BENCH_TAG_MAX)
		return false;
	for (; *s; s++) {
		if (!isalnum(*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	}
	return true;
}

static int bench_check_params(void)
{
	unsigned int others = num_online_cpus() - 1;

	if (loops < BENCH_LOOPS_MIN || (u64)loops > U32_MAX) {
		pr_err("invalid loops=%lu: must be %u..%u\n",
		       loops, BENCH_LOOPS_MIN, U32_MAX);
		return -EINVAL;
	}
	if (!run_flags || (run_flags & ~BENCH_FLAGS_ALL)) {
		pr_err("invalid run_flags=0x%lx: must be a non-empty subset of 0x%lx\n",
		       run_flags, (unsigned long)BENCH_FLAGS_ALL);
		return -EINVAL;
	}
	if (bench_cpu < -1 ||
	    (bench_cpu >= 0 && ((unsigned int)bench_cpu >= nr_cpu_ids ||
				!cpu_online(bench_cpu)))) {
		pr_err("invalid cpu=%d: not an online CPU (-1 = the first one insmod may run on)\n",
		       bench_cpu);
		return -EINVAL;
	}
	/* The caller holds the hotplug lock: the CPU stays online */
	if (bench_cpu < 0)
		bench_cpu = cpumask_first_and(current->cpus_ptr, cpu_online_mask);
	if (!repeat || repeat > BENCH_REPEAT_MAX) {
		pr_err("invalid repeat=%u: must be 1..%u\n",
		       repeat, BENCH_REPEAT_MAX);
		return -EINVAL;
	}
	if (!chunk || chunk % BENCH_CHUNK_MIN || chunk > BENCH_CHUNK_MAX) {
		pr_err("invalid chunk=%u: must be a multiple of %u up to %u\n",
		       chunk, BENCH_CHUNK_MIN, BENCH_CHUNK_MAX);
		return -EINVAL;
	}
	if ((run_flags & BIT(BENCH_BIT_CROSS_CPU)) && returning_cpus > others) {
		pr_err("invalid returning_cpus=%u: only %u online CPUs besides the allocating one\n",
		       returning_cpus, others);
		return -EINVAL;
	}
	if (tag && !bench_tag_valid(tag)) {
		pr_err("invalid tag: must be 1..%u characters [A-Za-z0-9._-]\n",
		       BENCH_TAG_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Debug options that add work to the locks, atomics and allocations timed */
static const struct {
	const char *name;
	bool on;
} bench_debug_opts[] = {
	{ "PROVE_LOCKING", IS_ENABLED(CONFIG_PROVE_LOCKING) },
	{ "LOCK_STAT", IS_ENABLED(CONFIG_LOCK_STAT) },
	{ "DEBUG_SPINLOCK", IS_ENABLED(CONFIG_DEBUG_SPINLOCK) },
	{ "DEBUG_ATOMIC_SLEEP", IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP) },
	{ "DEBUG_PREEMPT", IS_ENABLED(CONFIG_DEBUG_PREEMPT) },
	{ "KASAN", IS_ENABLED(CONFIG_KASAN) },
	{ "KMSAN", IS_ENABLED(CONFIG_KMSAN) },
	{ "KCSAN", IS_ENABLED(CONFIG_KCSAN) },
	{ "UBSAN", IS_ENABLED(CONFIG_UBSAN) },
	{ "DEBUG_VM", IS_ENABLED(CONFIG_DEBUG_VM) },
	{ "DEBUG_OBJECTS", IS_ENABLED(CONFIG_DEBUG_OBJECTS) },
	{ "DEBUG_KMEMLEAK", IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) },
	{ "DEBUG_NET", IS_ENABLED(CONFIG_DEBUG_NET) },
};

static const char *bench_preempt_model(void)
{
	if (preempt_model_rt())
		return "rt";
	if (preempt_model_full())
		return "full";
	if (preempt_model_voluntary())
		return "voluntary";
	if (preempt_model_none())
		return "none";
	return "lazy";		/* the only other one, since 6.13 */
}

/*
 * Put on record what moves the figures besides the code under test: the
 * counter behind "cycles" and its rate, the preemption model, debug
 * options, page_pool's statistics (a counter update per allocation and
 * recycle) and page zeroing on allocation or free.  The driver adds the
 * boot command line and the CPU vulnerability mitigations.
 */
static void bench_print_env(void)
{
	char debug[200] = "none", hz[24] = "unknown";
	size_t i, len = 0;

	for (i = 0; i < ARRAY_SIZE(bench_debug_opts); i++) {
		if (bench_debug_opts[i].on)
			len += scnprintf(debug + len, sizeof(debug) - len,
					 "%s%s", len ? "," : "",
					 bench_debug_opts[i].name);
	}
	if (time_bench_counter_hz())
		snprintf(hz, sizeof(hz), "%llu", time_bench_counter_hz());
	pr_info("run env counter:%s counter_hz:%s preempt:%s page_pool_stats:%s init_on_alloc:%s init_on_free:%s debug:%s\n",
		TIME_BENCH_COUNTER, hz, bench_preempt_model(),
		str_on_off(IS_ENABLED(CONFIG_PAGE_POOL_STATS)),
		str_on_off(want_init_on_alloc(0)),
		str_on_off(want_init_on_free()), debug);
}

static int __init bench_page_pool_init(void)
{
	struct task_struct *task;
	bool aborted = false;
	int err;

	cpus_read_lock();
	err = bench_check_params();
	cpus_read_unlock();
	if (err)
		return err;

	pr_info("run start tag:%s loops:%lu run_flags:0x%lx returning_cpus:%u cpu:%d repeat:%u chunk:%u\n",
		bench_tag(), loops, run_flags, returning_cpus, bench_cpu,
		repeat, chunk);
	bench_print_env();

	init_completion(&bench_done);
	task = kthread_create_on_cpu(bench_thread, NULL, bench_cpu, "pp_bench/%u");
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		pr_err("cannot start the benchmark thread: %d\n", err);
		pr_info("run end tag:%s tests:0 failed:0 aborted\n", bench_tag());
		return err == -EINTR ? err : -EIO;
	}
	wake_up_process(task);

	/* Killable: a signal to insmod stops the run after the current chunk */
	if (wait_for_completion_killable(&bench_done)) {
		WRITE_ONCE(bench_stop, true);
		aborted = true;
		pr_warn("signal received, stopping\n");
		wait_for_completion(&bench_done);
	}

	pr_info("run end tag:%s tests:%u failed:%u%s\n", bench_tag(),
		bench_ran, bench_failed, aborted ? " aborted" : "");
	if (aborted)
		return -EINTR;
	if (bench_failed) {
		pr_err("%u test(s) failed\n", bench_failed);
		return -EIO;
	}
	return 0;
}
module_init(bench_page_pool_init);

static void __exit bench_page_pool_exit(void)
{
	/* Nothing is left to clean up: every test frees what it used */
}
module_exit(bench_page_pool_exit);

MODULE_DESCRIPTION("Benchmark of page_pool allocation and return paths");
MODULE_AUTHOR("Jesper Dangaard Brouer <netoptimizer@brouer.com>");
MODULE_LICENSE("GPL");
