// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark module for page_pool.
 *
 * The tests run from module init, in a kernel thread bound to the first
 * online CPU the loading process may run on (taskset chooses it).  Each
 * test runs one chunk untimed, then is timed in chunks of BENCH_CHUNK
 * elements, with a reschedule point between them; its figure is the sum
 * over the chunks.  Init fails with -EIO when a test failed and with
 * -EINTR when the loading process was killed.
 *
 * The *_dma tests use a pool that DMA-maps its pages and syncs them for
 * the device on recycling, as most drivers' pools do, for a device the
 * module creates: the kernel's DMA layer (dma-direct, swiotlb, ...) is
 * what they add to the figures of the tests without DMA.
 *
 * With CONFIG_PAGE_POOL_STATS, each page_pool test checks that every
 * page it returned took the path the test is named after, and prints
 * the recycling counters on a "Path:<test>" line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/device/faux.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <net/page_pool/helpers.h>

#include "bench_page_pool.h"
#include "time_bench.h"

#define MY_POOL_SIZE 1024
#define BENCH_CHUNK 8192	/* elements timed without a reschedule */

/* Makes tests selectable. Useful for perf-record to analyze a single test.
 * Hint: Bash shells support writing binary number like: $((2#101010)
 *
 * # modprobe bench_page_pool run_flags=$((2#100))
 */
static unsigned long run_flags = 0xFFFFFFFF;
module_param(run_flags, ulong, 0);
MODULE_PARM_DESC(run_flags, "Limit which bench test that runs");

/* Count the bit number from the enum */
enum benchmark_bit {
	bit_run_bench_baseline,
	bit_run_bench_no_softirq01,
	bit_run_bench_no_softirq02,
	bit_run_bench_no_softirq03,
	bit_run_bench_bh02,
	bit_run_bench_bh03,
	bit_run_bench_napi,
	bit_run_bench_cross_cpu,
	bit_run_bench_dma,
};

#define bit(b)		(1 << (b))
#define enabled(b)	((run_flags & (bit(b))))

/* notice time_bench is limited to U32_MAX nr loops */
static unsigned long loops = 10000000;
module_param(loops, ulong, 0);
MODULE_PARM_DESC(loops, "Specify loops bench will run");

static char *tag = "";
module_param(tag, charp, 0);
MODULE_PARM_DESC(tag, "Printed on the first and last lines of this load");

static bool bench_stop;		/* the loading process was killed */
static unsigned int bench_failed;
static struct device *bench_dma_dev;
static DECLARE_COMPLETION(bench_done);

static void bench_fail(const char *name, const char *why)
{
	pr_err("Fail:%s %s\n", name, why);
	bench_failed++;
}

/* Timing at the nanosec level, we need to know the overhead
 * introduced by the for loop itself
 */
static int time_bench_for_loop(struct time_bench_record *rec, void *data)
{
	uint64_t loops_cnt = 0;
	int i;

	time_bench_start(rec);
	/** Loop to measure **/
	for (i = 0; i < rec->loops; i++) {
		loops_cnt++;
		barrier(); /* avoid compiler to optimize this loop */
	}
	time_bench_stop(rec, loops_cnt);
	return loops_cnt;
}

static int time_bench_atomic_inc(struct time_bench_record *rec, void *data)
{
	uint64_t loops_cnt = 0;
	atomic_t cnt;
	int i;

	atomic_set(&cnt, 0);

	time_bench_start(rec);
	/** Loop to measure **/
	for (i = 0; i < rec->loops; i++) {
		atomic_inc(&cnt);
		barrier(); /* avoid compiler to optimize this loop */
	}
	loops_cnt = atomic_read(&cnt);
	time_bench_stop(rec, loops_cnt);
	return loops_cnt;
}

/* The ptr_ping in page_pool uses a spinlock. We need to know the minimum
 * overhead of taking+releasing a spinlock, to know the cycles that can be saved
 * by e.g. amortizing this via bulking.
 */
static int time_bench_lock(struct time_bench_record *rec, void *data)
{
	uint64_t loops_cnt = 0;
	spinlock_t lock;
	int i;

	spin_lock_init(&lock);

	time_bench_start(rec);
	/** Loop to measure **/
	for (i = 0; i < rec->loops; i++) {
		spin_lock(&lock);
		loops_cnt++;
		barrier(); /* avoid compiler to optimize this loop */
		spin_unlock(&lock);
	}
	time_bench_stop(rec, loops_cnt);
	return loops_cnt;
}

/* Helper for filling some page's into ptr_ring */
static void pp_fill_ptr_ring(struct page_pool *pp, int elems)
{
	/* GFP_ATOMIC needed when under run softirq */
	gfp_t gfp_mask = GFP_ATOMIC;
	struct page **array;
	int i;

	array = kcalloc(elems, sizeof(struct page *), gfp_mask);
	if (!array)
		return;
	/* A DMA-mapped pool's allocation fails when mapping fails */
	for (i = 0; i < elems; i++)
		array[i] = page_pool_alloc_pages(pp, gfp_mask);
	for (i = 0; i < elems; i++)
		if (array[i])
			page_pool_put_page(pp, array[i], -1, false);

	kfree(array);
}

enum test_type { type_fast_path, type_ptr_ring, type_page_allocator };

/* Where a test's returned pages go, a page_pool recycle counter */
enum bench_path { path_none, path_cached, path_ring, path_released };

struct bench_test;

/* What a test's timed function gets: the test and its page_pool */
struct bench_run {
	const struct bench_test *test;
	struct page_pool *pp;
	const char *why;	/* why the test failed */
	uint64_t untimed;	/* elements run untimed */
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats before;
#endif
};

/* Depends on compile optimizing this function */
static __always_inline int time_bench_page_pool(struct time_bench_record *rec,
						void *data,
						enum test_type type)
{
	struct page_pool *pp = ((struct bench_run *)data)->pp;
	uint64_t loops_cnt = 0;
	gfp_t gfp_mask = GFP_ATOMIC; /* GFP_ATOMIC is not really needed */
	struct page *page;
	int i;

	time_bench_start(rec);
	/** Loop to measure **/
	for (i = 0; i < rec->loops; i++) {
		/* The pool's cache, else its ring, else the page allocator */
		page = page_pool_alloc_pages(pp, gfp_mask);
		if (!page)
			break;
		loops_cnt++;
		barrier(); /* avoid compiler to optimize this loop */

		/* The benchmarks purpose it to test different return paths.
		 * Compiler should inline optimize other function calls out
		 */
		if (type == type_fast_path) {
			/* Fast-path recycling e.g. XDP_DROP use-case */
			page_pool_recycle_direct(pp, page);

		} else if (type == type_ptr_ring) {
			/* Normal return path */
			page_pool_put_page(pp, page, -1, false);

		} else if (type == type_page_allocator) {
			/* Test if not pages are recycled, but instead
			 * returned back into systems page allocator
			 */
			get_page(page); /* cause no-recycling */
			page_pool_put_page(pp, page, -1, false);
			put_page(page);
		} else {
			BUILD_BUG();
		}
	}
	time_bench_stop(rec, loops_cnt);
	return loops_cnt;
}

static int time_bench_page_pool01_fast_path(struct time_bench_record *rec,
					    void *data)
{
	return time_bench_page_pool(rec, data, type_fast_path);
}

static int time_bench_page_pool02_ptr_ring(struct time_bench_record *rec,
					   void *data)
{
	return time_bench_page_pool(rec, data, type_ptr_ring);
}

static int time_bench_page_pool03_slow(struct time_bench_record *rec,
				       void *data)
{
	return time_bench_page_pool(rec, data, type_page_allocator);
}

/*
 * In softirq context, as drivers' NAPI poll runs: bottom halves are off
 * for each chunk.  There is no such fast-path test, since the direct
 * recycling of page_pool_recycle_direct() does not depend on the context.
 */
static int time_bench_bh_page_pool02_ptr_ring(struct time_bench_record *rec,
					      void *data)
{
	int ret;

	local_bh_disable();
	ret = time_bench_page_pool(rec, data, type_ptr_ring);
	local_bh_enable();
	return ret;
}

static int time_bench_bh_page_pool03_slow(struct time_bench_record *rec,
					  void *data)
{
	int ret;

	local_bh_disable();
	ret = time_bench_page_pool(rec, data, type_page_allocator);
	local_bh_enable();
	return ret;
}

/*
 * The NAPI instance of the NAPI-local tests' pools, as drivers set
 * page_pool_params.napi.  page_pool_napi_local() only reads its
 * list_owner, the CPU its poll runs on; page_pool_destroy() accepts an
 * instance that was never added to a netdev.
 */
static struct napi_struct bench_napi = { .list_owner = -1 };

/*
 * Pages returned as the stack frees an skb (allow_direct false), in
 * softirq context, with the pool's NAPI instance running on this CPU
 * (local: page_pool_napi_local() recycles them directly) or on another
 * (remote, or on no CPU on a single-CPU system: they go to the ring).
 */
static __always_inline int bench_napi_chunk(struct time_bench_record *rec,
					    void *data, bool local)
{
	unsigned int owner;
	int ret;

	local_bh_disable();
	owner = smp_processor_id();
	if (!local)
		owner = cpumask_any_but(cpu_online_mask, owner);
	WRITE_ONCE(bench_napi.list_owner, owner < nr_cpu_ids ? owner : -1);
	ret = time_bench_page_pool(rec, data, type_ptr_ring);
	WRITE_ONCE(bench_napi.list_owner, -1);
	local_bh_enable();
	return ret;
}

static int time_bench_bh_page_pool04_napi_local(struct time_bench_record *rec,
						void *data)
{
	return bench_napi_chunk(rec, data, true);
}

static int time_bench_bh_page_pool05_napi_remote(struct time_bench_record *rec,
						 void *data)
{
	return bench_napi_chunk(rec, data, false);
}

struct bench_test {
	const char *name;
	int bit;		/* in run_flags */
	unsigned int mult;	/* runs mult (or 1) * loops elements */
	bool pool;		/* on a page_pool of its own */
	enum bench_path expect;	/* where its returned pages go */
	bool napi;		/* the pool has bench_napi */
	bool dma;		/* the pool DMA-maps for bench_dma_dev */
	int (*func)(struct time_bench_record *rec, void *data);
};

static const struct bench_test bench_tests[] = {
	/* Baseline tests */
	{ .name = "for_loop", .bit = bit_run_bench_baseline,
	  .mult = 10, .func = time_bench_for_loop,
	},
	{ .name = "atomic_inc", .bit = bit_run_bench_baseline,
	  .mult = 10, .func = time_bench_atomic_inc,
	},
	{ .name = "lock", .bit = bit_run_bench_baseline,
	  .func = time_bench_lock,
	},
	/* Process context: page_pool_napi_local() is false */
	{ .name = "no-softirq-page_pool01", .bit = bit_run_bench_no_softirq01,
	  .pool = true, .func = time_bench_page_pool01_fast_path,
	  .expect = path_cached,
	},
	{ .name = "no-softirq-page_pool02", .bit = bit_run_bench_no_softirq02,
	  .pool = true, .func = time_bench_page_pool02_ptr_ring,
	  .expect = path_ring,
	},
	{ .name = "no-softirq-page_pool03", .bit = bit_run_bench_no_softirq03,
	  .pool = true, .func = time_bench_page_pool03_slow,
	  .expect = path_released,
	},
	/* Softirq context, not NAPI-local: the ring takes spin_lock() */
	{ .name = "bh_page_pool02_ptr_ring", .bit = bit_run_bench_bh02,
	  .pool = true, .func = time_bench_bh_page_pool02_ptr_ring,
	  .expect = path_ring,
	},
	{ .name = "bh_page_pool03_slow", .bit = bit_run_bench_bh03,
	  .pool = true, .func = time_bench_bh_page_pool03_slow,
	  .expect = path_released,
	},
	/* Softirq context, NAPI-local: direct, but not on PREEMPT_RT */
	{ .name = "bh_page_pool04_napi_local", .bit = bit_run_bench_napi,
	  .pool = true, .func = time_bench_bh_page_pool04_napi_local,
	  .expect = IS_ENABLED(CONFIG_PREEMPT_RT) ? path_ring : path_cached,
	  .napi = true,
	},
	{ .name = "bh_page_pool05_napi_remote", .bit = bit_run_bench_napi,
	  .pool = true, .func = time_bench_bh_page_pool05_napi_remote,
	  .expect = path_ring,
	  .napi = true,
	},
	/* Process context, pages DMA-mapped and synced for the device */
	{ .name = "no-softirq-page_pool01_dma", .bit = bit_run_bench_dma,
	  .pool = true, .func = time_bench_page_pool01_fast_path,
	  .expect = path_cached,
	  .dma = true,
	},
	{ .name = "no-softirq-page_pool02_dma", .bit = bit_run_bench_dma,
	  .pool = true, .func = time_bench_page_pool02_ptr_ring,
	  .expect = path_ring,
	  .dma = true,
	},
	{ .name = "no-softirq-page_pool03_dma", .bit = bit_run_bench_dma,
	  .pool = true, .func = time_bench_page_pool03_slow,
	  .expect = path_released,
	  .dma = true,
	},
};

/* REC->loops elements of the test, untimed: 0 when the test failed */
static int bench_untimed(struct bench_run *run, struct time_bench_record *rec)
{
	int ret = run->test->func(rec, run);

	run->untimed += ret;
	return ret;
}

#ifdef CONFIG_PAGE_POOL_STATS
/*
 * page_pool_get_stats() is meant for drivers without netlink stats; a
 * pool without a netdev, as here, has no netlink stats.  It adds up the
 * per-CPU recycle counters into *stats.
 */
static void bench_path_start(struct bench_run *run)
{
	memset(&run->before, 0, sizeof(run->before));
	page_pool_get_stats(run->pp, &run->before);
	run->untimed = 0;
}

static bool bench_path_ok(struct bench_run *run, uint64_t returned)
{
	const struct page_pool_recycle_stats *b = &run->before.recycle_stats;
	static const char * const names[] = {
		[path_cached] = "cached", [path_ring] = "ring",
		[path_released] = "released",
	};
	struct page_pool_stats now = {};
	struct page_pool_recycle_stats *r = &now.recycle_stats;
	uint64_t took;

	page_pool_get_stats(run->pp, &now);
	r->cached -= b->cached;
	r->ring -= b->ring;
	r->ring_full -= b->ring_full;
	r->released_refcnt -= b->released_refcnt;
	took = run->test->expect == path_cached ? r->cached :
	       run->test->expect == path_ring ? r->ring : r->released_refcnt;
	pr_info("Path:%s expect:%s returned:%llu cached:%llu ring:%llu ring_full:%llu released:%llu\n",
		run->test->name, names[run->test->expect], returned,
		r->cached, r->ring, r->ring_full, r->released_refcnt);
	if (took != returned)
		run->why = "pages took another path (see Path: line)";
	return took == returned;
}
#else
static void bench_path_start(struct bench_run *run)
{
}

static bool bench_path_ok(struct bench_run *run, uint64_t returned)
{
	return true;
}
#endif

/* The test's function over rec->loops elements, a chunk at a time */
static int bench_chunks(struct time_bench_record *rec, void *data)
{
	struct time_bench_record first = {
		.loops = min_t(uint32_t, rec->loops, BENCH_CHUNK)
	};
	uint32_t total = rec->loops, done;
	struct bench_run *run = data;

	/*
	 * One chunk untimed first, so that the timed chunks start from the
	 * state they keep (the pool, its ring, the page allocator's per-CPU
	 * lists), whatever the previous test left
	 */
	if (!bench_untimed(run, &first))
		return 0;
	if (run->test->expect)
		bench_path_start(run);
	for (done = 0; done < total; done += rec->loops) {
		rec->loops = min_t(uint32_t, total - done, BENCH_CHUNK);
		if (READ_ONCE(bench_stop)) {
			run->why = "stopped by a signal";
			return 0;
		}
		cond_resched();
		if (!run->test->func(rec, data))
			return 0;
	}
	if (run->test->expect &&
	    !bench_path_ok(run, rec->invoked_cnt + run->untimed))
		return 0;
	return done;
}

static void bench_run(const struct bench_test *t)
{
	struct page_pool_params pp_params = {
		.order = 0,
		.flags = 0,
		.pool_size = MY_POOL_SIZE,
		.nid = NUMA_NO_NODE,
		.dev = NULL, /* Only use for DMA mapping */
		.dma_dir = DMA_BIDIRECTIONAL,
	};
	struct bench_run run = { .test = t };
	bool ok;

	if (t->napi)
		pp_params.napi = &bench_napi;
	if (t->dma && !bench_dma_dev) {
		pr_info("Skip:%s no device to DMA-map for\n", t->name);
		return;
	}
	if (t->dma) {
		/* An RX pool: mapped from the device, synced on recycling */
		pp_params.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
		pp_params.dev = bench_dma_dev;
		pp_params.dma_dir = DMA_FROM_DEVICE;
		pp_params.max_len = PAGE_SIZE;
	}
	if (t->pool) {
		run.pp = page_pool_create(&pp_params);
		if (IS_ERR(run.pp)) {
			bench_fail(t->name, "cannot create a page_pool");
			return;
		}
		pp_fill_ptr_ring(run.pp, 64);
	}
	ok = time_bench_loop(loops * (t->mult ?: 1), 0, t->name, &run,
			     bench_chunks);
	if (t->pool)
		page_pool_destroy(run.pp);
	if (!ok)
		bench_fail(t->name, run.why ?: "timing failed");
}

/*
 * The device the *_dma tests map pages for: no hardware, a 64-bit DMA
 * mask, so that dma-direct maps without bouncing unless swiotlb=force.
 */
static struct faux_device *bench_fdev;

static struct device *bench_dma_dev_create(void)
{
	bench_fdev = faux_device_create(KBUILD_MODNAME, NULL, NULL);
	return bench_fdev ? &bench_fdev->dev : NULL;
}

static void bench_dma_dev_destroy(void)
{
	faux_device_destroy(bench_fdev);
}

static void bench_dma_dev_setup(void)
{
	struct device *dev = bench_dma_dev_create();

	if (!dev)
		return;
	if (dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64))) {
		bench_dma_dev_destroy();
		return;
	}
	bench_dma_dev = dev;
	pr_info("DMA: device %s, direction from-device, sync for device %lu bytes (max_len) on recycling\n",
		dev_name(dev), PAGE_SIZE);
}

static int run_benchmark_tests(void *arg)
{
	int i;

	if (enabled(bit_run_bench_dma))
		bench_dma_dev_setup();
	for (i = 0; i < ARRAY_SIZE(bench_tests); i++) {
		if (READ_ONCE(bench_stop))
			break;
		if (!enabled(bench_tests[i].bit))
			continue;
		bench_run(&bench_tests[i]);
	}
	if (enabled(bit_run_bench_cross_cpu) && !READ_ONCE(bench_stop))
		bench_failed += bench_cross_cpu(loops, &bench_stop);
	if (bench_dma_dev)
		bench_dma_dev_destroy();
	/* Exit even if init returned and the module is going away */
	kthread_complete_and_exit(&bench_done, 0);
}

/* The tests, from module init: 0, or why the load fails */
static int bench_page_pool_run(void)
{
	struct task_struct *task;
	unsigned int cpu;

	/* for_loop and atomic_inc run 10 * loops */
	if (loops < 1000 || loops > U32_MAX / 10) {
		pr_err("Module param loops(%lu) not in 1000..%u\n", loops,
		       U32_MAX / 10);
		return -ECHRNG;
	}

	cpu = cpumask_first_and(current->cpus_ptr, cpu_online_mask);
	task = kthread_create_on_cpu(run_benchmark_tests, NULL, cpu,
				     "bench_page_pool/%u");
	if (IS_ERR(task))
		return PTR_ERR(task);
	pr_info("Running on CPU %u, at most %u elements per chunk\n", cpu,
		BENCH_CHUNK);
	if (!IS_ENABLED(CONFIG_PAGE_POOL_STATS))
		pr_info("Paths not checked: no CONFIG_PAGE_POOL_STATS\n");
	wake_up_process(task);

	if (wait_for_completion_killable(&bench_done)) {
		/* The thread stops at the next chunk; wait for it */
		WRITE_ONCE(bench_stop, true);
		wait_for_completion(&bench_done);
		return -EINTR;
	}
	return bench_failed ? -EIO : 0;
}

/* A reader of the kernel log finds this load's lines between these two */
static int __init bench_page_pool_simple_module_init(void)
{
	int err;

	pr_info("Loaded %s\n", tag);
	err = bench_page_pool_run();
	pr_info("Finished %s\n", tag);
	return err;
}
module_init(bench_page_pool_simple_module_init);

static void __exit bench_page_pool_simple_module_exit(void)
{
	pr_info("Unloaded\n");
}
module_exit(bench_page_pool_simple_module_exit);

MODULE_DESCRIPTION("Benchmark of page_pool simple cases");
MODULE_AUTHOR("Jesper Dangaard Brouer <netoptimizer@brouer.com>");
MODULE_LICENSE("GPL");
