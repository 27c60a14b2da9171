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
 * report.  Only the chunks are timed.  Each result also reports the chunk
 * with the fewest cycles per element (see time_bench.h); small chunks make
 * that minimum free of interrupts and of amortized page allocator work.
 *
 * With repeat=R the selected tests run in R rounds, each test once per
 * round, each run printing its own Type: line with a "rep:i/R" label after
 * the type name, so that the spread of the figures can be judged.  Rounds
 * rather than R runs in a row: a drift of the machine over time (clock,
 * other load, the page allocator's state) then spreads over the
 * repetitions of every test instead of shifting one test's figures.
 *
 * When the kernel keeps page_pool statistics (CONFIG_PAGE_POOL_STATS),
 * each page_pool test checks that every page took the path it names and
 * prints, summed over its repetitions, a "Path:<name>" line with the
 * allocation and recycling counters; otherwise that line says the path
 * was not checked.
 *
 * Example, fast path in softirq only, pinned to CPU 2, 5 repetitions:
 *   insmod bench_page_pool.ko run_flags=0x10 cpu=2 repeat=5
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string_choices.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/page_pool/helpers.h>

#include "time_bench.h"

#define BENCH_LOOPS_MIN		1000	/* time_bench needs this many */
#define BENCH_LOOPS_DEFAULT	500000
#define BENCH_CHUNK_MIN		64	/* a page_pool refill batch */
#define BENCH_CHUNK_DEFAULT	8192	/* elements per timed chunk */
#define BENCH_CHUNK_MAX		65536
#define BENCH_POOL_SIZE		1024
#define BENCH_WARMUP_PAGES	64
#define BENCH_TAG_MAX		32
#define BENCH_REPEAT_MAX	1000
#define BENCH_LABEL_MAX		32

/* Cross-CPU test: page_pool caps its ptr_ring at 16384 entries */
#define XCPU_RING_MAX		16384
#define XCPU_RING_SLACK		512	/* alloc cache, refill and ring batching */
#define XCPU_BATCH_MAX		256

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
	BENCH_BIT_NR,
};

#define BENCH_FLAGS_ALL		(BIT(BENCH_BIT_NR) - 1)

static unsigned long loops = BENCH_LOOPS_DEFAULT;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops,
		 "Elements per test, 1000..4294967295 (default 500000); for_loop and atomic_inc run 10x, cross_cpu_return returns this many pages per returning CPU");

static unsigned long run_flags = BENCH_FLAGS_ALL;
module_param(run_flags, ulong, 0444);
MODULE_PARM_DESC(run_flags,
		 "Bit mask of tests (default 0xff): 0x01 baselines for_loop, atomic_inc, lock; 0x02 no-softirq-page_pool01 fast path; 0x04 no-softirq-page_pool02 ptr_ring; 0x08 no-softirq-page_pool03 slow path; 0x10 tasklet_page_pool01_fast_path; 0x20 tasklet_page_pool02_ptr_ring; 0x40 tasklet_page_pool03_slow; 0x80 cross_cpu_return");

static unsigned int repeat = 1;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat,
		 "Rounds of the selected tests, each test once per round, 1..1000 (default 1); with more than 1 each result line carries a rep:i/R label");

static unsigned int chunk = BENCH_CHUNK_DEFAULT;
module_param(chunk, uint, 0444);
MODULE_PARM_DESC(chunk,
		 "Elements per timed chunk, 64..65536 (default 8192); rescheduling or a softirq exit happens between chunks");

static unsigned int returning_cpus = 1;
module_param(returning_cpus, uint, 0444);
MODULE_PARM_DESC(returning_cpus,
		 "CPUs returning pages concurrently in cross_cpu_return, 1..online CPUs - 1 (default 1)");

static int bench_cpu = -1;
module_param_named(cpu, bench_cpu, int, 0444);
MODULE_PARM_DESC(cpu,
		 "CPU running the tests and allocating in cross_cpu_return, -1 = do not pin (default -1)");

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

static bool bench_aborted(void)
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
 * Run @total elements in softirq context: each chunk is one work item on
 * the BH workqueue of the test CPU, waited for before the next is queued.
 */
static int bench_run_chunks_bh(bench_chunk_fn fn, void *arg, u64 total,
			       struct time_bench_record *rec)
{
	struct bench_bh_work w = { .fn = fn, .arg = arg, .rec = rec };
	int err = 0;

	INIT_WORK_ONSTACK(&w.work, bench_bh_work_fn);
	while (rec->invoked_cnt < total) {
		if (bench_aborted()) {
			err = -EINTR;
			break;
		}
		w.n = min_t(u64, total - rec->invoked_cnt, chunk);
		w.err = 0;
		queue_work_on(bench_cpu >= 0 ? bench_cpu : raw_smp_processor_id(),
			      system_bh_wq, &w.work);
		flush_work(&w.work);
		err = w.err;
		if (err)
			break;
		cond_resched();
	}
	destroy_work_on_stack(&w.work);
	return err;
}

static int bench_report(const char *type, const char *label,
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

enum pp_path {
	PP_FAST,	/* recycle direct into the alloc cache */
	PP_RING,	/* normal return into the ptr_ring */
	PP_SLOW,	/* page not recyclable, back to the page allocator */
};

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

/*
 * page_pool statistics, when the kernel keeps them, and the pool's own
 * count of pages taken from the page allocator and of cached pages
 */
struct pp_recycle_cnt {
	bool valid;
	u64 path[ARRAY_SIZE(pp_path_name)];	/* recycled or released */
	u64 ring_full;
	u32 hold_cnt;		/* pages_state_hold_cnt */
	u32 cached;		/* pages in the alloc cache */
};

/*
 * Where the pages handed out came from, summed over the repetitions.
 * Every page is handed out from the alloc cache, which direct recycling,
 * refills from the ptr_ring and bulk allocations from the page allocator
 * fill: the pages from the ring are those not explained by the other
 * two, corrected for what the cache held before and after.
 */
struct pp_origin {
	u64 cache;
	u64 ring;
	u64 page_allocator;
};

/* Counters of one test, summed over its repetitions */
struct pp_path_acc {
	struct pp_recycle_cnt cnt;
	struct pp_origin origin;
};

/* The accumulator of the test being run */
static struct pp_path_acc *pp_acc;

/* Add the counters of a run that handed out @allocated pages */
static void pp_path_sum_add(const struct pp_recycle_cnt *before,
			    const struct pp_recycle_cnt *after, u64 allocated)
{
	struct pp_recycle_cnt *s = &pp_acc->cnt;
	struct pp_origin *o = &pp_acc->origin;
	s64 ring, cached, fresh;
	unsigned int i;

	if (!before->valid || !after->valid)
		return;
	s->valid = true;
	for (i = 0; i < ARRAY_SIZE(s->path); i++)
		s->path[i] += after->path[i] - before->path[i];
	s->ring_full += after->ring_full - before->ring_full;

	fresh = (u32)(after->hold_cnt - before->hold_cnt);
	cached = after->path[PP_FAST] - before->path[PP_FAST];
	ring = (s64)allocated + after->cached - before->cached - fresh - cached;
	o->cache += cached;
	o->ring += max_t(s64, ring, 0);
	o->page_allocator += fresh;
}

/*
 * One line per page_pool test: where the pages handed out came from and
 * where they went back to.
 */
static void pp_path_print(const char *type, enum pp_path path,
			  const struct pp_path_acc *acc)
{
	const struct pp_recycle_cnt *s = &acc->cnt;
	const struct pp_origin *o = &acc->origin;

	if (!s->valid) {
		pr_info("Path:%s expect:%s not checked: CONFIG_PAGE_POOL_STATS off\n",
			type, pp_path_key[path]);
		return;
	}
	pr_info("Path:%s expect:%s alloc from_cache:%llu from_ring:%llu from_page_allocator:%llu recycle cached:%llu ring:%llu released:%llu ring_full:%llu\n",
		type, pp_path_key[path], o->cache, o->ring, o->page_allocator,
		s->path[PP_FAST], s->path[PP_RING], s->path[PP_SLOW],
		s->ring_full);
}

static void pp_recycle_cnt_read(struct page_pool *pp, struct pp_recycle_cnt *c)
{
	memset(c, 0, sizeof(*c));
	/* Only the allocating context changes these, and it is idle here */
	c->hold_cnt = READ_ONCE(pp->pages_state_hold_cnt);
	c->cached = READ_ONCE(pp->alloc.count);
#ifdef CONFIG_PAGE_POOL_STATS
	{
		struct page_pool_stats stats = {};

		page_pool_get_stats(pp, &stats);
		c->valid = true;
		c->path[PP_FAST] = stats.recycle_stats.cached;
		c->path[PP_RING] = stats.recycle_stats.ring;
		c->path[PP_SLOW] = stats.recycle_stats.released_refcnt;
		c->ring_full = stats.recycle_stats.ring_full;
	}
#endif
}

/* Check with the page_pool statistics that every page took @path */
static int pp_check_path(const char *type, enum pp_path path, u64 expected,
			 const struct pp_recycle_cnt *before,
			 const struct pp_recycle_cnt *after)
{
	u64 got;

	if (!before->valid || !after->valid)
		return 0;
	got = after->path[path] - before->path[path];
	if (verbose)
		pr_info("Type:%s stats: %llu of %llu pages returned via %s, ring_full %llu\n",
			type, got, expected, pp_path_name[path],
			after->ring_full - before->ring_full);
	if (got != expected) {
		pr_err("Type:%s only %llu of %llu pages were returned via %s\n",
		       type, got, expected, pp_path_name[path]);
		return -EIO;
	}
	return 0;
}

static struct page_pool *bench_pool_create(unsigned int pool_size)
{
	struct page_pool_params pp_params = {
		.order = 0,
		.flags = 0,
		.pool_size = pool_size,
		.nid = NUMA_NO_NODE,
		.dev = NULL,	/* no DMA mapping */
		.dma_dir = DMA_BIDIRECTIONAL,
	};

	return page_pool_create(&pp_params);
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
	enum pp_path path;	/* page_pool tests */
	bool softirq;		/* page_pool tests */
};

static int bench_baseline_run(const struct bench_test *t, const char *label)
{
	struct time_bench_record rec;
	int err;

	time_bench_init(&rec, 0);
	err = bench_run_chunks(t->chunk, NULL, (u64)loops * t->mult, &rec);
	return err ? err : bench_report(t->name, label, &rec);
}

static int bench_pp_run(const struct bench_test *t, const char *label)
{
	struct pp_recycle_cnt before, after;
	struct time_bench_record rec;
	struct pp_bench b = { .path = t->path };
	int err;

	b.pp = bench_pool_create(BENCH_POOL_SIZE);
	if (IS_ERR(b.pp)) {
		err = PTR_ERR(b.pp);
		pr_err("Type:%s page_pool_create failed: %d\n", t->name, err);
		return err;
	}

	err = pp_warmup(b.pp);
	if (!err) {
		time_bench_init(&rec, 0);
		pp_recycle_cnt_read(b.pp, &before);
		if (t->softirq)
			err = bench_run_chunks_bh(pp_chunk, &b, loops, &rec);
		else
			err = bench_run_chunks(pp_chunk, &b, loops, &rec);
		pp_recycle_cnt_read(b.pp, &after);
		pp_path_sum_add(&before, &after, rec.invoked_cnt);
		if (!err)
			err = pp_check_path(t->name, t->path, rec.invoked_cnt,
					    &before, &after);
	}
	/* Every page is back in the pool: this frees them all at once */
	page_pool_destroy(b.pp);

	return err ? err : bench_report(t->name, label, &rec);
}

/*
 * Cross-CPU return: one CPU allocates, returning_cpus other CPUs return
 * the pages concurrently through the ptr_ring, as when packets are freed
 * on another CPU than the one running the driver's NAPI poll.
 *
 * Per round the allocating CPU hands each returner a batch of ready pages
 * and starts the round; the returners wait for each other, then time only
 * their return loop.  Batches are sized so that the ptr_ring holds all
 * returned pages, otherwise they would fall back to the page allocator.
 */
struct xcpu_returner {
	struct xcpu_test *x;
	struct task_struct *task;
	struct page **pages;
	u32 nr_pages;		/* handed over for the current round */
	int cpu;
	struct time_bench_record rec;
} ____cacheline_aligned_in_smp;

struct xcpu_test {
	struct page_pool *pp;
	struct xcpu_returner *ret;
	unsigned int nr_ret;
	unsigned int round;	/* round number, published with release */
	atomic_t arrived;	/* start barrier of the round */
	atomic_t pending;	/* returners not done with the round */
	wait_queue_head_t round_wq;
	wait_queue_head_t done_wq;
};

static unsigned int xcpu_round(struct xcpu_test *x)
{
	/* Acquire pairs with the release publishing the round's pages */
	return smp_load_acquire(&x->round);
}

static int xcpu_returner_fn(void *arg)
{
	struct xcpu_returner *r = arg;
	struct xcpu_test *x = r->x;
	unsigned int seen = 0;
	u32 i;

	for (;;) {
		wait_event_interruptible(x->round_wq,
					 xcpu_round(x) != seen ||
					 kthread_should_stop());
		if (kthread_should_stop())
			break;
		seen = xcpu_round(x);

		/* Start together, so the returns really are concurrent */
		atomic_inc(&x->arrived);
		while (atomic_read(&x->arrived) < x->nr_ret) {
			cpu_relax();
			cond_resched();
		}

		time_bench_start(&r->rec);
		for (i = 0; i < r->nr_pages; i++)
			page_pool_put_full_page(x->pp, r->pages[i], false);
		time_bench_stop(&r->rec, r->nr_pages);

		if (atomic_dec_and_test(&x->pending))
			wake_up(&x->done_wq);
	}
	return 0;
}

/* Allocate @per_ret pages for each returner; on failure free them again */
static int xcpu_fill(struct xcpu_test *x, u32 per_ret)
{
	unsigned int k;
	u32 i;

	for (k = 0; k < x->nr_ret; k++) {
		struct xcpu_returner *r = &x->ret[k];

		for (i = 0; i < per_ret; i++) {
			r->pages[i] = page_pool_alloc_pages(x->pp, GFP_KERNEL);
			if (!r->pages[i])
				goto err;
		}
		r->nr_pages = per_ret;
	}
	return 0;
err:
	while (i--)
		page_pool_put_full_page(x->pp, x->ret[k].pages[i], false);
	while (k--) {
		for (i = 0; i < x->ret[k].nr_pages; i++)
			page_pool_put_full_page(x->pp, x->ret[k].pages[i], false);
		x->ret[k].nr_pages = 0;
	}
	return -ENOMEM;
}

static int xcpu_rounds(struct xcpu_test *x, u32 batch)
{
	u64 done = 0;
	int err;

	while (done < loops) {
		u32 per_ret = min_t(u64, batch, loops - done);

		if (bench_aborted())
			return -EINTR;
		err = xcpu_fill(x, per_ret);
		if (err)
			return err;

		atomic_set(&x->arrived, 0);
		atomic_set(&x->pending, x->nr_ret);
		/* Release: the pages and counts above are visible first */
		smp_store_release(&x->round, x->round + 1);
		wake_up_all(&x->round_wq);
		/* A round is one batch per returner: this wait is short */
		wait_event_interruptible(x->done_wq,
					 !atomic_read(&x->pending));
		done += per_ret;
		cond_resched();
	}
	return 0;
}

static int xcpu_report(const struct bench_test *t, struct xcpu_test *x,
		       u32 batch, const char *rep_label)
{
	struct time_bench_record sum;
	char label[16 + BENCH_LABEL_MAX];
	unsigned int k;
	int err;

	time_bench_init(&sum, batch);
	for (k = 0; k < x->nr_ret; k++) {
		struct xcpu_returner *r = &x->ret[k];

		snprintf(label, sizeof(label), "cpu:%d%s%s", r->cpu,
			 rep_label ? " " : "", rep_label ? rep_label : "");
		err = bench_report(t->name, label, &r->rec);
		if (err)
			return err;
		time_bench_add(&sum, &r->rec);
	}
	/* Mean over all returned pages; the period is summed over CPUs */
	return bench_report("cross_cpu_return_avg", rep_label, &sum);
}

static int bench_xcpu_run(const struct bench_test *t, const char *label)
{
	struct pp_recycle_cnt before, after;
	unsigned int nr = returning_cpus;
	unsigned int k, started = 0;
	struct xcpu_test xt = {}, *x = &xt;
	int alloc_cpu, c;
	bool pinned = false;
	u32 batch;
	int err;

	batch = clamp_t(u32, (XCPU_RING_MAX - XCPU_RING_SLACK) / nr, 1,
			XCPU_BATCH_MAX);

	x->nr_ret = nr;
	init_waitqueue_head(&x->round_wq);
	init_waitqueue_head(&x->done_wq);
	x->ret = kcalloc(nr, sizeof(*x->ret), GFP_KERNEL);
	if (!x->ret)
		return -ENOMEM;

	/* The allocating side must stay on one CPU for the whole test */
	alloc_cpu = bench_cpu;
	if (alloc_cpu < 0) {
		alloc_cpu = raw_smp_processor_id();
		err = set_cpus_allowed_ptr(current, cpumask_of(alloc_cpu));
		if (err) {
			pr_err("Type:%s cannot pin to CPU %d: %d\n",
			       t->name, alloc_cpu, err);
			goto out_free;
		}
		pinned = true;
	}

	k = 0;
	for_each_online_cpu(c) {
		if (c == alloc_cpu)
			continue;
		x->ret[k].cpu = c;
		if (++k == nr)
			break;
	}
	if (k < nr) {
		pr_err("Type:%s only %u CPUs besides CPU %d are online, %u needed\n",
		       t->name, k, alloc_cpu, nr);
		err = -EINVAL;
		goto out_free;
	}

	x->pp = bench_pool_create(nr * batch + XCPU_RING_SLACK);
	if (IS_ERR(x->pp)) {
		err = PTR_ERR(x->pp);
		pr_err("Type:%s page_pool_create failed: %d\n", t->name, err);
		x->pp = NULL;
		goto out_free;
	}

	for (k = 0; k < nr; k++) {
		struct xcpu_returner *r = &x->ret[k];

		r->x = x;
		time_bench_init(&r->rec, batch);
		r->pages = kcalloc_node(batch, sizeof(*r->pages), GFP_KERNEL,
					cpu_to_node(r->cpu));
		if (!r->pages) {
			err = -ENOMEM;
			goto out_stop;
		}
		r->task = kthread_create(xcpu_returner_fn, r, "pp_bench_ret/%d",
					 r->cpu);
		if (IS_ERR(r->task)) {
			err = PTR_ERR(r->task);
			r->task = NULL;
			pr_err("Type:%s cannot start returner on CPU %d: %d\n",
			       t->name, r->cpu, err);
			goto out_stop;
		}
		kthread_bind(r->task, r->cpu);
		wake_up_process(r->task);
		started++;
	}

	if (verbose)
		pr_info("Type:%s allocating on CPU %d, %u returning CPUs, batch %u, ring %u\n",
			t->name, alloc_cpu, nr, batch, nr * batch + XCPU_RING_SLACK);

	pp_recycle_cnt_read(x->pp, &before);
	err = xcpu_rounds(x, batch);
	pp_recycle_cnt_read(x->pp, &after);
	pp_path_sum_add(&before, &after, (u64)nr * loops);
	if (!err && after.valid && after.ring_full != before.ring_full)
		pr_warn("Type:%s %llu pages found the ptr_ring full\n",
			t->name, after.ring_full - before.ring_full);
	/* Some pages may miss the ring, but the test is void without it */
	if (!err && after.valid && after.path[PP_RING] == before.path[PP_RING]) {
		pr_err("Type:%s no page was returned via %s\n",
		       t->name, pp_path_name[PP_RING]);
		err = -EIO;
	}

out_stop:
	for (k = 0; k < started; k++)
		kthread_stop(x->ret[k].task);
	/* All pages are back in the pool: this frees them */
	page_pool_destroy(x->pp);
	if (!err)
		err = xcpu_report(t, x, batch, label);
out_free:
	if (pinned)
		set_cpus_allowed_ptr(current, cpu_possible_mask);
	if (x->ret) {
		for (k = 0; k < nr; k++)
			kfree(x->ret[k].pages);
	}
	kfree(x->ret);
	return err;
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
	{ "cross_cpu_return", BENCH_BIT_CROSS_CPU, bench_xcpu_run,
	  .path = PP_RING },
};

static bool bench_is_pp(const struct bench_test *t)
{
	return t->run != bench_baseline_run;
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
			pp_path_print(t->name, t->path, &bench_acc[i]);
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
		pr_err("invalid cpu=%d: not an online CPU (-1 = do not pin)\n",
		       bench_cpu);
		return -EINVAL;
	}
	if (!repeat || repeat > BENCH_REPEAT_MAX) {
		pr_err("invalid repeat=%u: must be 1..%u\n",
		       repeat, BENCH_REPEAT_MAX);
		return -EINVAL;
	}
	if (chunk < BENCH_CHUNK_MIN || chunk > BENCH_CHUNK_MAX) {
		pr_err("invalid chunk=%u: must be %u..%u\n",
		       chunk, BENCH_CHUNK_MIN, BENCH_CHUNK_MAX);
		return -EINVAL;
	}
	if (!returning_cpus) {
		pr_err("invalid returning_cpus=0: must be at least 1\n");
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

	err = bench_check_params();
	if (err)
		return err;

	pr_info("run start tag:%s loops:%lu run_flags:0x%lx returning_cpus:%u cpu:%d repeat:%u chunk:%u\n",
		bench_tag(), loops, run_flags, returning_cpus, bench_cpu,
		repeat, chunk);
	bench_print_env();

	init_completion(&bench_done);
	task = kthread_create(bench_thread, NULL, "pp_bench");
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		pr_err("cannot start the benchmark thread: %d\n", err);
		pr_info("run end tag:%s tests:0 failed:0 aborted\n", bench_tag());
		return err == -EINTR ? err : -EIO;
	}
	if (bench_cpu >= 0)
		kthread_bind(task, bench_cpu);
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
