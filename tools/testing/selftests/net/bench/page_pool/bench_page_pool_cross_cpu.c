// SPDX-License-Identifier: GPL-2.0-only
/*
 * Concurrent cross-CPU return, after Jesper Dangaard Brouer's
 * bench_page_pool_cross_cpu in github.com/netoptimizer/prototype-kernel:
 * one CPU allocates a pool's pages and hands them out round-robin, over a
 * ptr_ring each, to n others, which return them into the pool's ring
 * concurrently, in softirq sections of XCPU_BATCH pages, as a NAPI poll
 * frees a budget's worth.  One row per n; its figure is the returning
 * CPUs' time per page in those sections, less their clock reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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
/*
 * The most pages the pool owns: those queued, one a returner holds
 * between its queue and the pool, one the allocating CPU holds, and a
 * refill from the page allocator, which comes only when the pool's cache
 * and ring are empty.  Its ring holds them all: no return finds it full.
 */
#define XCPU_POOL_SIZE	(XCPU_MAX_RET * (XCPU_QSIZE + 1) + 1 + \
			 PP_ALLOC_CACHE_REFILL)
/* A row fails when no page was handed out or returned for this long */
#define XCPU_STALL_NS	(10ULL * NSEC_PER_SEC)
/* Empty sections timed for the cost of a section's clock reads */
#define XCPU_CLOCK_RUNS	1024

struct xcpu_returner {
	struct ptr_ring queue;
	struct page_pool *pp;
	struct task_struct *task;
	struct time_bench_record busy;	/* the sections that returned pages */
	struct time_bench_record clock;	/* empty sections */
	u32 sent;		/* queued so far, published by the allocator */
	u32 expect;		/* the row's pages for this returner */
	u32 pages;		/* returned so far */
	int cpu;
};

/* Return XCPU_BATCH pages a section, or the row's last ones, until stopped */
static int xcpu_return(void *arg)
{
	struct xcpu_returner *r = arg;
	u32 done = 0, n, i;

	for (i = 0; i < XCPU_CLOCK_RUNS; i++) {
		time_bench_start(&r->clock);
		time_bench_stop(&r->clock, 1);
	}
	while (!kthread_should_stop()) {
		n = min_t(u32, r->expect - done, XCPU_BATCH);
		/* Pairs with xcpu_pipe()'s release: n pages are queued */
		if (!n || smp_load_acquire(&r->sent) - done < n) {
			cond_resched();
			continue;
		}
		time_bench_start(&r->busy);
		local_bh_disable();
		for (i = 0; i < n; i++)
			page_pool_put_full_page(r->pp,
						__ptr_ring_consume(&r->queue),
						false);
		local_bh_enable();
		time_bench_stop(&r->busy, n);
		done += n;
		WRITE_ONCE(r->pages, done);
	}
	return 0;
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
	int q = 0, n, i;

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
		for (i = 0; i < nr; i++) {
			/*
			 * What r[i] got, round-robin from r[0]; pairs with its
			 * acquire: that many pages are in its queue
			 */
			smp_store_release(&r[i].sent,
					  (u32)div_u64(sent + nr - 1 - i, nr));
		}
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

/*
 * @ret gets the returning CPUs' sections, each less what its clock reads
 * took: 0 when they took longer than the sections
 */
static bool xcpu_sum(struct xcpu_returner *r, int nr,
		     struct time_bench_record *ret)
{
	u64 sections, ns, cycles;
	int i;

	for (i = 0; i < nr; i++) {
		sections = DIV_ROUND_UP(r[i].pages, XCPU_BATCH);
		ns = div_u64(sections * r[i].clock.time_interval,
			     XCPU_CLOCK_RUNS);
		cycles = div_u64(sections * r[i].clock.tsc_interval,
				 XCPU_CLOCK_RUNS);
		if (ns >= r[i].busy.time_interval ||
		    cycles > r[i].busy.tsc_interval)
			return false;
		ret->time_interval += r[i].busy.time_interval - ns;
		ret->tsc_interval += r[i].busy.tsc_interval - cycles;
		ret->invoked_cnt += r[i].busy.invoked_cnt;
	}
	return true;
}

/* The row's "Row:" lines */
static void xcpu_print(const char *name, struct xcpu_returner *r, int nr,
		       struct time_bench_record *wall,
		       struct time_bench_record *alloc)
{
	int cpu = smp_processor_id(), i;
	u64 most = 0;

	for (i = 0; i < nr; i++)
		most = max(most, xcpu_pct(&r[i].busy, wall));
	pr_info("Row:%s %llu pages/s, allocating cpu%d (core %d, node %d) busy %llu%%, bound by the %s\n",
		name, div64_u64(wall->invoked_cnt * NSEC_PER_SEC,
				wall->time_interval),
		cpu, topology_core_id(cpu), cpu_to_node(cpu),
		xcpu_pct(alloc, wall), xcpu_pct(alloc, wall) >= most ?
		"allocating CPU" : "returning CPUs");
	for (i = 0; i < nr; i++)
		pr_info("Row:%s returning cpu%d (core %d, node %d): %u pages, busy %llu%%, clock reads %llu ns a section\n",
			name, r[i].cpu, topology_core_id(r[i].cpu),
			cpu_to_node(r[i].cpu), r[i].pages,
			xcpu_pct(&r[i].busy, wall),
			div_u64(r[i].clock.time_interval, XCPU_CLOCK_RUNS));
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
		r[i].expect = div_u64(pages + nr - 1 - i, nr);
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
		r[i].task = kthread_create_on_cpu(xcpu_return, &r[i], cpu,
						  "bench_pp_ret/%u");
		if (IS_ERR(r[i].task)) {
			err = PTR_ERR(r[i].task);
			ptr_ring_cleanup(&r[i].queue, NULL);
			break;
		}
	}
	nr = i;		/* the returners that have a queue and a thread */
	ring = xcpu_ring_stats(r[0].pp, &full0);
	if (err) {
		why = "cannot start the returning CPUs";
	} else {
		for (i = 0; i < nr; i++)
			wake_up_process(r[i].task);
		time_bench_start(&rec);
		err = xcpu_pipe(r[0].pp, r, nr, pages, &alloc, stop);
		time_bench_stop(&rec, pages);
		if (err)
			why = err == -EINTR ? "stopped by a signal" :
			      "no page moved for 10 s";
	}
	for (i = 0; i < nr; i++) {
		struct page *page;

		/* Waits as long as a starved returner takes to run again */
		kthread_stop(r[i].task);
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
	if (!why && (!time_bench_calc_stats(&rec) || !xcpu_sum(r, nr, &ret) ||
		     !time_bench_calc_stats(&ret)))
		why = "timing failed";
	if (why) {
		pr_err("Fail:%s %s\n", name, why);
	} else {
		xcpu_print(name, r, nr, &rec, &alloc);
		time_bench_print(name, &ret);
	}
	page_pool_destroy(r[0].pp);
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
