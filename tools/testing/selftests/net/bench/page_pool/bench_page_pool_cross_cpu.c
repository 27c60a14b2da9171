// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cross-CPU return test of bench_page_pool.ko.
 *
 * After the design of Jesper Dangaard Brouer's bench_page_pool_cross_cpu
 * (github.com/netoptimizer/prototype-kernel): one CPU allocates pages in
 * softirq context, as a driver refilling its RX ring in NAPI, while other
 * CPUs return them at the same time, as when packets are freed on other
 * CPUs.  Each returning CPU gets its pages through a queue of its own (a
 * ptr_ring with one producer and one consumer), so page_pool's ptr_ring
 * is the only structure all CPUs share: the returners produce into it,
 * the allocator refills its alloc cache from it.
 *
 * One row per number n of returning CPUs, 1..returning_cpus.  A row ends
 * when each returning CPU has been handed "loops" pages or after
 * XCPU_TIME_MS, whichever comes first.  Both sides work in BH-disabled
 * sections of at most XCPU_BATCH pages, which are timed; waiting for room
 * in a queue or for pages, with rescheduling, is not.  The row's figure
 * is the returners' time per returned page; the allocator's time per page
 * and the share of the wall time each side was busy come with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/ptr_ring.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/page_pool/helpers.h>

#include "bench_page_pool.h"

#define XCPU_ROWS_DEFAULT	4	/* rows without returning_cpus */
#define XCPU_QUEUE_MIN		64	/* pages queued per returning CPU */
#define XCPU_QUEUE_MAX		1024
#define XCPU_RING_MAX		16384	/* page_pool's cap on its ptr_ring */
#define XCPU_RING_SLACK		512	/* alloc cache, a bulk refill, in flight */
#define XCPU_BATCH		64	/* pages per BH-disabled section */
#define XCPU_TIME_MS		4000	/* wall time bound of a row */
#define XCPU_TYPE_MAX		64

/* The allocating or a returning CPU */
struct xcpu_side {
	struct xcpu_row *x;
	struct task_struct *task;
	struct ptr_ring queue;	/* returners: pages from the allocator */
	int cpu;
	int err;
	struct time_bench_record rec;
} ____cacheline_aligned_in_smp;

struct xcpu_row {
	struct page_pool *pp;
	unsigned int nr;	/* returning CPUs */
	u64 target;		/* pages to hand out */
	unsigned long deadline;	/* jiffies */
	bool stop;		/* no more pages: set with release */
	bool timed_out;
	atomic_t running;
	wait_queue_head_t done_wq;
	struct xcpu_side alloc;
	struct xcpu_side ret[];
};

/* A side is done: tell the row, then wait to be stopped */
static int xcpu_side_exit(struct xcpu_side *s)
{
	if (atomic_dec_and_test(&s->x->running))
		wake_up(&s->x->done_wq);
	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Advance *q, round robin, to a returner whose queue has room */
static bool xcpu_room(struct xcpu_row *x, unsigned int *q)
{
	unsigned int i;

	for (i = 0; i < x->nr; i++) {
		if (!__ptr_ring_full(&x->ret[*q].queue))
			return true;
		if (++*q == x->nr)
			*q = 0;
	}
	return false;
}

static int xcpu_alloc_fn(void *arg)
{
	struct xcpu_side *a = arg;
	struct xcpu_row *x = a->x;
	unsigned int q = 0;
	u64 done = 0;

	while (done < x->target && !a->err) {
		struct page *page;
		u32 n = 0, batch;

		if (bench_aborted()) {
			a->err = -EINTR;
			break;
		}
		if (time_after(jiffies, x->deadline)) {
			x->timed_out = true;
			break;
		}
		/* All queues full: the returners are behind, wait for them */
		if (!xcpu_room(x, &q)) {
			cpu_relax();
			cond_resched();
			continue;
		}
		batch = min_t(u64, XCPU_BATCH, x->target - done);
		local_bh_disable();
		time_bench_start(&a->rec);
		while (n < batch && xcpu_room(x, &q)) {
			page = page_pool_alloc_pages(x->pp, GFP_ATOMIC);
			if (unlikely(!page)) {
				a->err = -ENOMEM;
				break;
			}
			/* One producer: no lock, and there is room */
			__ptr_ring_produce(&x->ret[q].queue, page);
			if (++q == x->nr)
				q = 0;
			n++;
		}
		time_bench_stop(&a->rec, n);
		local_bh_enable();
		done += n;
		cond_resched();
	}
	/* Release: the returners see every page produced before stop */
	smp_store_release(&x->stop, true);
	return xcpu_side_exit(a);
}

static int xcpu_return_fn(void *arg)
{
	struct xcpu_side *r = arg;
	struct xcpu_row *x = r->x;

	for (;;) {
		struct page *page;
		u32 n = 0;

		if (__ptr_ring_empty(&r->queue)) {
			/* Acquire pairs with the allocator's release of stop */
			if (smp_load_acquire(&x->stop) &&
			    __ptr_ring_empty(&r->queue))
				break;
			cpu_relax();
			cond_resched();
			continue;
		}
		local_bh_disable();
		time_bench_start(&r->rec);
		/* One consumer: no lock */
		while (n < XCPU_BATCH && (page = __ptr_ring_consume(&r->queue))) {
			page_pool_put_full_page(x->pp, page, false);
			n++;
		}
		time_bench_stop(&r->rec, n);
		local_bh_enable();
	}
	return xcpu_side_exit(r);
}

/* Return what the queues hold to the pool; the threads are not running */
static void xcpu_drain(struct xcpu_row *x)
{
	struct page *page;
	unsigned int k;

	for (k = 0; k < x->nr; k++) {
		while ((page = __ptr_ring_consume(&x->ret[k].queue)))
			page_pool_put_full_page(x->pp, page, false);
	}
}

/*
 * Put a queue's worth of pages per returner in the pool's ptr_ring, so
 * that the allocator runs on recycled pages from the start.
 */
static int xcpu_warmup(struct xcpu_row *x)
{
	struct page *page;
	unsigned int k;
	int err = 0;

	for (k = 0; k < x->nr && !err; k++) {
		while (!__ptr_ring_full(&x->ret[k].queue)) {
			page = page_pool_alloc_pages(x->pp, GFP_KERNEL);
			if (!page) {
				err = -ENOMEM;
				break;
			}
			__ptr_ring_produce(&x->ret[k].queue, page);
		}
	}
	xcpu_drain(x);
	return err;
}

/* Busy time of @rec in per mille of @wall nanoseconds */
static unsigned int xcpu_busy(const struct time_bench_record *rec, u64 wall)
{
	return wall ? div64_u64(rec->time_interval * 1000, wall) : 0;
}

static int xcpu_report(const char *type, const char *label,
		       struct xcpu_row *x, u64 wall)
{
	char side[XCPU_TYPE_MAX], lbl[64];
	struct time_bench_record sum;
	unsigned int k, busy = 0;
	int err;

	time_bench_init(&sum, XCPU_BATCH);
	for (k = 0; k < x->nr; k++) {
		struct xcpu_side *r = &x->ret[k];

		snprintf(lbl, sizeof(lbl), "cpu:%d%s%s", r->cpu,
			 label ? " " : "", label ?: "");
		err = bench_report(type, lbl, &r->rec);
		if (err)
			return err;
		time_bench_add(&sum, &r->rec);
		busy += xcpu_busy(&r->rec, wall);
	}
	snprintf(side, sizeof(side), "%s_alloc", type);
	snprintf(lbl, sizeof(lbl), "cpu:%d%s%s", x->alloc.cpu,
		 label ? " " : "", label ?: "");
	err = bench_report(side, lbl, &x->alloc.rec);
	if (err)
		return err;
	pr_info("Row:%s pages:%llu of %llu in %llu ms%s, busy: allocator %u.%u%%, returners %u.%u%% (mean)\n",
		type, sum.invoked_cnt, x->target, div_u64(wall, NSEC_PER_MSEC),
		x->timed_out ? " (time bound reached)" : "",
		xcpu_busy(&x->alloc.rec, wall) / 10,
		xcpu_busy(&x->alloc.rec, wall) % 10,
		busy / x->nr / 10, busy / x->nr % 10);
	/* The row's figure: the returners' time per page */
	return bench_report(type, label, &sum);
}

/* Create the thread of @s on its CPU; it runs once woken */
static int xcpu_side_create(struct xcpu_side *s, struct xcpu_row *x,
			    int (*fn)(void *), const char *what)
{
	s->x = x;
	time_bench_init(&s->rec, XCPU_BATCH);
	s->task = kthread_create_on_cpu(fn, s, s->cpu, what);
	if (IS_ERR(s->task)) {
		int err = PTR_ERR(s->task);

		s->task = NULL;
		pr_err("cannot start %s on CPU %d: %d\n", what, s->cpu, err);
		return err;
	}
	return 0;
}

/* One row: @nr returners; the caller holds the CPU hotplug lock */
static int xcpu_row(const char *type, const char *label, unsigned int nr,
		    int alloc_cpu, u64 loops, bool verbose)
{
	unsigned int k, qsize, queues = 0, started = 0;
	struct pp_recycle_cnt before, after;
	struct pp_path_acc acc = {};
	struct xcpu_row *x;
	u64 returned = 0, t0, wall;
	int cpu, err = 0;

	x = kzalloc(struct_size(x, ret, nr), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->nr = nr;
	x->target = loops * nr;
	atomic_set(&x->running, nr + 1);
	init_waitqueue_head(&x->done_wq);

	/* The pool's ring holds every page of the queues and some more */
	qsize = clamp_t(unsigned int, (XCPU_RING_MAX - XCPU_RING_SLACK) / nr,
			XCPU_QUEUE_MIN, XCPU_QUEUE_MAX);
	x->pp = page_pool_create(&(struct page_pool_params){
		.pool_size = nr * qsize + XCPU_RING_SLACK,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_BIDIRECTIONAL,
	});
	if (IS_ERR(x->pp)) {
		err = PTR_ERR(x->pp);
		pr_err("Type:%s page_pool_create failed: %d\n", type, err);
		goto out_free;
	}

	k = 0;
	for_each_online_cpu(cpu) {
		if (k == nr)
			break;
		if (cpu != alloc_cpu)
			x->ret[k++].cpu = cpu;
	}
	for (queues = 0; queues < nr; queues++) {
		err = ptr_ring_init(&x->ret[queues].queue, qsize, GFP_KERNEL);
		if (err)
			goto out_stop;
	}
	for (started = 0; started < nr; started++) {
		err = xcpu_side_create(&x->ret[started], x, xcpu_return_fn,
				       "pp_bench_ret/%u");
		if (err)
			goto out_stop;
	}
	x->alloc.cpu = alloc_cpu;
	err = xcpu_side_create(&x->alloc, x, xcpu_alloc_fn, "pp_bench_alloc/%u");
	if (!err)
		err = xcpu_warmup(x);
	if (err)
		goto out_stop;
	if (verbose)
		pr_info("Type:%s allocating on CPU %d, %u returning CPUs, queues of %u pages, ring %u\n",
			type, alloc_cpu, nr, qsize, nr * qsize + XCPU_RING_SLACK);

	pp_recycle_cnt_read(x->pp, &before);
	t0 = ktime_get_ns();
	x->deadline = jiffies + msecs_to_jiffies(XCPU_TIME_MS);
	for (k = 0; k < nr; k++)
		wake_up_process(x->ret[k].task);
	wake_up_process(x->alloc.task);
	/* Bounded: the allocator stops at the deadline, returners drain */
	wait_event_idle(x->done_wq, !atomic_read(&x->running));
	wall = ktime_get_ns() - t0;
	pp_recycle_cnt_read(x->pp, &after);

	err = x->alloc.err;
	for (k = 0; k < nr; k++)
		returned += x->ret[k].rec.invoked_cnt;
	/* The pool's ring holds every page in circulation: none may miss it */
	pp_path_sum_add(&acc, &before, &after, returned);
	pp_path_print(type, PP_RING, &acc);
	if (!err)
		err = pp_check_path(type, PP_RING, returned, returned,
				    &before, &after);
	if (!err)
		err = xcpu_report(type, label, x, wall);
out_stop:
	if (x->alloc.task)
		kthread_stop(x->alloc.task);
	for (k = 0; k < started; k++)
		kthread_stop(x->ret[k].task);
	/* The returners emptied their queues */
	for (k = 0; k < queues; k++)
		ptr_ring_cleanup(&x->ret[k].queue, NULL);
	/* Every page is back in the pool: this frees them */
	page_pool_destroy(x->pp);
out_free:
	kfree(x);
	if (err)
		pr_err("FAIL Type:%s error %d\n", type, err);
	return err;
}

/*
 * The rows for 1..@returning_cpus returning CPUs (0: as many as there
 * are other online CPUs, at most XCPU_ROWS_DEFAULT), allocating on @cpu
 * (-1: the first online CPU).  With one online CPU the test is skipped.
 */
int bench_cross_cpu_run(const char *name, const char *label, u64 loops,
			int cpu, unsigned int returning_cpus, bool verbose)
{
	char type[XCPU_TYPE_MAX];
	unsigned int n, rows, online;
	int err = 0;

	for (n = 1; ; n++) {
		cpus_read_lock();
		online = num_online_cpus();
		rows = returning_cpus ?:
			min_t(unsigned int, online - 1, XCPU_ROWS_DEFAULT);
		if (n > rows) {
			/* done */
		} else if (cpu >= 0 && !cpu_online(cpu)) {
			pr_err("Type:%s CPU %d is offline\n", name, cpu);
			err = -ENODEV;
		} else if (rows >= online) {
			pr_err("Type:%s %u returning CPUs, but only %u other CPUs are online\n",
			       name, rows, online - 1);
			err = -ENODEV;
		} else if (bench_aborted()) {
			err = -EINTR;
		} else {
			snprintf(type, sizeof(type), "%s_%ucpu", name, n);
			err = xcpu_row(type, label, n,
				       cpu >= 0 ? cpu : cpumask_first(cpu_online_mask),
				       loops, verbose);
		}
		cpus_read_unlock();
		if (err || n > rows)
			break;
	}
	if (!err && n == 1)
		pr_info("Type:%s skipped: needs 2 online CPUs, %u online\n",
			name, online);
	return err;
}
