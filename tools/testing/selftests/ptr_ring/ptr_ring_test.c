// SPDX-License-Identifier: GPL-2.0
/*
 * Time include/linux/ptr_ring.h in userspace, built with ringtest's shims:
 * a consumer and producers on CPUs of their own call it as its users do,
 * inlined into their loops as tun, vhost-net, page_pool and cpumap have
 * it.  Every item is checked, so a figure is the ring and this harness
 * together; a profiler tells them apart (the inlined code keeps
 * ptr_ring.h's file and lines in the debug information).  There is no
 * preempt count, BH or IRQ disabling: the figures are not in-kernel ones.
 * Takes ringtest's options, for run-on-all.sh.
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
/* As the kernel's: kselftest.h has __printf() and __noreturn only */
#define noinline	__attribute__((__noinline__))

#define load(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)

/* How a mode produces and consumes: each as one of the ring's users */
enum how {
	PRODUCE,		/* tap, veth */
	PRODUCE_BATCH,		/* tun_xdp_xmit(), cpumap's bq_flush */
	CONSUME,
	CONSUME_BATCHED,	/* vhost-net */
	LOCKLESS,		/* page_pool_refill_alloc_cache() */
	LOCKLESS_BATCHED,	/* cpu_map_kthread_run() */
};

/*
 * Each returns how many of the @n items of @a it produced or consumed.
 * Always inlined with a constant @how: the loop around the ring's calls is
 * compiled as its users' are.
 */
static __always_inline int ring_produce(struct ptr_ring *r, void **a, int n,
					enum how how)
{
	int i = 0;

	if (how == PRODUCE)
		return !ptr_ring_produce(r, a[0]);
	spin_lock(&r->producer_lock);
	while (i < n && !__ptr_ring_produce(r, a[i]))
		i++;
	spin_unlock(&r->producer_lock);
	return i;
}

static __always_inline int ring_consume(struct ptr_ring *r, void **a, int n,
					enum how how)
{
	int i = 0;

	switch (how) {
	case CONSUME:
		return !!(a[0] = ptr_ring_consume(r));
	case CONSUME_BATCHED:
		return ptr_ring_consume_batched(r, a, n);
	case LOCKLESS:
		if (__ptr_ring_empty(r))
			return 0;
		while (i < n && (a[i] = __ptr_ring_consume(r)))
			i++;
		return i;
	default:
		return __ptr_ring_empty(r) ? 0 :
		       __ptr_ring_consume_batched(r, a, n);
	}
}

static const struct mode {
	const char *name, *users;
	enum how produce, consume;
	int producers;			/* -1: --producers */
} modes[] = {
	{ "single", "one thread fills, then empties", PRODUCE, CONSUME, 0 },
	{ "spsc", "tap, veth", PRODUCE, CONSUME, 1 },
	{ "batch", "XDP into tun, vhost-net", PRODUCE_BATCH, CONSUME_BATCHED,
	  1 },
	{ "lockless", "page_pool", PRODUCE, LOCKLESS, 1 },
	{ "lockless_batch", "cpumap", PRODUCE_BATCH, LOCKLESS_BATCHED, 1 },
	{ "mpsc", "page_pool's returning CPUs", PRODUCE, LOCKLESS, -1 },
};

#define NR_MODES ARRAY_SIZE(modes)

static struct {
	long size, count, batch, param, reps, producers, cpu[MAX_PRODUCERS + 1];
	unsigned int modes;
} cfg = { .size = 1024, .count = 1000000, .reps = 5, .producers = 2,
	.cpu = { -1, -1 } };

/* One repetition: the ring, who is ready, whether it failed, its time */
static struct run {
	struct ptr_ring ring;
	const struct mode *mode;
	int nprod;
	int ready ____cacheline_aligned_in_smp, failed;
	struct timespec t0, t1;
	/* Each thread's items, on cache lines of their own; [0]: consumer */
	void **a[MAX_PRODUCERS + 1];
} run;

/* Fails the repetition (once), which stops its threads */
static __printf(1, 2) noinline bool fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run.failed, 1, __ATOMIC_RELAXED))
		return false;
	va_start(ap, fmt);
	printf("# %s: FAIL: ", run.mode->name);
	vprintf(fmt, ap);
	va_end(ap);
	return false;
}

enum wait { NOT_READY, FULL, EMPTY };

/*
 * Out of line: callgrind --toggle-collect='wait_*' leaves the waits out.
 * NOT_READY: until @ready threads are; the producers count up to nprod,
 * then the consumer, when it has started the clock.
 */
static noinline bool wait_while(enum wait what, int ready)
{
	while (!load(run.failed) &&
	       (what == NOT_READY ? load(run.ready) < ready :
		what == FULL ? ptr_ring_full(&run.ring) :
		__ptr_ring_empty(&run.ring)))
		cpu_relax();
	return !load(run.failed);
}

/* Producer p's k-th item is k << 8 | p; each producer's arrive in order */
static bool check(void **a, int n, long *next)
{
	long v, *e;
	int i;

	for (i = 0; i < n; i++) {
		v = (long)a[i];
		e = &next[v & (MAX_PRODUCERS - 1)];
		if (unlikely(v != *e))
			return fail("got %#lx, expected %#lx\n", v, *e);
		*e += 1 << 8;
	}
	return true;
}

static bool pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ||
	       fail("cannot run on CPU %ld\n", cpu);
}

static __always_inline void produce_all(long p, enum how how)
{
	long k = 1, count = cfg.count;
	void **a = run.a[p];
	int i, n, done;

	while (k <= count) {
		n = k + cfg.batch <= count ? cfg.batch : count - k + 1;
		for (i = 0; i < n; i++)
			a[i] = (void *)((k + i) << 8 | p);
		for (done = 0; done < n; done += i) {
			i = ring_produce(&run.ring, a + done, n - done, how);
			if (!i && !wait_while(FULL, 0))
				return;
		}
		k += n;
	}
}

static void *producer(void *arg)
{
	long p = (long)arg;

	if (!pin(cfg.cpu[p]))
		return NULL;
	__atomic_fetch_add(&run.ready, 1, __ATOMIC_RELAXED);
	if (!wait_while(NOT_READY, run.nprod + 1))
		return NULL;
	if (run.mode->produce == PRODUCE)
		produce_all(p, PRODUCE);
	else
		produce_all(p, PRODUCE_BATCH);
	return NULL;
}

static __always_inline void consume_all(enum how how)
{
	long next[MAX_PRODUCERS], got = 0, total = cfg.count * run.nprod;
	void **a = run.a[0];
	int i, n;

	for (i = 0; i < MAX_PRODUCERS; i++)
		next[i] = 1 << 8 | i;
	while (got < total) {
		n = ring_consume(&run.ring, a, cfg.batch, how);
		if (!check(a, n, next) || (!n && !wait_while(EMPTY, 0)))
			return;
		got += n;
	}
}

/* One thread fills the ring, then empties it */
static void single(void)
{
	long k = 1, next[MAX_PRODUCERS] = { [1] = 1 << 8 | 1 };
	void **a = run.a[0];

	while (k <= cfg.count) {
		for (; k <= cfg.count; k++) {
			a[0] = (void *)(k << 8 | 1);
			if (!ring_produce(&run.ring, a, 1, PRODUCE))
				break;
		}
		while (ring_consume(&run.ring, a, 1, CONSUME))
			if (!check(a, 1, next))
				return;
	}
}

/* The clock starts when every producer is there to be timed */
static void *consumer(void *arg)
{
	if (!pin(cfg.cpu[(long)arg]) || !wait_while(NOT_READY, run.nprod))
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	__atomic_fetch_add(&run.ready, 1, __ATOMIC_RELAXED);
	if (!run.nprod)
		single();
	else if (run.mode->consume == CONSUME)
		consume_all(CONSUME);
	else if (run.mode->consume == CONSUME_BATCHED)
		consume_all(CONSUME_BATCHED);
	else if (run.mode->consume == LOCKLESS)
		consume_all(LOCKLESS);
	else
		consume_all(LOCKLESS_BATCHED);
	clock_gettime(CLOCK_MONOTONIC, &run.t1);
	return NULL;
}

/* One repetition: false if it failed */
static bool run_once(void)
{
	pthread_t t[MAX_PRODUCERS + 1];
	long n;

	run.ready = 0;
	run.failed = 0;
	if (ptr_ring_init(&run.ring, cfg.size, GFP_KERNEL))
		return fail("ptr_ring_init: out of memory\n");
	if (cfg.param)
		run.ring.batch = cfg.param;
	for (n = 0; n <= run.nprod; n++)
		if (pthread_create(&t[n], NULL, n ? producer : consumer,
				   (void *)n)) {
			fail("cannot start thread %ld\n", n);
			break;
		}
	while (n--)
		pthread_join(t[n], NULL);
	ptr_ring_cleanup(&run.ring, NULL);
	return !run.failed;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int producers(const struct mode *mode)
{
	return mode->producers < 0 ? cfg.producers : mode->producers;
}

/*
 * The modes asked for that @usable CPUs can run.  The others are left out
 * with their reason rather than reported as skipped: CI (netdev's NIPA)
 * counts a program with any skipped case as skipped, its other figures
 * with it, and a 2-CPU VM cannot run mpsc.
 */
static unsigned int runnable(long usable)
{
	unsigned int i, ok = 0;

	for (i = 0; i < NR_MODES; i++) {
		int n = producers(&modes[i]);

		if (!(cfg.modes & (1u << i)))
			continue;
		if (n + 1 <= usable) {
			ok |= 1u << i;
			continue;
		}
		ksft_print_msg("%s not run: needs %d CPUs, %ld usable\n",
			       modes[i].name, n + 1, usable);
	}
	return ok;
}

static void run_mode(const struct mode *mode)
{
	double ns[MAX_REPS + 1], med;
	long rep;

	run.mode = mode;
	run.nprod = producers(mode);
	for (rep = 0; rep <= cfg.reps && run_once(); rep++)
		ns[rep] = ((run.t1.tv_sec - run.t0.tv_sec) * 1e9 +
			   run.t1.tv_nsec - run.t0.tv_nsec) /
			  (cfg.count * (run.nprod ?: 1));
	if (run.failed) {
		ksft_test_result_fail("%s\n", mode->name);
		return;
	}
	qsort(ns + 1, cfg.reps, sizeof(ns[0]), cmp);
	med = (ns[1 + cfg.reps / 2] + ns[1 + (cfg.reps - 1) / 2]) / 2;
	ksft_print_msg("%s (%s): ns_per_item min %.3f median %.3f max %.3f\n",
		       mode->name, mode->users, ns[1], med, ns[cfg.reps]);
	ksft_test_result_pass("%s # perf=%.3fns\n", mode->name, med);
}

/* ringtest's option names, for run-on-all.sh; the numbers' ranges */
#define SHORT_OPTS	"s:n:b:r:P:m:h"
static const struct {
	struct option opt;
	long *val, min, max;
} opts[] = {
	{ { "ring-size", 1, NULL, 's' }, &cfg.size, 1, MAX_SIZE },
	/* an item is k << 8 | p: k must not wrap, on 32-bit either */
	{ { "run-cycles", 1, NULL, 'n' }, &cfg.count, 1, ULONG_MAX >> 9 },
	{ { "batch", 1, NULL, 'b' }, &cfg.batch, 1, MAX_SIZE },
	{ { "param", 1, NULL, 'B' }, &cfg.param, 1, MAX_SIZE },
	{ { "reps", 1, NULL, 'r' }, &cfg.reps, 1, MAX_REPS },
	{ { "producers", 1, NULL, 'P' }, &cfg.producers, 1, MAX_PRODUCERS - 1 },
	{ { "host-affinity", 1, NULL, 'H' }, &cfg.cpu[0], 0, CPU_SETSIZE - 1 },
	{ { "guest-affinity", 1, NULL, 'G' }, &cfg.cpu[1], 0, CPU_SETSIZE - 1 },
	{ .opt = { "mode", 1, NULL, 'm' } },
	{ .opt = { "help", 0, NULL, 'h' } }, { }
};

static __noreturn void usage(const char *err, const char *arg)
{
	if (err)
		fprintf(stderr, "%s: %s '%s'\n", program_invocation_short_name,
			err, arg);
	fprintf(err ? stderr : stdout,
		"Usage: %s [--mode|-m MODE,...] [--ring-size|-s N] [--run-cycles|-n N]\n"
		"  [--batch|-b N] [--param N] [--reps|-r N] [--producers|-P N]\n"
		"  [--host-affinity CPU] [--guest-affinity CPU]\n"
		"MODE: single spsc batch lockless lockless_batch mpsc (default: all)\n",
		program_invocation_short_name);
	exit(err ? KSFT_FAIL : KSFT_PASS);
}

static void parse_modes(char *list)
{
	unsigned int i;
	char *name;

	while ((name = strsep(&list, ","))) {
		for (i = 0; i < NR_MODES && strcmp(name, modes[i].name); i++)
			;
		if (i == NR_MODES)
			usage("unknown mode", name);
		cfg.modes |= 1u << i;
	}
}

/* The CPUs: cfg.cpu[0] consumes, the others produce; how many are usable */
static long parse_args(int argc, char **argv)
{
	struct option o[ARRAY_SIZE(opts)];
	long cpu, n, *c = cfg.cpu;
	unsigned int i;
	cpu_set_t set;
	char *end;
	int opt;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		o[i] = opts[i].opt;
	while ((opt = getopt_long(argc, argv, SHORT_OPTS, o, NULL)) != -1) {
		for (i = 0; opts[i].opt.name && opts[i].opt.val != opt; i++)
			;
		if (opt == 'm') {
			parse_modes(optarg);
		} else if (opts[i].val) {
			errno = 0;
			*opts[i].val = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno ||
			    *opts[i].val < opts[i].min ||
			    *opts[i].val > opts[i].max)
				usage("out of range or not a number:", optarg);
		} else {
			usage(opt == 'h' ? NULL : "bad option",
			      argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage("unexpected argument", argv[optind]);
	cfg.modes = cfg.modes ?: (1u << NR_MODES) - 1;
	cfg.batch = cfg.batch ?: (cfg.size < 16 ? cfg.size : 16);
	if (cfg.batch > cfg.size || cfg.param > cfg.size)
		usage("--batch and --param must not exceed --ring-size", "");
	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
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
	long usable = parse_args(argc, argv);
	/* Whole cache lines: no two threads' items share one */
	size_t bytes = ALIGN(cfg.batch * sizeof(void *), SMP_CACHE_BYTES);
	unsigned int i;

	for (i = 0; i < usable && (run.a[i] = aligned_alloc(SMP_CACHE_BYTES,
							    bytes)); i++)
		;
	if (i < usable || ptr_ring_init(&run.ring, cfg.size, GFP_KERNEL))
		ksft_exit_fail_msg("out of memory\n");
	ksft_print_header();
	cfg.modes = runnable(usable);
	if (!cfg.modes)
		ksft_exit_skip("no mode can run on %ld CPUs\n", usable);
	ksft_set_plan(__builtin_popcount(cfg.modes));
	ksft_print_msg("ring-size %ld (r->batch %ld) batch %ld\n", cfg.size,
		       cfg.param ?: run.ring.batch, cfg.batch);
	ksft_print_msg("run-cycles %ld, reps %ld after a warm-up\n", cfg.count,
		       cfg.reps);
	ptr_ring_cleanup(&run.ring, NULL);
	ksft_print_msg("items: %zu bytes at %p (consumer), %p (producer 1)\n",
		       bytes, run.a[0], run.a[1]);
	ksft_print_msg("consumer CPU %ld, producer CPU %ld\n", cfg.cpu[0],
		       cfg.cpu[1]);
	for (i = 0; i < NR_MODES; i++)
		if (cfg.modes & (1u << i))
			run_mode(&modes[i]);
	ksft_finished();
}
