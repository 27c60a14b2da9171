// SPDX-License-Identifier: GPL-2.0-only
/*
 * Concurrent cross-CPU return, after Jesper Dangaard Brouer's
 * bench_page_pool_cross_cpu in github.com/netoptimizer/prototype-kernel:
 * one CPU allocates a pool's pages and hands them out round-robin, over a
 * ptr_ring each, to n others, which return them into the pool's ring
 * concurrently, all in softirq sections.  One row per n; its figure is
 * the returning CPUs' busy time per page.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/ptr_ring.h>
#include <linux/sched.h>
#include <linux/topology.h>
#include <net/page_pool/helpers.h>

#include "bench_page_pool.h"
#include "time_bench.h"

#define XCPU_MAX_RET	16
#define XCPU_QSIZE	256	/* pages queued to one returning CPU */
#define XCPU_BATCH	64	/* pages per softirq section */
/* Holds every page in flight, so that no return finds the ring full */
#define XCPU_POOL_SIZE	2048
/* A row fails when no page was handed out or returned for this long */
#define XCPU_STALL_NS	(10ULL * NSEC_PER_SEC)

/* A returner runs until told to stop; one whose stop timed out is left */
enum { XCPU_RUN, XCPU_STOP, XCPU_DONE, XCPU_LEFT };

struct xcpu_returner {
	struct ptr_ring queue;
	struct page_pool *pp;
	struct task_struct *task;
	struct completion done;
	atomic_t state;
	struct time_bench_record busy;	/* the sections that returned pages */
	u64 pages;		/* returned so far */
	u64 batches;		/* non-empty softirq sections */
	int cpu;
};

static int xcpu_return(void *arg)
{
	struct xcpu_returner *r = arg;
	struct page *page;
	int n;

	while (atomic_read(&r->state) == XCPU_RUN) {
		time_bench_start(&r->busy);
		local_bh_disable();
		for (n = 0; n < XCPU_BATCH; n++) {
			page = __ptr_ring_consume(&r->queue);
			if (!page)
				break;
			page_pool_put_full_page(r->pp, page, false);
		}
		local_bh_enable();
		if (n) {
			time_bench_stop(&r->busy, n);
			WRITE_ONCE(r->pages, r->pages + n);
			r->batches++;
		}
		cond_resched();
	}
	/* Left by xcpu_stop(), which took a module reference for it */
	if (atomic_cmpxchg(&r->state, XCPU_STOP, XCPU_DONE) == XCPU_LEFT)
		module_put_and_kthread_exit(0);
	kthread_complete_and_exit(&r->done, 0);
}

/*
 * Stop a returner within XCPU_STALL_NS, or leave it to stop when it gets
 * its CPU back, holding the module, its queue and @r until then: false.
 */
static bool xcpu_stop(struct xcpu_returner *r)
{
	atomic_set(&r->state, XCPU_STOP);
	if (wait_for_completion_timeout(&r->done,
					nsecs_to_jiffies(XCPU_STALL_NS)))
		return true;
	__module_get(THIS_MODULE);
	if (atomic_cmpxchg(&r->state, XCPU_STOP, XCPU_LEFT) == XCPU_STOP)
		return false;
	module_put(THIS_MODULE);	/* it stopped meanwhile */
	wait_for_completion(&r->done);
	return true;
}

static u64 xcpu_returned(struct xcpu_returner *r, int nr)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < nr; i++)
		sum += READ_ONCE(r[i].pages);
	return sum;
}

/* No page handed out or returned for XCPU_STALL_NS, or a fatal signal */
static bool xcpu_stuck(struct xcpu_returner *r, int nr, u64 sent, u64 *seen,
		       u64 *since, const bool *stop)
{
	u64 moved = sent + xcpu_returned(r, nr), now = ktime_get_ns();

	if (moved != *seen) {
		*seen = moved;
		*since = now;
	}
	return READ_ONCE(*stop) || now - *since > XCPU_STALL_NS;
}

/*
 * Hand out @total pages, then wait until all are back: 0 or -errno.
 * @alloc times the sections that handed out pages.
 */
static int xcpu_pipe(struct page_pool *pp, struct xcpu_returner *r, int nr,
		     u64 total, struct time_bench_record *alloc,
		     const bool *stop)
{
	u64 sent = 0, seen = 0, since = ktime_get_ns();
	struct page *page = NULL;
	int q = 0, n;

	while (sent < total) {
		time_bench_start(alloc);
		local_bh_disable();
		for (n = 0; n < XCPU_BATCH && sent < total; n++) {
			if (!page)
				page = page_pool_alloc_pages(pp, GFP_ATOMIC);
			/* A full queue: its CPU is behind, try again later */
			if (!page || __ptr_ring_produce(&r[q].queue, page))
				break;
			page = NULL;
			sent++;
			q = q + 1 < nr ? q + 1 : 0;
		}
		local_bh_enable();
		if (n)
			time_bench_stop(alloc, n);
		if (xcpu_stuck(r, nr, sent, &seen, &since, stop))
			break;
		cond_resched();
	}
	if (page)
		page_pool_put_full_page(pp, page, false);
	while (xcpu_returned(r, nr) < sent &&
	       !xcpu_stuck(r, nr, sent, &seen, &since, stop))
		cond_resched();
	if (sent < total || xcpu_returned(r, nr) < sent)
		return READ_ONCE(*stop) ? -EINTR : -ETIMEDOUT;
	return 0;
}

static u64 xcpu_ring_stats(struct page_pool *pp, u64 *ring_full)
{
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats s = {};

	page_pool_get_stats(pp, &s);
	*ring_full = s.recycle_stats.ring_full;
	return s.recycle_stats.ring;
#else
	*ring_full = 0;
	return 0;
#endif
}

/* Percent of @wall that @busy took */
static u64 xcpu_pct(struct time_bench_record *busy,
		    struct time_bench_record *wall)
{
	return div64_u64(busy->time_interval * 100, wall->time_interval);
}

/* The row's "Row:" lines; @ret gets the returning CPUs' sections */
static void xcpu_print(const char *name, struct xcpu_returner *r, int nr,
		       struct time_bench_record *wall,
		       struct time_bench_record *alloc,
		       struct time_bench_record *ret)
{
	int cpu = smp_processor_id(), i;
	u64 most = 0;

	for (i = 0; i < nr; i++) {
		ret->time_interval += r[i].busy.time_interval;
		ret->tsc_interval += r[i].busy.tsc_interval;
		ret->invoked_cnt += r[i].busy.invoked_cnt;
		most = max(most, xcpu_pct(&r[i].busy, wall));
	}
	pr_info("Row:%s %llu pages/s, allocating cpu%d (core %d, node %d) busy %llu%%, bound by the %s\n",
		name, div64_u64(wall->invoked_cnt * NSEC_PER_SEC,
				wall->time_interval),
		cpu, topology_core_id(cpu), cpu_to_node(cpu),
		xcpu_pct(alloc, wall), xcpu_pct(alloc, wall) >= most ?
		"allocating CPU" : "returning CPUs");
	for (i = 0; i < nr; i++)
		pr_info("Row:%s returning cpu%d (core %d, node %d): %llu pages in %llu sections, busy %llu%%\n",
			name, r[i].cpu, topology_core_id(r[i].cpu),
			cpu_to_node(r[i].cpu), r[i].pages, r[i].batches,
			xcpu_pct(&r[i].busy, wall));
}

/* One row: @nr CPUs return; 0 when it passed */
static int xcpu_row(int nr, u32 pages, const bool *stop)
{
	struct page_pool_params pp_params = {
		.pool_size = XCPU_POOL_SIZE,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
	};
	struct time_bench_record rec = {}, alloc = {}, ret = {};
	struct xcpu_returner *r;
	u64 ring, ring_full, full0;
	int i, cpu, err = 0;
	char name[32];
	const char *why = NULL;
	bool left = false;

	snprintf(name, sizeof(name), "cross_cpu_return_%dcpu", nr);
	r = kcalloc(nr, sizeof(*r), GFP_KERNEL);
	if (!r) {
		pr_err("Fail:%s no memory\n", name);
		return 1;
	}
	r[0].pp = page_pool_create(&pp_params);
	if (IS_ERR(r[0].pp)) {
		pr_err("Fail:%s cannot create a page_pool\n", name);
		kfree(r);
		return 1;
	}
	/* The returning CPUs: the first online ones but this one */
	cpu = -1;
	for (i = 0; i < nr && !err; i++) {
		r[i].pp = r[0].pp;
		do
			cpu = cpumask_next(cpu, cpu_online_mask);
		while (cpu == smp_processor_id());
		r[i].cpu = cpu;
		if (cpu >= nr_cpu_ids) { /* gone offline */
			err = -ENODEV;
			break;
		}
		err = ptr_ring_init(&r[i].queue, XCPU_QSIZE, GFP_KERNEL);
		if (err)
			break;
		init_completion(&r[i].done);
		r[i].task = kthread_create_on_cpu(xcpu_return, &r[i], cpu,
						  "bench_pp_ret/%u");
		if (IS_ERR(r[i].task)) {
			err = PTR_ERR(r[i].task);
			ptr_ring_cleanup(&r[i].queue, NULL);
			break;
		}
	}
	nr = i;		/* the returners that have a queue and a thread */
	if (err)
		why = "cannot start the returning CPUs";
	ring = xcpu_ring_stats(r[0].pp, &full0);
	for (i = 0; i < nr; i++) {
		if (err)	/* each started thread runs, to stop */
			atomic_set(&r[i].state, XCPU_STOP);
		wake_up_process(r[i].task);
	}

	if (!err) {
		time_bench_start(&rec);
		err = xcpu_pipe(r[0].pp, r, nr, pages, &alloc, stop);
		time_bench_stop(&rec, pages);
		if (err)
			why = err == -EINTR ? "stopped by a signal" :
			      "no page moved for 10 s";
	}
	for (i = 0; i < nr; i++) {
		struct page *page;

		if (!xcpu_stop(&r[i])) {
			pr_err("Fail:%s returning cpu%d did not stop in 10 s: left to stop when it runs, holding the module\n",
			       name, r[i].cpu);
			why = why ?: "a returning CPU did not stop";
			left = true;
			continue;
		}
		/* What a failed row left queued goes back to the pool */
		while ((page = __ptr_ring_consume(&r[i].queue)))
			page_pool_put_full_page(r[0].pp, page, false);
		ptr_ring_cleanup(&r[i].queue, NULL);
	}

	if (!why && IS_ENABLED(CONFIG_PAGE_POOL_STATS)) {
		ring = xcpu_ring_stats(r[0].pp, &ring_full) - ring;
		ring_full -= full0;
		pr_info("Path:%s expect:ring returned:%u ring:%llu ring_full:%llu\n",
			name, pages, ring, ring_full);
		if (ring != pages)
			why = "pages took another path (see Path: line)";
	}
	if (!why && !time_bench_calc_stats(&rec))
		why = "timing failed";
	if (!why)
		xcpu_print(name, r, nr, &rec, &alloc, &ret);
	if (!why && !time_bench_calc_stats(&ret))
		why = "timing failed";
	if (why)
		pr_err("Fail:%s %s\n", name, why);
	else
		time_bench_print(name, &ret);
	page_pool_destroy(r[0].pp);
	if (!left)
		kfree(r);
	return why ? 1 : 0;
}

/* The rows, on the calling thread's CPU: the number of failed rows */
unsigned int bench_cross_cpu(u32 pages, const bool *stop)
{
	int rows = min_t(int, num_online_cpus() - 1, XCPU_MAX_RET);
	unsigned int failed = 0;
	int nr;

	if (rows < 1)
		pr_info("Skip:cross_cpu_return needs 2 online CPUs, %u online\n",
			num_online_cpus());
	for (nr = 1; nr <= rows && !READ_ONCE(*stop); nr++)
		failed += xcpu_row(nr, pages, stop);
	return failed;
}
