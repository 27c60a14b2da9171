// SPDX-License-Identifier: GPL-2.0
/*
 * Time include/linux/ptr_ring.h in userspace, built with ringtest's shims:
 * producers and a consumer on CPUs of their own call it as its users do, in
 * loops flattened as ringtest's are, so that the harness's code does not
 * change with the header under test.  Items are numbers, or with --payload
 * cache lines the producer writes and the consumer reads.  Every item is
 * checked; a ring that makes no progress fails after STALL_SEC seconds.
 * There is no preempt count, BH or IRQ disabling: the figures are not
 * in-kernel ones.  Takes ringtest's affinity options, for run-on-all.sh.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include "../kselftest.h"
#include "../../../virtio/ringtest/ptr_ring_shim.h"

#define MAX_SIZE	((long)(KMALLOC_MAX_SIZE / sizeof(void *)))
#define MAX_PRODUCERS	64
#define MAX_REPS	100
#define STALL_SEC	10

/* As the kernel's; kselftest.h has __printf() and __noreturn only */
#define noinline	__attribute__((__noinline__))
#define __cold		__attribute__((__cold__))

enum mode { SINGLE, SPSC, BATCH, LOCKLESS, LOCKLESS_BATCH, STOP_WAKE,
	    CHECK_STOP_WAKE, MPSC, NR_MODES };
static char * const mode_names[] = {		/* for getsubopt() */
	"single", "spsc", "batch", "lockless", "lockless_batch", "stop_wake",
	"check_stop_wake", "mpsc", "all", NULL
};

static const char usage[] =
"Usage: %s [options]: time include/linux/ptr_ring.h (KTAP)\n"
"  -m, --mode LIST         comma-separated, or all (the default): single;\n"
"                          spsc (tun); batch (XDP into tun, vhost-net);\n"
"                          lockless (page_pool); lockless_batch (cpumap);\n"
"                          stop_wake, check_stop_wake (a producer that\n"
"                          stops on a full ring and is woken by the\n"
"                          consumer, as tun's backpressure); mpsc\n"
"                          (page_pool's returning CPUs)\n"
"  -s, --ring-size N       entries (default 1024, at most %ld)\n"
"  -n, --run-cycles N      items per producer and repetition (1000000,\n"
"                          100000 with KSFT_MACHINE_SLOW=yes)\n"
"  -b, --batch N           of the batched modes (default 16)\n"
"      --param N           r->batch, the consumer's zeroing batch\n"
"  -r, --reps N            timed repetitions after a warm-up (default 5)\n"
"  -P, --producers N       of mpsc (default 2)\n"
"      --payload           items are cache lines, written and read\n"
"      --host-affinity C   the consumer's CPU (default: the last one)\n"
"      --guest-affinity C  the producer's (default: the last but one)\n";

static struct {
	long size, count, batch, param, reps, producers, cpu[MAX_PRODUCERS + 1];
	unsigned int modes;
	bool payload;
} cfg = { 1024, 1000000, 16, 0, 5, 2, { -1, -1 }, (1u << NR_MODES) - 1 };

/* Producer p's item k is k << 8 | p, or pool[p << pool_shift | (k & mask)] */
struct item {
	unsigned long val;
} ____cacheline_aligned_in_smp;

struct run {
	struct ptr_ring ring;
	enum mode mode;
	struct item *pool;
	unsigned long mask, pool_shift, pool_bytes;
	int ready ____cacheline_aligned_in_smp, stop, failed, stopped;
	unsigned long progress ____cacheline_aligned_in_smp, empty;
	struct timespec t0, t1;
	struct producer {
		unsigned long full ____cacheline_aligned_in_smp;
		struct run *run;
		int p;
	} prod[MAX_PRODUCERS];
	void **array;
};

#define load(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define store(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static __printf(2, 3) noinline __cold
bool fail(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_RELAXED))
		return false;
	va_start(ap, fmt);
	printf("# %s: FAIL: ", mode_names[run->mode]);
	vprintf(fmt, ap);
	va_end(ap);
	store(run->stop, 1);
	return false;
}

static __always_inline struct item *item_at(struct run *run, unsigned long v)
{
	return &run->pool[(v & (MAX_PRODUCERS - 1)) << run->pool_shift |
			  ((v >> 8) & run->mask)];
}

static __always_inline void *item(struct run *run, int p, unsigned long k,
				  const bool payload)
{
	unsigned long v = k << 8 | p;

	if (!payload)
		return (void *)v;
	item_at(run, v)->val = v;
	return item_at(run, v);
}

/* @ptr is the next item of its producer: next[0], or with @multi next[p] */
static __always_inline bool take(struct run *run, void *ptr,
				 unsigned long *next, const bool multi,
				 const bool payload)
{
	unsigned long v = (unsigned long)ptr, p = 0;

	if (payload) {
		if (unlikely(v - (unsigned long)run->pool >= run->pool_bytes))
			return fail(run, "got %p, not an item\n", ptr);
		v = ((struct item *)ptr)->val;
	}
	if (multi)
		p = v & (MAX_PRODUCERS - 1);
	if (unlikely(v != next[p] || (payload && ptr != item_at(run, v))))
		return fail(run, "item %#lx: got %p (%#lx)\n", next[p], ptr, v);
	next[p] += 256;
	return true;
}

static __always_inline bool stop_wake(enum mode mode)
{
	return mode == STOP_WAKE || mode == CHECK_STOP_WAKE;
}

/* The consumer wakes a stopped producer when its next slot is free */
static void wake(struct run *run)
{
	if (load(run->stopped) && !ptr_ring_full(&run->ring))
		store(run->stopped, 0);
}

/* Out of line: callgrind --toggle-collect=wait_* leaves the waits out */
static noinline bool wait_full(struct run *run, int p, int ret)
{
	if (ret != -ENOSPC)
		return fail(run, "producer %d: produce returned %d\n", p, ret);
	run->prod[p].full++;
	if (stop_wake(run->mode))
		store(run->stopped, 1);
	while (!load(run->stop) && (stop_wake(run->mode) ? load(run->stopped) :
				    ptr_ring_full(&run->ring)))
		cpu_relax();
	return !load(run->stop);
}

static noinline void wait_ready(struct run *run)
{
	while (!load(run->ready))
		cpu_relax();
}

static noinline bool wait_empty(struct run *run)
{
	struct ptr_ring *r = &run->ring;
	bool locked = run->mode == SPSC || run->mode == BATCH ||
		      stop_wake(run->mode);

	run->empty++;
	while (!load(run->stop)) {
		if (stop_wake(run->mode))
			wake(run);
		if (locked ? !ptr_ring_empty(r) : !__ptr_ring_empty(r))
			return true;
		cpu_relax();
	}
	return false;
}

static __always_inline void producer(struct run *run, int p,
				     const enum mode mode, const bool payload)
{
	unsigned long k = 1, end, count = cfg.count, batch = cfg.batch;
	struct ptr_ring *r = &run->ring;
	int ret;

	wait_ready(run);
	while (k <= count) {
		if (mode == BATCH || mode == LOCKLESS_BATCH) {
			end = k + batch <= count ? k + batch : count + 1;
			ret = 0;
			spin_lock(&r->producer_lock);
			while (k < end &&
			       !(ret = __ptr_ring_produce(r, item(run, p, k,
								  payload))))
				k++;
			spin_unlock(&r->producer_lock);
#ifdef HAVE_PTR_RING_CHECK_PRODUCE
		} else if (mode == CHECK_STOP_WAKE) {
			spin_lock(&r->producer_lock);
			ret = __ptr_ring_check_produce(r);
			if (!ret)
				ret = __ptr_ring_produce(r, item(run, p, k,
								 payload));
			spin_unlock(&r->producer_lock);
			k += !ret;
#endif
		} else {
			ret = ptr_ring_produce(r, item(run, p, k, payload));
			k += !ret;
		}
		if (ret && !wait_full(run, p, ret))
			return;
	}
}

static __always_inline void consumer(struct run *run, const enum mode mode,
				     const bool payload)
{
	unsigned long next[MAX_PRODUCERS], one = 1 << 8, done = 0;
	const bool multi = mode == MPSC;
	unsigned long *nx = multi ? next : &one, total = cfg.count;
	struct ptr_ring *r = &run->ring;
	int i, n, batch = cfg.batch;
	void **a = run->array, *ptr;

	for (i = 0; i < MAX_PRODUCERS; i++)
		next[i] = 1 << 8 | i;
	if (multi)
		total *= cfg.producers;
	while (done < total) {
		if (mode == BATCH || mode == LOCKLESS_BATCH) {
			if (mode == BATCH)
				n = ptr_ring_consume_batched(r, a, batch);
			else
				n = __ptr_ring_empty(r) ? 0 :
				    __ptr_ring_consume_batched(r, a, batch);
			for (i = 0; i < n; i++)
				if (!take(run, a[i], nx, multi, payload))
					return;
		} else if (mode == LOCKLESS || mode == MPSC) {
			for (n = 0; n < batch && (n || !__ptr_ring_empty(r)) &&
			     (ptr = __ptr_ring_consume(r)); n++)
				if (!take(run, ptr, nx, multi, payload))
					return;
		} else {
			ptr = ptr_ring_consume(r);
			n = !!ptr;
			if (n && !take(run, ptr, nx, multi, payload))
				return;
		}
		done += n;
		store(run->progress, done);
		if (stop_wake(mode))
			wake(run);
		if (!n && !wait_empty(run))
			return;
	}
}

/* One thread fills the ring, then empties it */
static __always_inline void single(struct run *run, const bool payload)
{
	unsigned long k = 1, next = 1 << 8, count = cfg.count;
	struct ptr_ring *r = &run->ring;
	void *ptr;

	while (k <= count && !load(run->stop)) {
		while (k <= count &&
		       !ptr_ring_produce(r, item(run, 0, k, payload)))
			k++;
		while ((ptr = ptr_ring_consume(r)))
			if (!take(run, ptr, &next, false, payload))
				return;
		store(run->progress, k);
	}
}

/* The timed loops, each specialized for its mode and payload */
static noinline void __attribute__((__flatten__))
produce_all(struct run *run, int p)
{
	bool pl = cfg.payload;

	switch (run->mode) {
	case BATCH:
		pl ? producer(run, p, BATCH, true) :
		     producer(run, p, BATCH, false);
		break;
	case LOCKLESS_BATCH:
		pl ? producer(run, p, LOCKLESS_BATCH, true) :
		     producer(run, p, LOCKLESS_BATCH, false);
		break;
	case CHECK_STOP_WAKE:
		pl ? producer(run, p, CHECK_STOP_WAKE, true) :
		     producer(run, p, CHECK_STOP_WAKE, false);
		break;
	default:
		pl ? producer(run, p, SPSC, true) :
		     producer(run, p, SPSC, false);
	}
}

static noinline void __attribute__((__flatten__))
consume_all(struct run *run)
{
	bool pl = cfg.payload;

	switch (run->mode) {
	case SINGLE:
		pl ? single(run, true) : single(run, false);
		break;
	case SPSC:
		pl ? consumer(run, SPSC, true) : consumer(run, SPSC, false);
		break;
	case BATCH:
		pl ? consumer(run, BATCH, true) : consumer(run, BATCH, false);
		break;
	case LOCKLESS:
		pl ? consumer(run, LOCKLESS, true) :
		     consumer(run, LOCKLESS, false);
		break;
	case LOCKLESS_BATCH:
		pl ? consumer(run, LOCKLESS_BATCH, true) :
		     consumer(run, LOCKLESS_BATCH, false);
		break;
	case STOP_WAKE:
	case CHECK_STOP_WAKE:
		pl ? consumer(run, STOP_WAKE, true) :
		     consumer(run, STOP_WAKE, false);
		break;
	default:
		pl ? consumer(run, MPSC, true) : consumer(run, MPSC, false);
	}
}

static void *producer_thread(void *arg)
{
	struct producer *prod = arg;

	produce_all(prod->run, prod->p);
	return NULL;
}

static void *consumer_thread(void *arg)
{
	struct run *run = arg;

	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	store(run->ready, 1);
	consume_all(run);
	clock_gettime(CLOCK_MONOTONIC, &run->t1);
	return NULL;
}

static int start(pthread_t *t, long cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ?:
	      pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}

/* One repetition; the watchdog: false if it failed */
static bool run_once(struct run *run, int nprod)
{
	unsigned long seen;
	pthread_t t[MAX_PRODUCERS + 1];
	int i, n = 0, still = 0;
	struct timespec ts;

	if (ptr_ring_init(&run->ring, cfg.size, GFP_KERNEL))
		return fail(run, "ptr_ring_init: out of memory\n");
	if (cfg.param)
		run->ring.batch = cfg.param;
	run->ready = 0;
	run->stop = 0;
	run->failed = 0;
	run->stopped = 0;
	run->progress = 0;
	run->empty = 0;
	for (i = 0; i < nprod; i++) {
		run->prod[i].full = 0;
		run->prod[i].run = run;
		run->prod[i].p = i;
	}
	if (!start(&t[n], cfg.cpu[0], consumer_thread, run))
		n++;
	while (n && n <= nprod &&
	       !start(&t[n], cfg.cpu[n], producer_thread, &run->prod[n - 1]))
		n++;
	if (n <= nprod) {
		fail(run, "cannot start thread %d\n", n);
		store(run->ready, 1);
	}
	while (n) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		seen = load(run->progress);
		if (!pthread_timedjoin_np(t[n - 1], NULL, &ts))
			n--;
		else if (load(run->progress) != seen)
			still = 0;
		else if (++still == STALL_SEC)
			fail(run,
			     "no progress for %d s at item %lu: producer %d head %d tail %d\n",
			     STALL_SEC, seen, run->ring.producer,
			     run->ring.consumer_head, run->ring.consumer_tail);
		else if (still > STALL_SEC + 2)
			ksft_exit_fail_msg("%s: a thread did not stop\n",
					   mode_names[run->mode]);
	}
	ptr_ring_cleanup(&run->ring, NULL);
	return !run->failed;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run_mode(struct run *run, enum mode mode, long usable)
{
	int nprod = mode == SINGLE ? 0 : mode == MPSC ? cfg.producers : 1;
	const char *name = mode_names[mode];
	double ns[MAX_REPS + 1];
	unsigned long full;
	long rep, i;

	run->mode = mode;
	if (nprod + 1 > usable && nprod) {
		ksft_test_result_code(KSFT_SKIP, name,
				      "needs %d CPUs (%d producing, 1 consuming), %ld usable",
				      nprod + 1, nprod, usable);
		return;
	}
#ifndef HAVE_PTR_RING_CHECK_PRODUCE
	if (mode == CHECK_STOP_WAKE) {
		ksft_test_result_code(KSFT_SKIP, name,
				      "ptr_ring.h has no __ptr_ring_check_produce() (before v7.3)");
		return;
	}
#endif
	for (rep = 0; rep <= cfg.reps && run_once(run, nprod); rep++) {
		for (full = 0, i = 0; i < nprod; i++)
			full += run->prod[i].full;
		ns[rep] = ((run->t1.tv_sec - run->t0.tv_sec) * 1e9 +
			   run->t1.tv_nsec - run->t0.tv_nsec) /
			  (cfg.count * (nprod > 1 ? nprod : 1));
		ksft_print_msg("%s: rep %ld: %.3f ns full %lu empty %lu\n",
			       name, rep, ns[rep], full, run->empty);
	}
	if (run->failed) {
		ksft_test_result_fail("%s\n", name);
		return;
	}
	qsort(ns + 1, cfg.reps, sizeof(ns[0]), cmp);
	ns[0] = (ns[1 + cfg.reps / 2] + ns[1 + (cfg.reps - 1) / 2]) / 2;
	ksft_print_msg("%s: ns_per_item min %.3f median %.3f max %.3f\n",
		       name, ns[1], ns[0], ns[cfg.reps]);
	ksft_print_msg("%s: spread %.1f%% of the median over %ld reps\n", name,
		       100 * (ns[cfg.reps] - ns[1]) / ns[0], cfg.reps);
	ksft_test_result_pass("%s # perf=%.3fns\n", name, ns[0]);
}

/* What two CPUs share, from sysfs (in a VM: what the hypervisor says) */
static const char *relation(long a, long b)
{
	static const char * const what[] = {
		"topology/thread_siblings_list", "cache/index3/shared_cpu_list"
	};
	char path[128], s[2][256];
	int i, j;
	FILE *f;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%ld/%s",
				 j ? b : a, what[i]);
			f = fopen(path, "r");
			if (!f || !fgets(s[j], sizeof(s[j]), f))
				snprintf(s[j], sizeof(s[j]), "?%d", j);
			if (f)
				fclose(f);
		}
		if (!strcmp(s[0], s[1]))
			return i ? "same last-level cache" :
				   "same core (SMT siblings)";
	}
	return s[0][0] == '?' ? "topology unknown" :
				"different last-level caches";
}

static const struct option opts[] = {
	{ "ring-size", 1, NULL, 's' }, { "run-cycles", 1, NULL, 'n' },
	{ "batch", 1, NULL, 'b' }, { "param", 1, NULL, 'B' },
	{ "reps", 1, NULL, 'r' }, { "producers", 1, NULL, 'P' },
	{ "host-affinity", 1, NULL, 'H' }, { "guest-affinity", 1, NULL, 'G' },
	{ "mode", 1, NULL, 'm' }, { "payload", 0, NULL, 'p' },
	{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
};

static const struct {
	int opt;
	long *val, min, max;
} nums[] = {
	/* an item is k << 8 | p: k must not wrap, on 32-bit either */
	{ 's', &cfg.size, 1, MAX_SIZE }, { 'n', &cfg.count, 1, ULONG_MAX >> 9 },
	{ 'b', &cfg.batch, 1, MAX_SIZE }, { 'B', &cfg.param, 1, MAX_SIZE },
	{ 'r', &cfg.reps, 1, MAX_REPS },
	{ 'P', &cfg.producers, 1, MAX_PRODUCERS - 1 },
	{ 'H', &cfg.cpu[0], 0, CPU_SETSIZE - 1 },
	{ 'G', &cfg.cpu[1], 0, CPU_SETSIZE - 1 },
};

static __printf(1, 2) __noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", program_invocation_short_name);
	exit(KSFT_FAIL);
}

static void parse_num(int opt)
{
	const struct option *o = opts;
	size_t i = 0;
	char *end;
	long v;

	while (nums[i].opt != opt)
		i++;
	while (o->val != opt)
		o++;
	errno = 0;
	v = strtol(optarg, &end, 10);
	if (*optarg < '0' || *optarg > '9' || *end || errno ||
	    v < nums[i].min || v > nums[i].max)
		usage_error("--%s: '%s' is not a number from %ld to %ld",
			    o->name, optarg, nums[i].min, nums[i].max);
	*nums[i].val = v;
}

/* The CPUs: cfg.cpu[0] consumes, the others produce; how many are usable */
static long parse_args(int argc, char **argv)
{
	long cpu, n, *c = cfg.cpu;
	cpu_set_t set;
	char *val;
	int opt;

	/* As the net selftests: an emulated or debug kernel runs fewer */
	val = getenv("KSFT_MACHINE_SLOW");
	if (val && !strcmp(val, "yes"))
		cfg.count /= 10;
	while ((opt = getopt_long(argc, argv, "s:n:b:r:P:m:h", opts,
				  NULL)) != -1) {
		if (opt == 'p') {
			cfg.payload = true;
		} else if (opt == 'h') {
			printf(usage, argv[0], MAX_SIZE);
			exit(KSFT_PASS);
		} else if (opt == 'm') {
			for (cfg.modes = 0; *optarg; ) {
				opt = getsubopt(&optarg, mode_names, &val);
				if (opt < 0)
					usage_error("unknown mode '%s'", val);
				cfg.modes |= opt == NR_MODES ?
					     (1u << NR_MODES) - 1 : 1u << opt;
			}
		} else if (opt == '?' || opt == ':') {
			usage_error("bad option");
		} else {
			parse_num(opt);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!cfg.modes)
		usage_error("--mode names no mode");
	if (cfg.batch > cfg.size || cfg.param > cfg.size)
		usage_error("--batch and --param must not exceed --ring-size");
	if (c[0] >= 0 && c[0] == c[1])
		usage_error("the consumer and the producer need two CPUs");
	if (sched_getaffinity(0, sizeof(set), &set))
		usage_error("sched_getaffinity: %s", strerror(errno));
	for (n = 0; n < 2; n++)
		if (c[n] >= 0 && !CPU_ISSET(c[n], &set))
			usage_error("CPU %ld is not online or not allowed",
				    c[n]);
	/* As run-on-all.sh: the consumer on the last CPU, the others below */
	for (cpu = CPU_SETSIZE - 1; cpu >= 0 && c[0] < 0; cpu--)
		if (CPU_ISSET(cpu, &set) && cpu != c[1])
			c[0] = cpu;
	n = c[1] >= 0 ? 2 : 1;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0 && n <= MAX_PRODUCERS; cpu--)
		if (CPU_ISSET(cpu, &set) && cpu != c[0] && cpu != c[1])
			c[n++] = cpu;
	return n;
}

int main(int argc, char **argv)
{
	long usable = parse_args(argc, argv), shift = 0;
	unsigned long nprod = cfg.producers + 1;
	struct run *run = aligned_alloc(SMP_CACHE_BYTES, sizeof(*run));
	int i;

	while ((1L << shift) < 4 * cfg.size)
		shift++;
	if (run) {
		memset(run, 0, sizeof(*run));
		run->pool_shift = shift;
		run->mask = (1UL << shift) - 1;
		run->pool_bytes = (nprod << shift) * sizeof(struct item);
		run->pool = aligned_alloc(SMP_CACHE_BYTES,
					  cfg.payload ? run->pool_bytes : 64);
		run->array = calloc(cfg.batch, sizeof(void *));
	}
	if (!run || !run->pool || !run->array)
		ksft_exit_fail_msg("out of memory\n");
	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	ksft_print_msg("ring-size %ld run-cycles %ld batch %ld reps %ld%s\n",
		       cfg.size, cfg.count, cfg.batch, cfg.reps,
		       cfg.payload ? " payload" : "");
	ksft_print_msg("rep 0 is the warm-up, not counted\n");
	if (usable > 1)
		ksft_print_msg("consumer CPU %ld, producer CPU %ld: %s\n",
			       cfg.cpu[0], cfg.cpu[1],
			       relation(cfg.cpu[0], cfg.cpu[1]));
	for (i = 0; i < NR_MODES; i++)
		if (cfg.modes & (1u << i))
			run_mode(run, i, usable);
	if (!ksft_get_pass_cnt() && !ksft_get_fail_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
