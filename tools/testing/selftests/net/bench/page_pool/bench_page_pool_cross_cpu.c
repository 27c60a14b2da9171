// SPDX-License-Identifier: GPL-2.0-only
/*
 * Concurrent cross-CPU return: the pages of one page_pool are allocated
 * on one CPU and returned on others, as when a driver's RX pages are
 * freed by the CPUs that consume the packets.  The returning CPUs put
 * the pages into the pool's ptr_ring concurrently, contending on its
 * producer lock, while the allocating CPU refills its cache from it.
 * After Jesper Dangaard Brouer's bench_page_pool_cross_cpu in
 * github.com/netoptimizer/prototype-kernel.
 *
 * One row per number of returning CPUs, 1 up to XCPU_MAX_RET (at most
 * the online CPUs but the allocating one).  The allocating CPU hands the
 * pages out round-robin over single-producer single-consumer ptr_rings,
 * one per returning CPU; both sides run in softirq context, as NAPI
 * does.  A row is timed as a whole, from the first allocation until
 * every page is back in the pool, so its figure is the wall time per
 * page of the whole pipeline: the inverse of its throughput.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/ptr_ring.h>
#include <linux/sched.h>
#include <linux/topology.h>
#include <net/page_pool/helpers.h>

#include "bench_page_pool.h"
#include "time_bench.h"

#define XCPU_MAX_RET	4
#define XCPU_QSIZE	256	/* pages queued to one returning CPU */
#define XCPU_BATCH	64	/* pages per softirq section */
/* Holds every page in flight, so that no return finds the ring full */
#define XCPU_POOL_SIZE	2048
#define XCPU_TIMEOUT_NS	(60 * NSEC_PER_SEC)

struct xcpu_returner {
	struct ptr_ring queue;
	struct page_pool *pp;
	struct task_struct *task;
	u64 pages;		/* returned so far */
	u64 batches;		/* non-empty softirq sections */
	int cpu;
};

static int xcpu_return(void *arg)
{
	struct xcpu_returner *r = arg;
	struct page *page;
	int n;

	while (!kthread_should_stop()) {
		local_bh_disable();
		for (n = 0; n < XCPU_BATCH; n++) {
			page = __ptr_ring_consume(&r->queue);
			if (!page)
				break;
			page_pool_put_full_page(r->pp, page, false);
		}
		local_bh_enable();
		if (n) {
			WRITE_ONCE(r->pages, r->pages + n);
			r->batches++;
		}
		cond_resched();
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

/* Hand out @total pages, then wait until all are back: 0 or -errno */
static int xcpu_pipe(struct page_pool *pp, struct xcpu_returner *r, int nr,
		     u64 total, const bool *stop)
{
	u64 deadline = ktime_get_ns() + XCPU_TIMEOUT_NS;
	struct page *page = NULL;
	u64 sent = 0;
	int q = 0, n;

	while (sent < total) {
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
		if (READ_ONCE(*stop) || ktime_get_ns() > deadline)
			break;
		cond_resched();
	}
	if (page)
		page_pool_put_full_page(pp, page, false);
	while (xcpu_returned(r, nr) < sent && ktime_get_ns() < deadline)
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

static void xcpu_print(const char *name, struct xcpu_returner *r, int nr,
		       struct time_bench_record *rec)
{
	int cpu = smp_processor_id(), i;

	pr_info("Row:%s %llu pages/s, allocating cpu%d (core %d, node %d)\n",
		name, div64_u64(rec->invoked_cnt * NSEC_PER_SEC,
				rec->time_interval),
		cpu, topology_core_id(cpu), cpu_to_node(cpu));
	for (i = 0; i < nr; i++)
		pr_info("Row:%s returning cpu%d (core %d, node %d): %llu pages in %llu sections\n",
			name, r[i].cpu, topology_core_id(r[i].cpu),
			cpu_to_node(r[i].cpu), r[i].pages, r[i].batches);
}

/* One row: @nr CPUs return; 0 when it passed */
static int xcpu_row(int nr, u32 pages, const bool *stop)
{
	struct page_pool_params pp_params = {
		.pool_size = XCPU_POOL_SIZE,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
	};
	struct time_bench_record rec = {};
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
	if (err)
		why = "cannot start the returning CPUs";
	ring = xcpu_ring_stats(r[0].pp, &full0);
	for (i = 0; i < nr && !err; i++)
		wake_up_process(r[i].task);

	if (!err) {
		time_bench_start(&rec);
		err = xcpu_pipe(r[0].pp, r, nr, pages, stop);
		time_bench_stop(&rec, pages);
		if (err)
			why = err == -EINTR ? "stopped by a signal" :
			      "timed out: pages were not returned";
	}
	for (i = 0; i < nr; i++) {
		struct page *page;

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
	if (!why && !time_bench_calc_stats(&rec))
		why = "timing failed";
	if (why) {
		pr_err("Fail:%s %s\n", name, why);
	} else {
		xcpu_print(name, r, nr, &rec);
		time_bench_print(name, &rec);
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
