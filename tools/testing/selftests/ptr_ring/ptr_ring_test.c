// SPDX-License-Identifier: GPL-2.0
/*
 * Time include/linux/ptr_ring.h in userspace, built with ringtest's shims:
 * a consumer and producers on CPUs of their own call it as its users do.
 * Each way of calling it is one out-of-line ring_*() function, and the
 * harness never calls the header itself, so a change to the header changes
 * the ring_*() functions and nothing else.  Every item is checked; a ring
 * that makes no progress fails after STALL_SEC seconds.  There is no
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
#define STALL_SEC	10
/* As the kernel's: kselftest.h has __printf() and __noreturn only */
#define noinline	__attribute__((__noinline__))

#define load(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define store(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Each returns how many of the n items of @a it produced or consumed */
typedef int ring_fn(struct ptr_ring *r, void **a, int n);

static noinline int ring_produce(struct ptr_ring *r, void **a, int n)
{
	return !ptr_ring_produce(r, a[0]);
}

/* tun_xdp_xmit(), cpumap's bq_flush_to_queue(): one lock for a batch */
static noinline int ring_produce_locked_batch(struct ptr_ring *r, void **a,
					      int n)
{
	int i = 0;

	spin_lock(&r->producer_lock);
	while (i < n && !__ptr_ring_produce(r, a[i]))
		i++;
	spin_unlock(&r->producer_lock);
	return i;
}

static noinline int ring_consume(struct ptr_ring *r, void **a, int n)
{
	return !!(a[0] = ptr_ring_consume(r));
}

static noinline int ring_consume_batched(struct ptr_ring *r, void **a, int n)
{
	return ptr_ring_consume_batched(r, a, n);
}

/* page_pool_refill_alloc_cache(): the only consumer, without the lock */
static noinline int ring_consume_lockless(struct ptr_ring *r, void **a, int n)
{
	int i = 0;

	if (__ptr_ring_empty(r))
		return 0;
	while (i < n && (a[i] = __ptr_ring_consume(r)))
		i++;
	return i;
}

/* cpu_map_kthread_run() */
static noinline int ring_consume_lockless_batched(struct ptr_ring *r,
						  void **a, int n)
{
	return __ptr_ring_empty(r) ? 0 : __ptr_ring_consume_batched(r, a, n);
}

static const struct mode {
	const char *name, *users;
	ring_fn *produce, *consume;
	int producers;			/* 0: --producers */
} modes[] = {
	{ "single", "one thread fills, then empties",
	  ring_produce, ring_consume, 1 },
	{ "spsc", "tun", ring_produce, ring_consume, 1 },
	{ "batch", "XDP into tun, vhost-net",
	  ring_produce_locked_batch, ring_consume_batched, 1 },
	{ "lockless", "page_pool",
	  ring_produce, ring_consume_lockless, 1 },
	{ "lockless_batch", "cpumap",
	  ring_produce_locked_batch, ring_consume_lockless_batched, 1 },
	{ "mpsc", "page_pool's returning CPUs",
	  ring_produce, ring_consume_lockless, 0 },
};

#define NR_MODES ARRAY_SIZE(modes)

static struct {
	long size, count, batch, param, reps, producers, cpu[MAX_PRODUCERS + 1];
	unsigned int modes;
} cfg = { 1024, 1000000, 16, 0, 5, 2, { -1, -1 }, (1u << NR_MODES) - 1 };

struct run {
	struct ptr_ring ring;
	const struct mode *mode;
	int ready ____cacheline_aligned_in_smp, stop, failed;
	unsigned long progress ____cacheline_aligned_in_smp;
	struct timespec t0, t1;
	struct producer {
		struct run *run ____cacheline_aligned_in_smp;
		unsigned long p;
		void **a;
	} prod[MAX_PRODUCERS + 1];	/* prod[0]'s array is the consumer's */
};

static __printf(2, 3) noinline bool fail(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_RELAXED))
		return false;
	va_start(ap, fmt);
	printf("# %s: FAIL: ", run->mode->name);
	vprintf(fmt, ap);
	va_end(ap);
	store(run->stop, 1);
	return false;
}

enum wait { NOT_READY, FULL, EMPTY };

/* Out of line: callgrind --toggle-collect=wait_* leaves the waits out */
static noinline bool wait_while(struct run *run, enum wait what)
{
	struct ptr_ring *r = &run->ring;

	while (!load(run->stop) &&
	       (what == NOT_READY ? !load(run->ready) :
		what == FULL ? ptr_ring_full(r) : __ptr_ring_empty(r)))
		cpu_relax();
	return !load(run->stop);
}

/* Producer p's k-th item is k << 8 | p; each producer's arrive in order */
static bool check(struct run *run, void **a, int n, unsigned long *next)
{
	unsigned long v;
	int i;

	for (i = 0; i < n; i++) {
		v = (unsigned long)a[i];
		if (unlikely(v != next[v & (MAX_PRODUCERS - 1)]))
			return fail(run,
				    "got %#lx, producer %lu expected %#lx\n",
				    v, v & (MAX_PRODUCERS - 1),
				    next[v & (MAX_PRODUCERS - 1)]);
		next[v & (MAX_PRODUCERS - 1)] += 1 << 8;
	}
	store(run->progress, run->progress + n);
	return true;
}

static void *producer(void *arg)
{
	struct producer *pr = arg;
	struct run *run = pr->run;
	unsigned long k = 1, count = cfg.count;
	int i, n, done;

	wait_while(run, NOT_READY);
	while (k <= count) {
		n = k + cfg.batch <= count ? cfg.batch : count - k + 1;
		for (i = 0; i < n; i++)
			pr->a[i] = (void *)((k + i) << 8 | pr->p);
		for (done = 0; done < n; done += i) {
			i = run->mode->produce(&run->ring, pr->a + done,
					       n - done);
			if (!i && !wait_while(run, FULL))
				return NULL;
		}
		k += n;
	}
	return NULL;
}

static void consumer(struct run *run, unsigned long total)
{
	unsigned long next[MAX_PRODUCERS];
	void **a = run->prod[0].a;
	int i, n;

	for (i = 0; i < MAX_PRODUCERS; i++)
		next[i] = 1 << 8 | i;
	while (run->progress < total) {
		n = run->mode->consume(&run->ring, a, cfg.batch);
		if (!check(run, a, n, next) || (!n && !wait_while(run, EMPTY)))
			return;
	}
}

/* One thread fills the ring, then empties it */
static void single(struct run *run)
{
	unsigned long k = 1, next[MAX_PRODUCERS] = { [1] = 1 << 8 | 1 };
	void *a[1];

	while (k <= cfg.count && !load(run->stop)) {
		for (a[0] = (void *)(k << 8 | 1);
		     k <= cfg.count && ring_produce(&run->ring, a, 1);
		     a[0] = (void *)(++k << 8 | 1))
			;
		while (ring_consume(&run->ring, a, 1))
			if (!check(run, a, 1, next))
				return;
	}
}

static void *consumer_thread(void *arg)
{
	struct run *run = arg;
	int nprod = run->mode->producers ?: cfg.producers;

	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	store(run->ready, 1);
	if (run->mode == modes)
		single(run);
	else
		consumer(run, cfg.count * nprod);
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

/* One repetition and its watchdog: false if it failed */
static bool run_once(struct run *run, int nprod)
{
	pthread_t t[MAX_PRODUCERS + 1];
	unsigned long seen;
	int n = 0, still = 0;
	struct timespec ts;

	if (ptr_ring_init(&run->ring, cfg.size, GFP_KERNEL))
		return fail(run, "ptr_ring_init: out of memory\n");
	if (cfg.param)
		run->ring.batch = cfg.param;
	run->ready = 0;
	run->stop = 0;
	run->failed = 0;
	run->progress = 0;
	if (!start(&t[n], cfg.cpu[0], consumer_thread, run))
		n++;
	while (n && n <= nprod &&
	       !start(&t[n], cfg.cpu[n], producer, &run->prod[n]))
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
					   run->mode->name);
	}
	ptr_ring_cleanup(&run->ring, NULL);
	return !run->failed;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run_mode(struct run *run, const struct mode *mode, long usable)
{
	int nprod = mode == modes ? 0 : mode->producers ?: cfg.producers;
	double ns[MAX_REPS + 1], med;
	long rep;

	run->mode = mode;
	if (nprod && nprod + 1 > usable) {
		ksft_test_result_code(KSFT_SKIP, mode->name,
				      "needs %d CPUs (%d producing, 1 consuming), %ld usable",
				      nprod + 1, nprod, usable);
		return;
	}
	for (rep = 0; rep <= cfg.reps && run_once(run, nprod); rep++)
		ns[rep] = ((run->t1.tv_sec - run->t0.tv_sec) * 1e9 +
			   run->t1.tv_nsec - run->t0.tv_nsec) /
			  (cfg.count * (nprod ?: 1));
	if (run->failed) {
		ksft_test_result_fail("%s\n", mode->name);
		return;
	}
	qsort(ns + 1, cfg.reps, sizeof(ns[0]), cmp);
	med = (ns[1 + cfg.reps / 2] + ns[1 + (cfg.reps - 1) / 2]) / 2;
	ksft_print_msg("%s (%s): ns_per_item min %.3f median %.3f max %.3f\n",
		       mode->name, mode->users, ns[1], med, ns[cfg.reps]);
	ksft_print_msg("%s: spread %.1f%% of the median over %ld reps\n",
		       mode->name, (ns[cfg.reps] - ns[1]) * 100 / med,
		       cfg.reps);
	ksft_test_result_pass("%s # perf=%.3fns\n", mode->name, med);
}

/* ringtest's option names; their values and ranges */
static const struct option opts[] = {
	{ "ring-size", 1, NULL, 's' }, { "run-cycles", 1, NULL, 'n' },
	{ "batch", 1, NULL, 'b' }, { "param", 1, NULL, 'B' },
	{ "reps", 1, NULL, 'r' }, { "producers", 1, NULL, 'P' },
	{ "host-affinity", 1, NULL, 'H' }, { "guest-affinity", 1, NULL, 'G' },
	{ "mode", 1, NULL, 'm' }, { "help", 0, NULL, 'h' }, { }
};

static const struct {
	long *val, min, max;
} nums[] = {
	/* an item is k << 8 | p: k must not wrap, on 32-bit either */
	{ &cfg.size, 1, MAX_SIZE }, { &cfg.count, 1, ULONG_MAX >> 9 },
	{ &cfg.batch, 1, MAX_SIZE }, { &cfg.param, 1, MAX_SIZE },
	{ &cfg.reps, 1, MAX_REPS }, { &cfg.producers, 1, MAX_PRODUCERS - 1 },
	{ &cfg.cpu[0], 0, CPU_SETSIZE - 1 },
	{ &cfg.cpu[1], 0, CPU_SETSIZE - 1 },
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

static void usage(void)
{
	unsigned int i;

	printf("Usage: %s [options]: time include/linux/ptr_ring.h (KTAP)\n"
	       "  -m, --mode LIST         comma-separated, or all (default):\n",
	       program_invocation_short_name);
	for (i = 0; i < NR_MODES; i++)
		printf("      %-19s %s\n", modes[i].name, modes[i].users);
	printf("  -s, --ring-size N       entries (default 1024, at most %ld)\n"
	       "  -n, --run-cycles N      items per producer and repetition (1000000)\n"
	       "  -b, --batch N           of the batched modes (default 16)\n"
	       "      --param N           r->batch, the consumer's zeroing batch\n"
	       "  -r, --reps N            timed repetitions after a warm-up (5)\n"
	       "  -P, --producers N       of mpsc (default 2)\n"
	       "      --host-affinity C   the consumer's CPU (default: the last)\n"
	       "      --guest-affinity C  the producer's (default: the one below)\n",
	       MAX_SIZE);
	exit(KSFT_PASS);
}

static void parse_modes(char *list)
{
	char *name;
	unsigned int i;

	for (cfg.modes = 0; (name = strsep(&list, ",")); ) {
		for (i = 0; i < NR_MODES && strcmp(name, modes[i].name); i++)
			;
		if (!*name)
			continue;
		if (!strcmp(name, "all"))
			cfg.modes = (1u << NR_MODES) - 1;
		else if (i < NR_MODES)
			cfg.modes |= 1u << i;
		else
			usage_error("unknown mode '%s'", name);
	}
}

static void parse_num(int i)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(optarg, &end, 10);
	if (*optarg < '0' || *optarg > '9' || *end || errno ||
	    v < nums[i].min || v > nums[i].max)
		usage_error("--%s: '%s' is not a number from %ld to %ld",
			    opts[i].name, optarg, nums[i].min, nums[i].max);
	*nums[i].val = v;
}

/* The CPUs: cfg.cpu[0] consumes, the others produce; how many are usable */
static long parse_args(int argc, char **argv)
{
	long cpu, n, *c = cfg.cpu;
	cpu_set_t set;
	int opt, i;

	while ((opt = getopt_long(argc, argv, "s:n:b:r:P:m:h", opts,
				  NULL)) != -1) {
		if (opt == 'h')
			usage();
		if (opt == 'm') {
			parse_modes(optarg);
			continue;
		}
		if (opt == '?')
			usage_error("bad option");
		for (i = 0; opts[i].val != opt; i++)
			;
		parse_num(i);
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
	long usable = parse_args(argc, argv);
	struct run *run = aligned_alloc(SMP_CACHE_BYTES, sizeof(*run));
	unsigned int i;

	for (i = 0; run && i <= MAX_PRODUCERS; i++) {
		run->prod[i].run = run;
		run->prod[i].p = i;
		run->prod[i].a = calloc(cfg.batch, sizeof(void *));
		if (!run->prod[i].a)
			run = NULL;
	}
	if (!run)
		ksft_exit_fail_msg("out of memory\n");
	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	ksft_print_msg("ring-size %ld run-cycles %ld batch %ld reps %ld\n",
		       cfg.size, cfg.count, cfg.batch, cfg.reps);
	ksft_print_msg("consumer CPU %ld, producer CPU %ld; rep 0 warms up\n",
		       cfg.cpu[0], cfg.cpu[1]);
	for (i = 0; i < NR_MODES; i++)
		if (cfg.modes & (1u << i))
			run_mode(run, &modes[i], usable);
	if (!ksft_get_pass_cnt() && !ksft_get_fail_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
