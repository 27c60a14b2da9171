// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptr_ring_test - check and time include/linux/ptr_ring.h in userspace.
 *
 * The tree's own header is built with the shims ringtest's ptr_ring
 * benchmark uses (tools/virtio/ringtest/ptr_ring_shim.h).  Each mode is a
 * KTAP case, and mirrors users of the ring:
 *
 *   single          one thread fills the ring, then drains it (locked calls)
 *   spsc            ptr_ring_produce() / ptr_ring_consume() on two CPUs (tun)
 *   batch           __ptr_ring_produce() under producer_lock per batch (tun
 *                   and veth XDP) / ptr_ring_consume_batched() (vhost-net)
 *   lockless        ptr_ring_produce() / __ptr_ring_empty() then
 *                   __ptr_ring_consume() without a lock (page_pool, veth)
 *   lockless_batch  batched producer / __ptr_ring_empty() then
 *                   __ptr_ring_consume_batched() without a lock (cpumap)
 *   unconsume       ptr_ring_unconsume() of a batch part of which no longer
 *                   fits: exact counts of the entries kept and destroyed
 *   resize          ptr_ring_resize() shrinking a full ring and growing it,
 *                   then ptr_ring_resize_multiple(_bh)(): exact counts
 *
 * Every item points to a cache line to which the producer writes the
 * item's sequence number before producing it; the consumer checks the
 * pointer and reads the number through it.  A lost, duplicated, reordered,
 * stale or garbage item fails the case at once; a ring that stops moving
 * fails it after STALL_SEC seconds, with the ring's indexes.
 *
 * The timed modes run a warm-up and --reps repetitions, and print for each
 * the ns per item and how often the producer found the ring full and the
 * consumer found it empty, then their min/median/max and the result:
 *
 *   # spsc: ns_per_item min 20.101 median 20.734 max 22.010 reps 5 ...
 *   ok 2 spsc # perf=20.734ns
 *
 * These figures have no preempt count, BH or IRQ disabling and inlined
 * locks: they are not comparable with in-kernel ptr_ring figures.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../kselftest.h"
#include "../../../virtio/ringtest/ptr_ring_shim.h"

#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
/*
 * ThreadSanitizer cannot see that a slot's zeroing orders the consumer's
 * reads of an item before the producer reuses it: never reuse one.
 */
#define REUSE_ITEMS	0
#else
#define REUSE_ITEMS	1
#endif

#define MAX_RING_SIZE	(KMALLOC_MAX_SIZE / sizeof(void *))
#define MAX_COUNT	1000000000UL
#define MAX_REPS	1000UL
#define STALL_SEC	3
#define DEF_SIZE	1024UL
#define DEF_COUNT	1000000UL
#define DEF_BATCH	32UL
#define DEF_REPS	5UL

enum mode { SINGLE, SPSC, BATCH, LOCKLESS, LOCKLESS_BATCH, UNCONSUME, RESIZE,
	    NR_MODES };

static const char * const mode_names[NR_MODES] = {
	"single", "spsc", "batch", "lockless", "lockless_batch", "unconsume",
	"resize",
};

struct config {
	unsigned long size, count, batch, reps;
	int prod_cpu, cons_cpu;
	bool two_cpus;
	unsigned int modes;
};

/* What the ring carries: one cache line each, as an skb or a page would */
struct item {
	unsigned long seq;
} ____cacheline_aligned_in_smp;

struct run {
	struct ptr_ring ring;
	const struct config *cfg;
	enum mode mode;
	struct item *pool;
	unsigned long npool;
	void **array;
	/* Handshake, and the producer's results */
	int ready ____cacheline_aligned_in_smp;
	int stop;
	int failed;
	struct timespec t_start;
	unsigned long full;
	/* The consumer's results; progress is what the watchdog watches */
	unsigned long progress ____cacheline_aligned_in_smp;
	struct timespec t_end;
	unsigned long empty;
	char err[200];
};

#define load(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define store(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static __printf(2, 3) void fail(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_ACQ_REL))
		return;	/* the first error is the one that counts */
	va_start(ap, fmt);
	vsnprintf(run->err, sizeof(run->err), fmt, ap);
	va_end(ap);
	store(run->stop, 1);
}

static __attribute__((noinline)) void bad_item(struct run *run, void *p,
					       unsigned long next)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)run->pool;
	struct item *it = p;

	if (off >= run->npool * sizeof(*it) || off % sizeof(*it))
		fail(run, "item %lu: garbage pointer %p", next, p);
	else if (it->seq == next)
		fail(run, "item %lu: pointer to item %lu", next,
		     (unsigned long)(it - run->pool));
	else if (it == &run->pool[next % run->npool])
		fail(run, "item %lu: read %lu through its pointer: stale data",
		     next, it->seq);
	else if (it->seq > next)
		fail(run, "item %lu: got %lu: items lost or reordered", next,
		     it->seq);
	else
		fail(run, "item %lu: got %lu: item duplicated or reordered",
		     next, it->seq);
}

/* Check @p against the sequence number @next at pool index @idx */
static inline bool check_item(struct run *run, void *p, unsigned long *next,
			      unsigned long *idx)
{
	struct item *it = p;

	if (unlikely(it != &run->pool[*idx] || it->seq != *next)) {
		bad_item(run, p, *next);
		return false;
	}
	++*next;
	if (++*idx == run->npool)
		*idx = 0;
	return true;
}

static inline struct item *make_item(struct run *run, unsigned long seq,
				     unsigned long idx)
{
	struct item *it = &run->pool[idx];

	it->seq = seq;
	return it;
}

static void *single_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	unsigned long n = run->cfg->count, seq = 0, pidx = 0, next = 0, cidx = 0;
	unsigned long full = 0, empty = 0, last;
	void *p;

	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	while (next < n) {
		last = seq + next;
		while (seq < n && !ptr_ring_produce(r, make_item(run, seq, pidx))) {
			seq++;
			if (++pidx == run->npool)
				pidx = 0;
		}
		full += seq < n;
		while (next < seq && (p = ptr_ring_consume(r)))
			if (!check_item(run, p, &next, &cidx))
				return NULL;
		empty += next < seq;
		store(run->progress, next);
		if (seq + next == last) {
			fail(run, "%lu items in the ring, which takes none and gives none",
			     seq - next);
			return NULL;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_end);
	run->full = full;
	run->empty = empty;
	return NULL;
}

static void *producer_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	unsigned long n = run->cfg->count, seq = 0, idx = 0, full = 0;
	unsigned long batch = run->cfg->batch, end;
	bool batched = run->mode == BATCH || run->mode == LOCKLESS_BATCH;

	while (!load(run->ready))
		cpu_relax();
	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	while (seq < n) {
		end = batched && seq + batch < n ? seq + batch : n;
		if (batched) {
			spin_lock(&r->producer_lock);
			for (; seq < end; seq++) {
				if (__ptr_ring_produce(r, make_item(run, seq, idx)))
					break;
				if (++idx == run->npool)
					idx = 0;
			}
			spin_unlock(&r->producer_lock);
		} else {
			for (; seq < end; seq++) {
				if (ptr_ring_produce(r, make_item(run, seq, idx)))
					break;
				if (++idx == run->npool)
					idx = 0;
			}
		}
		if (seq == end)
			continue;
		full++;
		while (ptr_ring_full(r)) {
			if (load(run->stop))
				return NULL;
			cpu_relax();
		}
	}
	run->full = full;
	return NULL;
}

/* Take what the mode's consumer takes into run->array: how many */
static __always_inline int take(struct run *run, enum mode mode, int max)
{
	struct ptr_ring *r = &run->ring;
	void **a = run->array;
	int n = 0;

	switch (mode) {
	case SPSC:
		a[0] = ptr_ring_consume(r);
		return !!a[0];
	case BATCH:
		return ptr_ring_consume_batched(r, a, max);
	case LOCKLESS:
		if (__ptr_ring_empty(r))
			return 0;
		while (n < max && (a[n] = __ptr_ring_consume(r)))
			n++;
		return n;
	default:
		if (__ptr_ring_empty(r))
			return 0;
		return __ptr_ring_consume_batched(r, a, max);
	}
}

static __always_inline void consume(struct run *run, enum mode mode)
{
	unsigned long n = run->cfg->count, next = 0, idx = 0, empty = 0;
	unsigned long mark = 0;
	int i, got, max = mode == SPSC ? 1 : run->cfg->batch;

	store(run->ready, 1);
	while (next < n) {
		got = take(run, mode, max);
		for (i = 0; i < got; i++)
			if (!check_item(run, run->array[i], &next, &idx))
				return;
		if (next >= mark) {
			store(run->progress, next);
			mark = next + 1024;
		}
		if (got)
			continue;
		empty++;
		store(run->progress, next);
		do {
			if (load(run->stop))
				return;
			cpu_relax();
		} while (mode >= LOCKLESS ? __ptr_ring_empty(&run->ring) :
			 ptr_ring_empty(&run->ring));
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_end);
	run->empty = empty;
}

static void *consumer_thread(void *arg)
{
	struct run *run = arg;

	/* One copy per mode, so that the checks on @mode go away */
	switch (run->mode) {
	case SPSC:
		consume(run, SPSC);
		break;
	case BATCH:
		consume(run, BATCH);
		break;
	case LOCKLESS:
		consume(run, LOCKLESS);
		break;
	default:
		consume(run, LOCKLESS_BATCH);
		break;
	}
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
	if (!ret)
		ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!ret)
		ret = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}

/* Wait for @t, failing the run if the consumer stops making progress */
static bool watch(struct run *run, pthread_t t)
{
	unsigned long seen = 0, now;
	struct ptr_ring *r = &run->ring;
	struct timespec ts;
	int still = 0;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		if (!pthread_timedjoin_np(t, NULL, &ts))
			return true;
		now = load(run->progress);
		if (now != seen || ++still < STALL_SEC) {
			still = now != seen ? 0 : still;
			seen = now;
			continue;
		}
		fail(run, "stalled for %d s after %lu of %lu items: producer %d consumer_head %d consumer_tail %d size %d batch %d, queue[producer] %s, queue[consumer_head] %s",
		     STALL_SEC, now, run->cfg->count, r->producer,
		     r->consumer_head, r->consumer_tail, r->size, r->batch,
		     r->queue[r->producer] ? "set" : "NULL",
		     r->queue[r->consumer_head] ? "set" : "NULL");
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		return !pthread_timedjoin_np(t, NULL, &ts);
	}
}

/* One repetition of a timed mode: 0, or -1 with run->err set */
static int run_once(struct run *run, enum mode mode)
{
	const struct config *cfg = run->cfg;
	pthread_t prod, cons;
	int ret;

	if (ptr_ring_init(&run->ring, cfg->size, GFP_KERNEL)) {
		fail(run, "ptr_ring_init: out of memory");
		return -1;
	}
	run->ready = 0;
	run->stop = 0;
	run->failed = 0;
	run->progress = 0;

	ret = start_thread(&cons, mode == SINGLE ? cfg->prod_cpu : cfg->cons_cpu,
			   mode == SINGLE ? single_thread : consumer_thread, run);
	if (!ret && mode != SINGLE) {
		ret = start_thread(&prod, cfg->prod_cpu, producer_thread, run);
		if (ret) {
			fail(run, "pthread_create: %s", strerror(ret));
			pthread_join(cons, NULL);
		} else if (!watch(run, cons) || !watch(run, prod)) {
			goto stuck;
		}
	} else if (!ret && !watch(run, cons)) {
		goto stuck;
	}
	if (ret)
		fail(run, "pthread_create: %s", strerror(ret));
	ptr_ring_cleanup(&run->ring, NULL);
	return run->failed ? -1 : 0;
stuck:
	ksft_print_msg("%s: FAIL: %s\n", mode_names[mode], run->err);
	ksft_test_result_fail("%s\n", mode_names[mode]);
	ksft_exit_fail_msg("a thread did not stop: giving up\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run_timed(struct run *run, enum mode mode)
{
	const struct config *cfg = run->cfg;
	const char *name = mode_names[mode];
	unsigned long rep, full = 0, empty = 0, reps = cfg->reps;
	double ns[MAX_REPS + 1], med;

	/* Repetition 0 is the warm-up */
	for (rep = 0; rep <= reps; rep++) {
		if (run_once(run, mode)) {
			ksft_print_msg("%s: FAIL: %s\n", name, run->err);
			ksft_test_result_fail("%s\n", name);
			return;
		}
		ns[rep] = ((run->t_end.tv_sec - run->t_start.tv_sec) * 1e9 +
			   run->t_end.tv_nsec - run->t_start.tv_nsec) / cfg->count;
		ksft_print_msg("%s: %s%lu ns_per_item %.3f full %lu empty %lu\n",
			       name, rep ? "rep " : "warm-up ", rep, ns[rep],
			       run->full, run->empty);
		if (rep) {
			full += run->full;
			empty += run->empty;
		}
	}
	qsort(ns + 1, reps, sizeof(ns[0]), cmp_double);
	med = reps & 1 ? ns[1 + reps / 2] : (ns[reps / 2] + ns[1 + reps / 2]) / 2;
	ksft_print_msg("%s: ns_per_item min %.3f median %.3f max %.3f reps %lu full %lu empty %lu\n",
		       name, ns[1], med, ns[reps], reps, full, empty);
	ksft_test_result_pass("%s # perf=%.3fns\n", name, med);
}

/* The deterministic cases: produce and consume known sequence numbers */
static struct item *seq_item(struct run *run, unsigned long seq)
{
	return make_item(run, seq, seq % run->npool);
}

static bool fill(struct run *run, unsigned long from, unsigned long n)
{
	for (; n; n--, from++)
		if (ptr_ring_produce(&run->ring, seq_item(run, from))) {
			fail(run, "ptr_ring_produce of item %lu: ring full", from);
			return false;
		}
	return true;
}

static bool drain(struct run *run, unsigned long from, unsigned long n)
{
	unsigned long idx = from % run->npool;
	void *p;

	for (; n; n--)
		if (!(p = ptr_ring_consume(&run->ring))) {
			fail(run, "item %lu: ring empty", from);
			return false;
		} else if (!check_item(run, p, &from, &idx)) {
			return false;
		}
	return true;
}

/* What the destroy callback expects: items next, next + step, ... */
static struct {
	struct run *run;
	unsigned long next, n;
	long step;
} destroyed;

static void destroy(void *p)
{
	struct run *run = destroyed.run;
	unsigned long idx = destroyed.next % run->npool, next = destroyed.next;

	if (check_item(run, p, &next, &idx)) {
		destroyed.next += destroyed.step;
		destroyed.n++;
	}
}

static void expect_destroyed(struct run *run, unsigned long first, long step)
{
	destroyed.run = run;
	destroyed.next = first;
	destroyed.step = step;
	destroyed.n = 0;
}

static bool destroyed_ok(struct run *run, const char *what, unsigned long n)
{
	if (!run->failed && destroyed.n != n)
		fail(run, "%s destroyed %lu entries, expected %lu", what,
		     destroyed.n, n);
	return !run->failed;
}

static bool is_empty(struct run *run, const char *when)
{
	if (!ptr_ring_empty(&run->ring))
		fail(run, "ring not empty %s", when);
	return !run->failed;
}

/*
 * Fill the ring, take a batch, give it back; take it again, let the
 * producer refill what was freed, give the batch back: what no longer fits,
 * the oldest entries, is destroyed; the rest comes first again.
 */
static bool unconsume_case(struct run *run)
{
	struct ptr_ring *r = &run->ring;
	unsigned long n = run->cfg->size, b, k, m = 0;

	b = r->batch + r->batch / 2 + 1;	/* some zeroed, some not */
	b = b < n ? b : n;
	if (!fill(run, 0, n) ||
	    ptr_ring_consume_batched(r, run->array, b) != (int)b)
		return false;
	expect_destroyed(run, 0, 1);
	ptr_ring_unconsume(r, run->array, b, destroy);
	if (!destroyed_ok(run, "unconsume into free space", 0) ||
	    ptr_ring_consume_batched(r, run->array, b) != (int)b)
		return false;
	for (k = b / 2; m < k && !ptr_ring_produce(r, seq_item(run, n + m)); m++)
		;
	ksft_print_msg("unconsume: ring %lu batch %d, %lu back, %lu refilled\n",
		       n, r->batch, b, m);
	expect_destroyed(run, m - 1, -1);
	ptr_ring_unconsume(r, run->array, b, destroy);
	return destroyed_ok(run, "unconsume after a refill", m) &&
	       drain(run, m, n) && is_empty(run, "after unconsume");
}

/*
 * Shrink a full ring that has wrapped: the newest entries that do not fit
 * are destroyed, oldest first; grow it and fill it; then shrink it with
 * ptr_ring_resize_multiple(_bh)().
 */
static bool resize_case(struct run *run)
{
	struct ptr_ring *r = &run->ring, *rings[] = { r };
	unsigned long n = run->cfg->size, c = n / 4, s = (n + 1) / 2;
	unsigned long next = n + c;

	if (!fill(run, 0, n) || !drain(run, 0, c) || !fill(run, n, c))
		return false;
	expect_destroyed(run, c + s, 1);
	if (ptr_ring_resize(r, s, GFP_KERNEL, destroy))
		fail(run, "ptr_ring_resize to %lu: out of memory", s);
	if (!destroyed_ok(run, "shrinking", n - s))
		return false;
	if (!ptr_ring_full(r))
		fail(run, "shrunk ring of %lu entries not full", s);
	expect_destroyed(run, 0, 1);
	if (ptr_ring_resize(r, 2 * n, GFP_KERNEL, destroy))
		fail(run, "ptr_ring_resize to %lu: out of memory", 2 * n);
	if (!destroyed_ok(run, "growing", 0) || !fill(run, next, 2 * n - s))
		return false;
	expect_destroyed(run, next + n - s, 1);
#ifdef ptr_ring_resize_multiple_bh
	if (ptr_ring_resize_multiple_bh(rings, 1, n, GFP_KERNEL, destroy))
#else
	if (ptr_ring_resize_multiple(rings, 1, n, GFP_KERNEL, destroy))
#endif
		fail(run, "ptr_ring_resize_multiple to %lu: out of memory", n);
	ksft_print_msg("resize: %lu -> %lu -> %lu -> %lu entries, %lu destroyed\n",
		       n, s, 2 * n, n, 2 * n - s);
	return destroyed_ok(run, "ptr_ring_resize_multiple", n) &&
	       drain(run, c, s) && drain(run, next, n - s) &&
	       is_empty(run, "after resizing");
}

static void run_case(struct run *run, enum mode mode)
{
	bool ok;

	if (ptr_ring_init(&run->ring, run->cfg->size, GFP_KERNEL)) {
		ksft_test_result_fail("%s: ptr_ring_init: out of memory\n",
				      mode_names[mode]);
		return;
	}
	ok = mode == UNCONSUME ? unconsume_case(run) : resize_case(run);
	ptr_ring_cleanup(&run->ring, NULL);
	if (!ok)
		ksft_print_msg("%s: FAIL: %s\n", mode_names[mode], run->err);
	ksft_test_result(ok, "%s\n", mode_names[mode]);
}

static void run_mode(const struct config *cfg, enum mode mode)
{
	struct run *run;
	size_t sz = (sizeof(*run) + SMP_CACHE_BYTES - 1) & -SMP_CACHE_BYTES;

	if (mode != SINGLE && mode < UNCONSUME && !cfg->two_cpus) {
		ksft_test_result_skip("%s: needs two CPUs, only one is usable\n",
				      mode_names[mode]);
		return;
	}
	run = aligned_alloc(SMP_CACHE_BYTES, sz);
	if (run) {
		memset(run, 0, sizeof(*run));
		run->cfg = cfg;
		run->mode = mode;
		run->npool = 4 * cfg->size;
		if (!REUSE_ITEMS && run->npool < cfg->count)
			run->npool = cfg->count;
		run->pool = aligned_alloc(SMP_CACHE_BYTES,
					  run->npool * sizeof(*run->pool));
		run->array = calloc(cfg->size > 2 ? cfg->size : 2, sizeof(void *));
	}
	if (!run || !run->pool || !run->array)
		ksft_test_result_fail("%s: out of memory\n", mode_names[mode]);
	else if (mode < UNCONSUME)
		run_timed(run, mode);
	else
		run_case(run, mode);
	if (run) {
		free(run->pool);
		free(run->array);
	}
	free(run);
}

/* How the two CPUs relate, from sysfs: a VM's is what its host says */
static const char *relation(int a, int b)
{
	static const char * const files[] = { "physical_package_id", "core_id" };
	long v[2][2];
	int i, j;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			char path[96];
			FILE *f;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/topology/%s",
				 i ? b : a, files[j]);
			f = fopen(path, "r");
			if (!f || fscanf(f, "%ld", &v[i][j]) != 1)
				v[i][j] = -1 - i;
			if (f)
				fclose(f);
		}
	}
	if (v[0][0] < 0 || v[1][0] < 0)
		return "topology unknown";
	if (v[0][0] != v[1][0])
		return "different packages";
	return v[0][1] == v[1][1] ? "same core (SMT siblings)" :
				    "same package, different cores";
}

static const char usage_text[] =
"Usage: %s [options]\n"
"Check and time include/linux/ptr_ring.h in userspace (KTAP output).\n"
"  -m, --mode LIST         comma-separated modes, or 'all' (default):\n"
"                          single spsc batch lockless lockless_batch\n"
"                          unconsume resize\n"
"  -s, --size N            ring size in entries (default %lu, max %lu)\n"
"  -n, --count N           items per repetition (default %lu, max %lu)\n"
"  -b, --batch N           batch of the batch and lockless modes\n"
"                          (default %lu, at most the ring size)\n"
"  -r, --reps N            timed repetitions after a warm-up (default %lu,\n"
"                          max %lu)\n"
"  -p, --producer-cpu CPU  producer's CPU, and single's (default: the\n"
"                          next-to-last CPU this task may use)\n"
"  -c, --consumer-cpu CPU  consumer's CPU (default: the last one)\n"
"  -h, --help              show this help\n"
"Exit status: 0 pass, 1 failure or bad option, 4 everything skipped.\n";

static const char *prog = "ptr_ring_test";

static __noreturn __printf(1, 2) void bad_option(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(KSFT_FAIL);
}

static unsigned long parse_num(const char *opt, const char *arg,
			       unsigned long min, unsigned long max)
{
	unsigned long long val;
	char *end;

	if (*arg < '0' || *arg > '9')
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

static int parse_cpu(const char *opt, const char *arg, const cpu_set_t *set)
{
	int cpu = parse_num(opt, arg, 0, CPU_SETSIZE - 1);

	if (!CPU_ISSET(cpu, set))
		bad_option("%s: CPU %d is not online or not in this task's affinity mask",
			   opt, cpu);
	return cpu;
}

static unsigned int parse_modes(char *arg)
{
	unsigned int modes = 0;
	char *tok, *save;
	int i;

	if (!strcmp(arg, "all"))
		return (1u << NR_MODES) - 1;
	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_MODES && strcmp(tok, mode_names[i]); i++)
			;
		if (i == NR_MODES)
			bad_option("--mode: unknown mode '%s' (see --help)", tok);
		modes |= 1u << i;
	}
	if (!modes)
		bad_option("--mode: names no mode");
	return modes;
}

/* The last CPU in @set below @below other than @except, or -1 */
static int last_cpu(const cpu_set_t *set, int below, int except)
{
	while (--below >= 0)
		if (CPU_ISSET(below, set) && below != except)
			return below;
	return -1;
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'b' },
		{ "reps", required_argument, NULL, 'r' },
		{ "producer-cpu", required_argument, NULL, 'p' },
		{ "consumer-cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool batch_set = false;
	cpu_set_t set;
	int opt;

	if (sched_getaffinity(0, sizeof(set), &set))
		bad_option("sched_getaffinity: %s", strerror(errno));
	*cfg = (struct config){ DEF_SIZE, DEF_COUNT, DEF_BATCH, DEF_REPS,
				-1, -1, false, (1u << NR_MODES) - 1 };
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:s:n:b:r:p:c:h", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			cfg->modes = parse_modes(optarg);
			break;
		case 's':
			cfg->size = parse_num("--size", optarg, 1, MAX_RING_SIZE);
			break;
		case 'n':
			cfg->count = parse_num("--count", optarg, 1, MAX_COUNT);
			break;
		case 'b':
			cfg->batch = parse_num("--batch", optarg, 1, MAX_RING_SIZE);
			batch_set = true;
			break;
		case 'r':
			cfg->reps = parse_num("--reps", optarg, 1, MAX_REPS);
			break;
		case 'p':
			cfg->prod_cpu = parse_cpu("--producer-cpu", optarg, &set);
			break;
		case 'c':
			cfg->cons_cpu = parse_cpu("--consumer-cpu", optarg, &set);
			break;
		case 'h':
			printf(usage_text, prog, DEF_SIZE, MAX_RING_SIZE,
			       DEF_COUNT, MAX_COUNT, DEF_BATCH, DEF_REPS,
			       MAX_REPS);
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
	if (cfg->prod_cpu >= 0 && cfg->prod_cpu == cfg->cons_cpu)
		bad_option("--producer-cpu and --consumer-cpu must differ (both %d)",
			   cfg->prod_cpu);
	/* Away from CPU0, which takes most interrupts, when there is a choice */
	if (cfg->cons_cpu < 0)
		cfg->cons_cpu = last_cpu(&set, CPU_SETSIZE, cfg->prod_cpu);
	if (cfg->prod_cpu < 0)
		cfg->prod_cpu = last_cpu(&set, cfg->cons_cpu, -1);
	if (cfg->prod_cpu < 0)
		cfg->prod_cpu = last_cpu(&set, CPU_SETSIZE, cfg->cons_cpu);
	cfg->two_cpus = cfg->prod_cpu >= 0 && cfg->cons_cpu >= 0;
	if (cfg->prod_cpu < 0)
		cfg->prod_cpu = cfg->cons_cpu;
}

int main(int argc, char **argv)
{
	struct ptr_ring r;
	struct config cfg;
	int mode;

	if (argc > 0 && argv[0])
		prog = argv[0];
	parse_args(argc, argv, &cfg);

	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	if (ptr_ring_init(&r, cfg.size, GFP_KERNEL))
		ksft_exit_fail_msg("ptr_ring_init: out of memory\n");
	ksft_print_msg("size %lu (r->batch %d) count %lu batch %lu reps %lu\n",
		       cfg.size, r.batch, cfg.count, cfg.batch, cfg.reps);
	ptr_ring_cleanup(&r, NULL);
	if (cfg.two_cpus)
		ksft_print_msg("producer CPU %d, consumer CPU %d: %s\n",
			       cfg.prod_cpu, cfg.cons_cpu,
			       relation(cfg.prod_cpu, cfg.cons_cpu));
	for (mode = 0; mode < NR_MODES; mode++)
		if (cfg.modes & (1u << mode))
			run_mode(&cfg, mode);

	if (ksft_get_fail_cnt())
		ksft_exit_fail();
	if (!ksft_get_pass_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
