// SPDX-License-Identifier: GPL-2.0
/*
 * ptr_ring_test - self-checking, self-timing benchmark of struct ptr_ring.
 *
 * ptr_ring (include/linux/ptr_ring.h) is a header-only FIFO of pointers used
 * by tun/tap, vhost-net, veth, cpumap and page_pool.  This test builds the
 * tree's own header, unchanged, in userspace (see ptr_ring_test.h for the
 * few kernel primitives it needs) and runs it in several modes:
 *
 *   single         one thread fills the ring, then drains it
 *                  (ptr_ring_produce / ptr_ring_consume).
 *   spsc           producer and consumer threads pinned to two CPUs, one
 *                  item per locked call.
 *   batch_consume  as spsc, the consumer uses ptr_ring_consume_batched(),
 *                  i.e. one consumer_lock round trip per batch.
 *   batch_produce  as spsc, the producer takes producer_lock once per batch
 *                  and calls __ptr_ring_produce() for each item.  ptr_ring
 *                  has no batched produce call: every item is published as
 *                  soon as it is stored, so a batch saves lock round trips,
 *                  not publications.
 *   resize         as spsc, and the consumer calls ptr_ring_resize() at
 *                  regular intervals, alternating between the ring size and
 *                  twice that.  Items that do not fit a shrunk ring are given
 *                  to the destroy callback; the test keeps them and checks
 *                  them in order after the entries that stayed in the ring.
 *
 * Why a kselftest next to tools/virtio/ringtest/ptr_ring.c: that program
 * carries its own shims (which no longer link with the header: data_race(),
 * alloc_hooks() and the *_noprof allocators are missing), prints nothing
 * but its end and needs perf stat to say anything about speed.  This test
 * needs no root, module or perf, builds against the header of the tree it
 * lives in, reports KTAP with one subtest per mode, and verifies and times
 * itself, so that a change to ptr_ring.h can be checked and measured by
 * running the selftests.  Each item is a sequence number; the consumer
 * checks that every item arrives exactly once and in order and compares an
 * order-sensitive checksum, so loss, duplication or reordering fails the
 * subtest with what was expected and what was seen.  Each repetition is
 * timed with CLOCK_MONOTONIC (and the TSC on x86), a warm-up repetition is
 * discarded and min/median/max are printed on one line per mode:
 *
 *   # <mode>: ns_per_item min <x> median <x> max <x> items_per_sec <x> reps <n>
 *
 * followed on x86 by " cycles_per_item median <x>" (TSC cycles).  The run
 * can still be wrapped in perf stat.
 *
 * --json FILE also writes every timed repetition, its statistics (with a
 * 95 % confidence interval of the mean) and where it was measured to FILE,
 * in the "kselftest-bench" format that
 * tools/testing/selftests/net/bench/bench_compare.py reads and compares.
 * BENCH_DETERMINISTIC=1 in the environment marks a run whose cycle counter
 * counts instructions (e.g. QEMU with -icount).
 *
 * Fault injection, for testing this test: build with
 * -DPTR_RING_TEST_INJECT=drop or -DPTR_RING_TEST_INJECT=dup and the producer
 * skips, or sends twice, the item in the middle of every repetition.  Every
 * mode must then fail.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

#include "../kselftest.h"
#include "ptr_ring_test.h"

#define PTR_RING_INJECT_none	0
#define PTR_RING_INJECT_drop	1
#define PTR_RING_INJECT_dup	2
#ifndef PTR_RING_TEST_INJECT
#define PTR_RING_TEST_INJECT	none
#endif
#define __INJECT(x)		PTR_RING_INJECT_##x
#define INJECT(x)		__INJECT(x)
static const int inject = INJECT(PTR_RING_TEST_INJECT);

#define MAX_RING_SIZE	(KMALLOC_MAX_SIZE / sizeof(void *))
#define MAX_COUNT	1000000000UL
/*
 * --count auto (the default): the warm-up runs AUTO_MIN items, then the
 * timed repetitions get as many items as take about AUTO_TARGET_NS, within
 * [AUTO_MIN, AUTO_MAX].  A fast, quiet machine gets long enough
 * repetitions for stable figures; a slow, busy or emulated one is not kept
 * longer than with AUTO_MIN.
 */
#define AUTO_MIN	500000UL
#define AUTO_MAX	2000000UL
#define AUTO_TARGET_NS	30000000.0
#define MAX_REPS	1000UL
#define RESIZES_PER_REP	64

enum mode_id {
	MODE_SINGLE,
	MODE_SPSC,
	MODE_BATCH_CONSUME,
	MODE_BATCH_PRODUCE,
	MODE_RESIZE,
	NR_MODES
};

static const char * const mode_names[NR_MODES] = {
	[MODE_SINGLE]		= "single",
	[MODE_SPSC]		= "spsc",
	[MODE_BATCH_CONSUME]	= "batch_consume",
	[MODE_BATCH_PRODUCE]	= "batch_produce",
	[MODE_RESIZE]		= "resize",
};

struct config {
	unsigned long size;
	unsigned long count;
	unsigned long batch;
	unsigned long reps;
	bool auto_count;
	int prod_cpu;
	int cons_cpu;
	bool two_cpus;
	unsigned int modes;
	const char *json_path;
	FILE *json;
};

/* What --json reports of a mode: its timed repetitions. */
struct mode_result {
	const char *status;		/* NULL: not run */
	unsigned long reps;		/* repetitions completed */
	unsigned long *items;
	double *ns;
	double *cycles;
};

static struct mode_result results[NR_MODES];

/* Consumer-side bookkeeping, also used to report the first error. */
struct verify {
	unsigned long next;
	unsigned long seen;
	unsigned long long csum;
	unsigned long errors;
	unsigned long bad_index;
	unsigned long bad_expected;
	unsigned long bad_seen;
};

struct run {
	struct ptr_ring ring;
	const struct config *cfg;
	enum mode_id mode;
	unsigned long count;
	unsigned long n_emit;

	/* Start/stop handshake and the producer's clock, once per run. */
	int consumer_ready ____cacheline_aligned_in_smp;
	int producer_done;
	struct timespec t_start;
	unsigned long long tsc_start;
	long prod_preempted;

	/* Written by the consumer at the end of a run. */
	struct verify v ____cacheline_aligned_in_smp;
	struct timespec t_end;
	unsigned long long tsc_end;
	long cons_preempted;
	unsigned long resizes;
	unsigned long rescued;
	int err;
	void **array;
};

/* Items are sequence numbers, offset by one as NULL means "empty". */
static inline void *seq_to_ptr(unsigned long seq)
{
	return (void *)(uintptr_t)(seq + 1);
}

/* The sequence number of the i-th item the producer sends. */
static inline unsigned long emit_seq(const struct run *run, unsigned long i)
{
	unsigned long half = run->count / 2;

	if (inject == PTR_RING_INJECT_drop && i >= half)
		return i + 1;
	if (inject == PTR_RING_INJECT_dup && i > half)
		return i - 1;
	return i;
}

/*
 * Order is checked item by item; the checksum, a sum of (seq + 1) times the
 * position it arrived at, also catches anything lost, repeated, reordered or
 * corrupted.  The multiply is off the loop-carried dependency chain.
 */
static inline unsigned long long csum_add(unsigned long long csum,
					  unsigned long seq, unsigned long pos)
{
	return csum + (unsigned long long)(seq + 1) * (pos + 1);
}

static inline void verify_item(struct verify *v, void *ptr)
{
	unsigned long seq = (uintptr_t)ptr - 1;

	if (unlikely(seq != v->next) && !v->errors++) {
		v->bad_index = v->seen;
		v->bad_expected = v->next;
		v->bad_seen = seq;
	}
	v->next = seq + 1;
	v->csum = csum_add(v->csum, seq, v->seen);
	v->seen++;
}

static void now(struct timespec *ts, unsigned long long *tsc)
{
#if HAVE_TSC
	/* Not rdtscp: QEMU's default CPU model does not have it. */
	*tsc = __rdtsc();
#else
	*tsc = 0;
#endif
	clock_gettime(CLOCK_MONOTONIC, ts);
}

/* Involuntary context switches of the calling thread so far. */
static long preemptions(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nivcsw;
}

static void start_clock(struct run *run)
{
	now(&run->t_start, &run->tsc_start);
}

static void stop_clock(struct run *run)
{
	now(&run->t_end, &run->tsc_end);
}

static void *single_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	unsigned long i = 0, n = run->n_emit;
	struct verify v = { 0 };
	void *ptr;

	run->prod_preempted = -preemptions();
	start_clock(run);
	do {
		while (i < n && !ptr_ring_produce(r, seq_to_ptr(emit_seq(run, i))))
			i++;
		while ((ptr = ptr_ring_consume(r)))
			verify_item(&v, ptr);
	} while (i < n);
	stop_clock(run);
	run->prod_preempted += preemptions();
	run->v = v;
	return NULL;
}

static void producer_start(struct run *run)
{
	run->prod_preempted = -preemptions();
	while (!smp_load_acquire(&run->consumer_ready)) /* pairs with consumer_start() */
		cpu_relax();
	start_clock(run);
}

static void *producer_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	unsigned long i, n = run->n_emit;

	producer_start(run);
	for (i = 0; i < n; i++)
		while (ptr_ring_produce(r, seq_to_ptr(emit_seq(run, i))))
			cpu_relax();
	run->prod_preempted += preemptions();
	smp_store_release(&run->producer_done, 1); /* after the last item */
	return NULL;
}

static void *batch_producer_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	unsigned long batch = run->cfg->batch;
	unsigned long i = 0, end, n = run->n_emit;

	producer_start(run);
	while (i < n) {
		end = i + batch < n ? i + batch : n;
		spin_lock(&r->producer_lock);
		while (i < end && !__ptr_ring_produce(r, seq_to_ptr(emit_seq(run, i))))
			i++;
		spin_unlock(&r->producer_lock);
		if (i < end)
			cpu_relax();
	}
	run->prod_preempted += preemptions();
	smp_store_release(&run->producer_done, 1); /* after the last item */
	return NULL;
}

static void consumer_start(struct run *run)
{
	run->cons_preempted = -preemptions();
	smp_store_release(&run->consumer_ready, 1); /* pairs with producer_start() */
}

/* Called when the ring looked empty: true once everything was consumed. */
static inline bool consumer_done(struct run *run, struct verify *v)
{
	void *ptr;

	if (!smp_load_acquire(&run->producer_done)) { /* all items are in the ring */
		cpu_relax();
		return false;
	}
	while ((ptr = ptr_ring_consume(&run->ring)))
		verify_item(v, ptr);
	return true;
}

static void *consumer_thread(void *arg)
{
	struct run *run = arg;
	struct verify v = { 0 };
	void *ptr;

	consumer_start(run);
	for (;;) {
		ptr = ptr_ring_consume(&run->ring);
		if (ptr)
			verify_item(&v, ptr);
		else if (consumer_done(run, &v))
			break;
	}
	stop_clock(run);
	run->cons_preempted += preemptions();
	run->v = v;
	return NULL;
}

static void *batch_consumer_thread(void *arg)
{
	struct run *run = arg;
	int batch = run->cfg->batch;
	struct verify v = { 0 };
	int i, n;

	consumer_start(run);
	for (;;) {
		n = ptr_ring_consume_batched(&run->ring, run->array, batch);
		for (i = 0; i < n; i++)
			verify_item(&v, run->array[i]);
		if (!n && consumer_done(run, &v))
			break;
	}
	stop_clock(run);
	run->cons_preempted += preemptions();
	run->v = v;
	return NULL;
}

/* Items that ptr_ring_resize() could not fit into the new, smaller ring. */
static __thread struct {
	void **items;
	unsigned long n;
} rescue;

static void rescue_item(void *ptr)
{
	rescue.items[rescue.n++] = ptr;
}

static void *resize_consumer_thread(void *arg)
{
	struct run *run = arg;
	unsigned long size = run->cfg->size;
	unsigned long big = size * 2 > MAX_RING_SIZE ? size : size * 2;
	unsigned long interval = run->count / RESIZES_PER_REP + 1;
	unsigned long next_resize = interval;
	unsigned long quota = 0, pos = 0;
	unsigned long new_size;
	struct verify v = { 0 };
	void *ptr;

	rescue.items = run->array;
	rescue.n = 0;
	consumer_start(run);
	for (;;) {
		/*
		 * After a shrink that rescued items, the ring holds exactly
		 * new_size older items: check those first, then the rescued.
		 */
		if (!quota && pos < rescue.n) {
			verify_item(&v, rescue.items[pos++]);
			continue;
		}
		ptr = ptr_ring_consume(&run->ring);
		if (ptr) {
			verify_item(&v, ptr);
			if (quota)
				quota--;
		} else if (consumer_done(run, &v)) {
			break;
		}
		if (v.seen < next_resize || pos < rescue.n)
			continue;

		next_resize += interval;
		new_size = run->resizes & 1 ? size : big;
		rescue.n = 0;
		pos = 0;
		if (ptr_ring_resize(&run->ring, new_size, GFP_KERNEL,
				    rescue_item)) {
			/* Keep consuming so that the producer can finish. */
			run->err = -ENOMEM;
			next_resize = ULONG_MAX;
			continue;
		}
		run->resizes++;
		run->rescued += rescue.n;
		if (rescue.n)
			quota = new_size;
	}
	stop_clock(run);
	run->cons_preempted += preemptions();
	run->v = v;
	return NULL;
}

static int start_thread(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_attr_init(&attr);
	if (ret)
		return -ret;
	ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!ret)
		ret = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -ret;
}

/* Run one repetition; returns 0 or a negative errno. */
static int run_once(struct run *run)
{
	static void *(* const producers[NR_MODES])(void *) = {
		[MODE_SPSC]		= producer_thread,
		[MODE_BATCH_CONSUME]	= producer_thread,
		[MODE_BATCH_PRODUCE]	= batch_producer_thread,
		[MODE_RESIZE]		= producer_thread,
	};
	static void *(* const consumers[NR_MODES])(void *) = {
		[MODE_SINGLE]		= single_thread,
		[MODE_SPSC]		= consumer_thread,
		[MODE_BATCH_CONSUME]	= batch_consumer_thread,
		[MODE_BATCH_PRODUCE]	= consumer_thread,
		[MODE_RESIZE]		= resize_consumer_thread,
	};
	const struct config *cfg = run->cfg;
	pthread_t prod, cons;
	int ret;

	if (ptr_ring_init(&run->ring, cfg->size, GFP_KERNEL))
		return -ENOMEM;
	run->consumer_ready = 0;
	run->producer_done = 0;
	memset(&run->v, 0, sizeof(run->v));
	run->resizes = 0;
	run->rescued = 0;
	run->prod_preempted = 0;
	run->cons_preempted = 0;
	run->err = 0;

	if (run->mode == MODE_SINGLE) {
		ret = start_thread(&cons, cfg->prod_cpu, single_thread, run);
		if (!ret)
			pthread_join(cons, NULL);
		goto out;
	}

	ret = start_thread(&cons, cfg->cons_cpu, consumers[run->mode], run);
	if (ret)
		goto out;
	ret = start_thread(&prod, cfg->prod_cpu, producers[run->mode], run);
	if (ret) {
		/* Let the consumer see an empty, finished stream. */
		smp_store_release(&run->producer_done, 1); /* nothing to wait for */
	} else {
		pthread_join(prod, NULL);
	}
	pthread_join(cons, NULL);
	if (!ret)
		ret = run->err;
out:
	ptr_ring_cleanup(&run->ring, NULL);
	return ret;
}

static double elapsed_ns(const struct run *run)
{
	return (run->t_end.tv_sec - run->t_start.tv_sec) * 1e9 +
	       (run->t_end.tv_nsec - run->t_start.tv_nsec);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v. */
static double median(double *v, unsigned long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static unsigned long auto_count(double ns_per_item)
{
	double n = AUTO_TARGET_NS / ns_per_item;

	if (n < AUTO_MIN)
		return AUTO_MIN;
	if (n > AUTO_MAX)
		return AUTO_MAX;
	return n;
}

static unsigned long long expected_csum(unsigned long count)
{
	unsigned long long csum = 0;
	unsigned long seq;

	for (seq = 0; seq < count; seq++)
		csum = csum_add(csum, seq, seq);
	return csum;
}

/* Print what went wrong in a repetition; returns true if all was fine. */
static bool check_run(const struct run *run, const char *rep, unsigned long long csum)
{
	const struct verify *v = &run->v;
	const char *name = mode_names[run->mode];
	unsigned long count = run->count;

	if (!v->errors && v->seen == count && v->csum == csum)
		return true;

	if (v->errors)
		ksft_print_msg("%s: %s: FAIL: item %lu: expected seq %lu, seen %lu (%s)\n",
			       name, rep, v->bad_index, v->bad_expected,
			       v->bad_seen, v->bad_seen > v->bad_expected ?
			       "items lost or reordered" :
			       "item duplicated or reordered");
	if (v->seen != count)
		ksft_print_msg("%s: %s: FAIL: consumed %lu items, expected %lu (%lu %s)\n",
			       name, rep, v->seen, count,
			       v->seen < count ? count - v->seen : v->seen - count,
			       v->seen < count ? "lost" : "extra");
	ksft_print_msg("%s: %s: FAIL: %lu sequence error(s), checksum %#llx, expected %#llx\n",
		       name, rep, v->errors, v->csum, csum);
	return false;
}

static void run_mode(const struct config *cfg, enum mode_id mode)
{
	const char *name = mode_names[mode];
	unsigned long reps = cfg->reps, rep;
	struct mode_result *res = &results[mode];
	double *ns, *rate, *cyc, med;
	unsigned long long csum = 0;
	struct run *run;
	char label[32];
	int ret = 0;

	res->status = "fail";
	if (mode != MODE_SINGLE && !cfg->two_cpus) {
		res->status = "skip";
		ksft_test_result_skip("%s: needs two CPUs, only one is usable\n",
				      name);
		return;
	}

	run = aligned_alloc(SMP_CACHE_BYTES,
			    (sizeof(*run) + SMP_CACHE_BYTES - 1) &
			    ~(size_t)(SMP_CACHE_BYTES - 1));
	if (run)
		memset(run, 0, sizeof(*run));
	ns = calloc(reps, sizeof(*ns));
	rate = calloc(reps, sizeof(*rate));
	cyc = calloc(reps, sizeof(*cyc));
	res->items = calloc(reps, sizeof(*res->items));
	res->ns = calloc(reps, sizeof(*res->ns));
	res->cycles = calloc(reps, sizeof(*res->cycles));
	if (!run || !ns || !rate || !cyc || !res->items || !res->ns ||
	    !res->cycles) {
		ksft_test_result_fail("%s: out of memory\n", name);
		goto out;
	}
	run->cfg = cfg;
	run->mode = mode;
	/* Batch array, or room for what a shrinking resize gives back. */
	run->array = calloc(mode == MODE_RESIZE ? 2 * cfg->size : cfg->batch,
			    sizeof(void *));
	if (!run->array) {
		ksft_test_result_fail("%s: out of memory\n", name);
		goto out;
	}

	/* Repetition 0 is the warm-up and is not counted. */
	for (rep = 0; rep <= reps; rep++) {
		double t, tsc;

		if (rep)
			snprintf(label, sizeof(label), "rep %lu/%lu", rep, reps);
		else
			snprintf(label, sizeof(label), "warm-up");

		if (rep == 0)
			run->count = cfg->count;
		if (rep <= 1)
			csum = expected_csum(run->count);
		run->n_emit = run->count;
		if (inject == PTR_RING_INJECT_drop)
			run->n_emit--;
		else if (inject == PTR_RING_INJECT_dup)
			run->n_emit++;

		ret = run_once(run);
		if (ret) {
			ksft_print_msg("%s: %s: FAIL: %s\n", name, label,
				       strerror(-ret));
			break;
		}
		if (!check_run(run, label, csum)) {
			ret = -1;
			break;
		}

		t = elapsed_ns(run) / run->count;
		tsc = (double)(run->tsc_end - run->tsc_start) / run->count;
		ksft_print_msg("%s: %s ns_per_item %.3f items_per_sec %.0f",
			       name, label, t, 1e9 / t);
		if (HAVE_TSC)
			printf(" cycles_per_item %.1f", tsc);
		if (mode == MODE_RESIZE)
			printf(" resizes %lu rescued %lu", run->resizes,
			       run->rescued);
		printf(" preempted %ld\n",
		       run->prod_preempted + run->cons_preempted);
		if (rep) {
			ns[rep - 1] = t;
			cyc[rep - 1] = tsc;
			res->items[res->reps] = run->count;
			res->ns[res->reps] = t;
			res->cycles[res->reps] = tsc;
			res->reps++;
		} else if (cfg->auto_count) {
			run->count = auto_count(t);
			ksft_print_msg("%s: --count auto: %lu items per repetition\n",
				       name, run->count);
		}
	}

	if (ret) {
		ksft_test_result_fail("%s\n", name);
		goto out;
	}

	for (rep = 0; rep < reps; rep++)
		rate[rep] = 1e9 / ns[rep];
	med = median(ns, reps);		/* sorts ns[] */
	ksft_print_msg("%s: ns_per_item min %.3f median %.3f max %.3f items_per_sec %.0f reps %lu",
		       name, ns[0], med, ns[reps - 1], median(rate, reps), reps);
	if (HAVE_TSC)
		printf(" cycles_per_item median %.1f", median(cyc, reps));
	printf("\n");
	res->status = "pass";
	ksft_test_result_pass("%s\n", name);
out:
	if (run)
		free(run->array);
	free(run);
	free(ns);
	free(rate);
	free(cyc);
}

/*
 * --json: the "kselftest-bench" result format, version 1, shared with the
 * page_pool benchmark (tools/testing/selftests/net/bench) and read by
 * bench_compare.py.
 */

/* Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom. */
static const double t975[] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

static double t_quantile(unsigned long df)
{
	return df <= ARRAY_SIZE(t975) ? t975[df - 1] : 1.96;
}

static void json_string(FILE *f, const char *s)
{
	unsigned char c;

	fputc('"', f);
	for (; (c = *s); s++) {
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_number(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.6f", x);
	else
		fputs("null", f);
}

/* "key": {"min": .., "median": .., "mean": .., "stddev": .., "ci95": [..]} */
static void json_stats(FILE *f, const char *key, const double *val,
		       unsigned long n)
{
	double *v, sum = 0, sq = 0, mean, sd = NAN, half = NAN, med;
	unsigned long i;

	v = malloc(n * sizeof(*v));
	if (!v) {
		fprintf(f, "\"%s\": null", key);
		return;
	}
	memcpy(v, val, n * sizeof(*v));
	med = median(v, n);
	for (i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	if (n > 1) {
		for (i = 0; i < n; i++)
			sq += (v[i] - mean) * (v[i] - mean);
		sd = sqrt(sq / (n - 1));
		half = t_quantile(n - 1) * sd / sqrt(n);
	}
	fprintf(f, "\"%s\": {\"min\": ", key);
	json_number(f, v[0]);
	fputs(", \"median\": ", f);
	json_number(f, med);
	fputs(", \"mean\": ", f);
	json_number(f, mean);
	fputs(", \"stddev\": ", f);
	json_number(f, sd);
	if (n > 1) {
		fputs(", \"ci95\": [", f);
		json_number(f, mean - half);
		fputs(", ", f);
		json_number(f, mean + half);
		fputs("]}", f);
	} else {
		fputs(", \"ci95\": null}", f);
	}
	free(v);
}

/* The first "KEY : value" line of /proc/cpuinfo, or NULL. */
static char *cpuinfo_field(const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	char *val = NULL, *end;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return NULL;
	while (fgets(buf, len, f)) {
		if (strncmp(buf, key, klen) || !strchr(" \t:", buf[klen]))
			continue;
		val = strchr(buf, ':');
		if (!val)
			continue;
		val += strspn(val + 1, " \t") + 1;
		end = val + strcspn(val, "\n");
		*end = '\0';
		break;
	}
	fclose(f);
	return val;
}

static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (!p[len] || p[len] == ' '))
			return true;
		p += len;
	}
	return false;
}

/*
 * Debug options that make figures unrepresentative of a production kernel,
 * named as test_bench_page_pool.sh names them.
 */
static const char * const debug_options[] = {
	"KASAN", "KMSAN", "KCSAN", "PROVE_LOCKING", "DEBUG_ATOMIC_SLEEP",
	"DEBUG_OBJECTS", "DEBUG_VM", "DEBUG_KMEMLEAK", "LOCKDEP",
	"DEBUG_PAGEALLOC", "SLUB_DEBUG_ON",
};

enum kopt {
	K_RT,
	K_DYNAMIC,
	K_FULL,
	K_LAZY,
	K_VOLUNTARY,
	K_NONE,
	K_STATS,
	NR_KOPTS
};

static const char * const kopts[NR_KOPTS] = {
	[K_RT]		= "PREEMPT_RT",
	[K_DYNAMIC]	= "PREEMPT_DYNAMIC",
	[K_FULL]	= "PREEMPT",
	[K_LAZY]	= "PREEMPT_LAZY",
	[K_VOLUNTARY]	= "PREEMPT_VOLUNTARY",
	[K_NONE]	= "PREEMPT_NONE",
	[K_STATS]	= "PAGE_POOL_STATS",
};

/* True if @line is "CONFIG_<opt>=y". */
static bool config_set(const char *line, const char *opt)
{
	size_t len = strlen(opt);

	return !strncmp(line, "CONFIG_", 7) && !strncmp(line + 7, opt, len) &&
	       !strcmp(line + 7 + len, "=y\n");
}

/* The current preemption model of a PREEMPT_DYNAMIC kernel, or NULL. */
static const char *dynamic_model(const bool *set, char *buf, size_t len)
{
	char line[256], *p;
	FILE *f;

	f = fopen("/sys/kernel/debug/sched/preempt", "r");
	if (f) {
		p = fgets(line, sizeof(line), f) ? strchr(line, '(') : NULL;
		fclose(f);
		if (p && sscanf(p, "(%31[a-z])", buf) == 1)
			return buf;
	}
	f = fopen("/proc/cmdline", "r");
	if (f) {
		p = fgets(line, sizeof(line), f) ? strstr(line, "preempt=") : NULL;
		fclose(f);
		if (p && (p == line || p[-1] == ' ') &&
		    sscanf(p, "preempt=%31[a-z]", buf) == 1)
			return buf;
	}
	snprintf(buf, len, "%s", set[K_FULL] ? "full" : set[K_LAZY] ? "lazy" :
		 set[K_VOLUNTARY] ? "voluntary" : "none");
	return buf;
}

/*
 * The preemption model as test_bench_page_pool.sh reports it: PREEMPT_RT,
 * PREEMPT_DYNAMIC <model>, PREEMPT, PREEMPT_LAZY, VOLUNTARY, NONE or
 * unknown; from uname -v when the configuration cannot be read.
 */
static void preempt_model(const bool *set, const char *version, char *buf,
			  size_t len)
{
	char model[32];

	if (!set) {
		snprintf(buf, len, "%s",
			 strstr(version, "PREEMPT_RT") ? "PREEMPT_RT" :
			 strstr(version, "PREEMPT_DYNAMIC") ? "PREEMPT_DYNAMIC" :
			 strstr(version, "PREEMPT") ? "PREEMPT" : "unknown");
	} else if (set[K_RT]) {
		snprintf(buf, len, "PREEMPT_RT");
	} else if (set[K_DYNAMIC]) {
		snprintf(buf, len, "PREEMPT_DYNAMIC %s",
			 dynamic_model(set, model, sizeof(model)));
	} else {
		snprintf(buf, len, "%s", set[K_FULL] ? "PREEMPT" :
			 set[K_LAZY] ? "PREEMPT_LAZY" :
			 set[K_VOLUNTARY] ? "VOLUNTARY" :
			 set[K_NONE] ? "NONE" : "unknown");
	}
}

/* "config": from /boot/config-<release> when it can be read. */
static void json_kconfig(FILE *f, const struct utsname *uts)
{
	bool debug[ARRAY_SIZE(debug_options)] = { 0 };
	bool set[NR_KOPTS] = { 0 }, first = true;
	char path[512], line[256];
	FILE *cfg;
	size_t i;

	snprintf(path, sizeof(path), "/boot/config-%s", uts->release);
	cfg = fopen(path, "r");
	if (!cfg) {
		preempt_model(NULL, uts->version, line, sizeof(line));
		fputs("\"config\": {\"preempt\": ", f);
		json_string(f, line);
		fputs(", \"debug\": [], \"page_pool_stats\": null}", f);
		return;
	}
	while (fgets(line, sizeof(line), cfg)) {
		for (i = 0; i < NR_KOPTS; i++)
			set[i] |= config_set(line, kopts[i]);
		for (i = 0; i < ARRAY_SIZE(debug_options); i++)
			debug[i] |= config_set(line, debug_options[i]);
	}
	fclose(cfg);

	preempt_model(set, uts->version, line, sizeof(line));
	fputs("\"config\": {\"preempt\": ", f);
	json_string(f, line);
	fputs(", \"debug\": [", f);
	for (i = 0; i < ARRAY_SIZE(debug_options); i++) {
		if (!debug[i])
			continue;
		fputs(first ? "" : ", ", f);
		json_string(f, debug_options[i]);
		first = false;
	}
	fprintf(f, "], \"page_pool_stats\": %s}",
		set[K_STATS] ? "true" : "false");
}

static bool deterministic(void)
{
	const char *env = getenv("BENCH_DETERMINISTIC");

	return env && !strcmp(env, "1");
}

static const char *run_mode_name(void)
{
	char buf[4096];
	const char *val;

	if (deterministic())
		return "deterministic";
	val = cpuinfo_field("model name", buf, sizeof(buf));
	if (val && strstr(val, "QEMU TCG"))
		return "emulated";
	val = cpuinfo_field("flags", buf, sizeof(buf));
	if (val && has_word(val, "hypervisor"))
		return "virtual-machine";
	return "hardware";
}

static void json_run(FILE *f, const struct config *cfg)
{
	struct utsname uts;
	char buf[4096];
	const char *model;
	time_t t = time(NULL);
	struct tm tm;

	if (uname(&uts)) {
		snprintf(uts.release, sizeof(uts.release), "unknown");
		uts.version[0] = '\0';
	}
	model = cpuinfo_field("model name", buf, sizeof(buf));

	fputs("  \"run\": {\n    \"mode\": ", f);
	json_string(f, run_mode_name());
	fputs(",\n    \"kernel_release\": ", f);
	json_string(f, uts.release);
	fputs(",\n    \"cpu_model\": ", f);
	json_string(f, model ? model : "unknown");
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	fprintf(f, ",\n    \"date\": \"%s\",\n", buf);
	fprintf(f, "    \"parameters\": {\"size\": %lu, ", cfg->size);
	if (cfg->auto_count)
		fputs("\"count\": \"auto\", ", f);
	else
		fprintf(f, "\"count\": %lu, ", cfg->count);
	fprintf(f, "\"batch\": %lu, \"reps\": %lu, \"producer_cpu\": %d, \"consumer_cpu\": %d},\n",
		cfg->batch, cfg->reps, cfg->prod_cpu,
		cfg->two_cpus ? cfg->cons_cpu : -1);
	fputs("    ", f);
	json_kconfig(f, &uts);
	fputs("\n  },\n", f);
}

static void json_test(FILE *f, enum mode_id mode)
{
	const struct mode_result *res = &results[mode];
	unsigned long i;

	fputs("    {\"name\": ", f);
	json_string(f, mode_names[mode]);
	fprintf(f, ", \"status\": \"%s\", \"path_check\": \"not checked\",\n",
		res->status);
	fputs("     \"reps\": [", f);
	for (i = 0; i < res->reps; i++) {
		fputs(i ? ",\n              {" : "{", f);
		if (HAVE_TSC) {
			fputs("\"cycles\": ", f);
			json_number(f, res->cycles[i]);
			fputs(", ", f);
		}
		fputs("\"ns\": ", f);
		json_number(f, res->ns[i]);
		fprintf(f, ", \"elements\": %lu}", res->items[i]);
	}
	fputs("],\n     \"stats\": ", f);
	if (!res->reps) {
		fputs("null}", f);
		return;
	}
	fputs("{", f);
	if (HAVE_TSC) {
		json_stats(f, "cycles", res->cycles, res->reps);
		fputs(",\n               ", f);
	}
	json_stats(f, "ns", res->ns, res->reps);
	fputs("}}", f);
}

/* Returns 0, or -1 after saying why FILE could not be written. */
static int write_json(const struct config *cfg)
{
	FILE *f = cfg->json;
	bool first = true;
	int mode;

	fputs("{\n  \"schema\": \"kselftest-bench\", \"version\": 1,\n", f);
	fputs("  \"benchmark\": \"ptr_ring_test\",\n", f);
	json_run(f, cfg);
	fprintf(f, "  \"unit\": {\"cycles\": %s, \"time\": \"ns\"},\n",
		!HAVE_TSC ? "null" :
		deterministic() ? "\"instructions\"" : "\"tsc-cycles\"");
	fputs("  \"tests\": [\n", f);
	for (mode = 0; mode < NR_MODES; mode++) {
		if (!results[mode].status)
			continue;
		fputs(first ? "" : ",\n", f);
		json_test(f, mode);
		first = false;
	}
	fputs("\n  ]\n}\n", f);
	errno = 0;
	if (ferror(f) | fclose(f)) {
		ksft_print_msg("--json: writing %s failed: %s\n", cfg->json_path,
			       errno ? strerror(errno) : "I/O error");
		return -1;
	}
	return 0;
}

static const char usage_text[] =
"Usage: %s [options]\n"
"Benchmark and verify include/linux/ptr_ring.h in userspace (KTAP output).\n"
"\n"
"  -m, --mode LIST          modes to run, comma separated, or 'all' (default)\n"
"                           single, spsc, batch_consume, batch_produce, resize\n"
"  -s, --size N             ring size in entries (default %lu, max %lu)\n"
"  -n, --count N|auto       items per repetition, max %lu (default auto:\n"
"                           %lu in the warm-up, then about %.0f ms worth,\n"
"                           from %lu to %lu)\n"
"  -b, --batch N            batch size for the batch modes (default %lu,\n"
"                           at most the ring size)\n"
"  -r, --reps N             timed repetitions after one warm-up\n"
"                           (default %lu, max %lu)\n"
"  -p, --producer-cpu CPU   CPU of the producer and of 'single'\n"
"                           (default: first CPU we may run on)\n"
"  -c, --consumer-cpu CPU   CPU of the consumer (default: second one)\n"
"  -j, --json FILE          also write the repetitions and their statistics\n"
"                           to FILE, as JSON (see bench_compare.py)\n"
"  -h, --help               show this help\n"
"\n"
"Each mode is a KTAP subtest, preceded by one line per repetition and\n"
"  # <mode>: ns_per_item min X median X max X items_per_sec X reps N\n"
"(plus ' cycles_per_item median X', in TSC cycles, on x86).\n"
"Exit status: 0 pass, 1 failure or bad option, 4 everything skipped.\n";

#define DEF_SIZE	1024UL
#define DEF_BATCH	32UL
#define DEF_REPS	5UL

static void usage(FILE *f, const char *prog)
{
	fprintf(f, usage_text, prog, DEF_SIZE, MAX_RING_SIZE, MAX_COUNT,
		AUTO_MIN, AUTO_TARGET_NS / 1e6, AUTO_MIN, AUTO_MAX,
		DEF_BATCH, DEF_REPS, MAX_REPS);
}

static const char *prog_name = "ptr_ring_test";

static __noreturn __printf(1, 2) void bad_option(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog_name);
	exit(KSFT_FAIL);
}

static unsigned long parse_num(const char *opt, const char *arg,
			       unsigned long min, unsigned long max)
{
	unsigned long long val;
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		bad_option("%s: '%s' is not a decimal number", opt, arg);
	errno = 0;
	val = strtoull(arg, &end, 10);
	if (*end)
		bad_option("%s: '%s' is not a decimal number (trailing '%s')",
			   opt, arg, end);
	if (errno == ERANGE || val > max)
		bad_option("%s: %s is too large (max %lu)", opt, arg, max);
	if (val < min)
		bad_option("%s: %s is too small (min %lu)", opt, arg, min);
	return val;
}

static int parse_cpu(const char *opt, const char *arg, const cpu_set_t *allowed)
{
	int cpu = parse_num(opt, arg, 0, CPU_SETSIZE - 1);

	if (!CPU_ISSET(cpu, allowed))
		bad_option("%s: CPU %d is not online or not in this task's affinity mask",
			   opt, cpu);
	return cpu;
}

/* The lowest CPU in @set other than @except, or -1. */
static int first_cpu(const cpu_set_t *set, int except)
{
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set) && cpu != except)
			return cpu;
	return -1;
}

static unsigned int parse_modes(const char *arg)
{
	unsigned int modes = 0;
	char *buf, *tok, *save;
	int i;

	if (!strcmp(arg, "all"))
		return (1u << NR_MODES) - 1;
	buf = strdup(arg);
	if (!buf)
		bad_option("out of memory");
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_MODES; i++)
			if (!strcmp(tok, mode_names[i]))
				break;
		if (i == NR_MODES)
			bad_option("--mode: unknown mode '%s' (see --help)", tok);
		modes |= 1u << i;
	}
	free(buf);
	if (!modes)
		bad_option("--mode: '%s' names no mode", arg);
	return modes;
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "mode",		required_argument, NULL, 'm' },
		{ "size",		required_argument, NULL, 's' },
		{ "count",		required_argument, NULL, 'n' },
		{ "batch",		required_argument, NULL, 'b' },
		{ "reps",		required_argument, NULL, 'r' },
		{ "producer-cpu",	required_argument, NULL, 'p' },
		{ "consumer-cpu",	required_argument, NULL, 'c' },
		{ "json",		required_argument, NULL, 'j' },
		{ "help",		no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool batch_set = false, prod_set = false, cons_set = false;
	cpu_set_t allowed;
	int opt;

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("sched_getaffinity");
		exit(KSFT_FAIL);
	}

	cfg->size = DEF_SIZE;
	cfg->count = AUTO_MIN;
	cfg->auto_count = true;
	cfg->batch = DEF_BATCH;
	cfg->reps = DEF_REPS;
	cfg->modes = (1u << NR_MODES) - 1;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:s:n:b:r:p:c:j:h", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			cfg->modes = parse_modes(optarg);
			break;
		case 's':
			cfg->size = parse_num("--size", optarg, 1,
					      MAX_RING_SIZE);
			break;
		case 'n':
			cfg->auto_count = !strcmp(optarg, "auto");
			if (cfg->auto_count)
				cfg->count = AUTO_MIN;
			else
				cfg->count = parse_num("--count", optarg, 1,
						       MAX_COUNT);
			break;
		case 'b':
			cfg->batch = parse_num("--batch", optarg, 1,
					       MAX_RING_SIZE);
			batch_set = true;
			break;
		case 'r':
			cfg->reps = parse_num("--reps", optarg, 1, MAX_REPS);
			break;
		case 'p':
			cfg->prod_cpu = parse_cpu("--producer-cpu", optarg,
						  &allowed);
			prod_set = true;
			break;
		case 'c':
			cfg->cons_cpu = parse_cpu("--consumer-cpu", optarg,
						  &allowed);
			cons_set = true;
			break;
		case 'j':
			cfg->json_path = optarg;
			break;
		case 'h':
			usage(stdout, prog_name);
			exit(KSFT_PASS);
		case ':':
			bad_option("option '%s' needs a value", argv[optind - 1]);
		default:
			bad_option("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_option("unexpected argument '%s'", argv[optind]);

	if (cfg->batch > cfg->size) {
		if (batch_set)
			bad_option("--batch: %lu is larger than the ring size %lu",
				   cfg->batch, cfg->size);
		cfg->batch = cfg->size;
	}

	/* Default CPUs: the first two this task may run on. */
	if (!prod_set)
		cfg->prod_cpu = first_cpu(&allowed, cons_set ? cfg->cons_cpu : -1);
	if (!cons_set)
		cfg->cons_cpu = first_cpu(&allowed, cfg->prod_cpu);
	if (cfg->prod_cpu < 0)
		cfg->prod_cpu = cfg->cons_cpu;
	if (prod_set && cons_set && cfg->prod_cpu == cfg->cons_cpu)
		bad_option("--producer-cpu and --consumer-cpu must differ (both %d)",
			   cfg->prod_cpu);
	cfg->two_cpus = cfg->cons_cpu >= 0 && cfg->cons_cpu != cfg->prod_cpu;

	/* Last, so that a bad option does not leave an empty file behind. */
	if (cfg->json_path) {
		cfg->json = fopen(cfg->json_path, "w");
		if (!cfg->json)
			bad_option("--json: cannot write '%s': %s",
				   cfg->json_path, strerror(errno));
	}
}

int main(int argc, char **argv)
{
	struct config cfg = { 0 };
	char count[24];
	int mode;

	if (argc > 0 && argv[0])
		prog_name = argv[0];
	parse_args(argc, argv, &cfg);

	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	if (cfg.auto_count)
		snprintf(count, sizeof(count), "auto");
	else
		snprintf(count, sizeof(count), "%lu", cfg.count);
	ksft_print_msg("size %lu count %s batch %lu reps %lu producer_cpu %d consumer_cpu %d%s\n",
		       cfg.size, count, cfg.batch, cfg.reps, cfg.prod_cpu,
		       cfg.two_cpus ? cfg.cons_cpu : -1,
		       inject ? " (fault injection build)" : "");

	for (mode = 0; mode < NR_MODES; mode++)
		if (cfg.modes & (1u << mode))
			run_mode(&cfg, mode);

	if (cfg.json && write_json(&cfg))
		ksft_exit_fail();
	if (ksft_get_fail_cnt())
		ksft_exit_fail();
	if (!ksft_get_pass_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
