// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptr_ring_test - check and time include/linux/ptr_ring.h in userspace, built
 * with ringtest's shims.  One KTAP case per mode, after the ring's users:
 *   single          one thread fills the ring, then drains it
 *   spsc            ptr_ring_produce() / ptr_ring_consume() (tun)
 *   batch           __ptr_ring_produce() batches under producer_lock (XDP in
 *                   tun, veth) / ptr_ring_consume_batched() (vhost-net)
 *   lockless        ptr_ring_produce() / __ptr_ring_empty(), then
 *                   __ptr_ring_consume() with no lock (page_pool, veth)
 *   lockless_batch  batches / __ptr_ring_consume_batched() with no lock (cpumap)
 *   unconsume       ptr_ring_unconsume() of a batch that only partly fits
 *   resize          ptr_ring_resize(), ptr_ring_resize_multiple(_bh)()
 * Items point to cache lines the producer writes their sequence number to;
 * the consumer reads it back.  A lost, duplicated, reordered, stale or bad
 * item fails a case at once, a stalled ring after STALL_SEC s.  The timed
 * modes print ns per item and full/empty events per repetition, then their
 * min/median/max and "ok N <mode> # perf=<ns>ns".  No preempt count, BH or
 * IRQ disabling, and inlined locks: not comparable with in-kernel figures.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../kselftest.h"
#include "../../../virtio/ringtest/ptr_ring_shim.h"

#define MAX_RING_SIZE	(KMALLOC_MAX_SIZE / sizeof(void *))
#define MAX_COUNT	1000000000UL
#define MAX_REPS	1000UL
#define STALL_SEC	3

#ifndef ptr_ring_resize_multiple_bh	/* before v6.14 */
#define ptr_ring_resize_multiple_bh	ptr_ring_resize_multiple
#endif

enum mode { SINGLE, SPSC, BATCH, LOCKLESS, LOCKLESS_BATCH, UNCONSUME, RESIZE,
	    NR_MODES };

static const char * const mode_names[NR_MODES] = {
	"single", "spsc", "batch", "lockless", "lockless_batch", "unconsume",
	"resize",
};

static struct config {
	unsigned long size, count, batch, reps;
	int prod_cpu, cons_cpu;
	unsigned int modes;
} cfg = { 1024, 1000000, 32, 5, -1, -1, (1u << NR_MODES) - 1 };

/* What the ring carries: a cache line each, as an skb or a page would be */
struct item {
	unsigned long seq;
} ____cacheline_aligned_in_smp;

struct run {
	struct ptr_ring ring;
	enum mode mode;
	struct item *pool;
	unsigned long npool;
	void **array;
	/* Cleared for each repetition: handshake, the producer's results */
	int ready ____cacheline_aligned_in_smp;
	int stop, failed;
	struct timespec t_start;
	unsigned long full;
	/* The consumer's; the watchdog watches progress */
	unsigned long progress ____cacheline_aligned_in_smp;
	struct timespec t_end;
	unsigned long empty;
	char err[200];
};

#define load(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define store(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* Record the first error and stop the run */
static __printf(2, 3) void fail(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(run->err, sizeof(run->err), fmt, ap);
	va_end(ap);
	store(run->stop, 1);
}

static void bad_item(struct run *run, void *p, unsigned long next)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)run->pool;
	struct item *it = p;

	if (off >= run->npool * sizeof(*it) || off % sizeof(*it))
		fail(run, "item %lu: garbage pointer %p", next, p);
	else
		fail(run, "item %lu: got %lu: %s", next, it->seq,
		     it == &run->pool[next % run->npool] ? "stale data, read through its pointer" :
		     it->seq > next ? "items lost or reordered" : "item duplicated or reordered");
}

/* Check @p against sequence number @next, at pool index @idx */
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
	run->pool[idx].seq = seq;
	return &run->pool[idx];
}

static void *single_thread(void *arg)
{
	unsigned long seq = 0, pidx = 0, next = 0, cidx = 0;
	struct run *run = arg;
	void *p;

	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	while (next < cfg.count && !load(run->stop)) {	/* see watch() */
		while (seq < cfg.count &&
		       !ptr_ring_produce(&run->ring, make_item(run, seq, pidx))) {
			seq++;
			pidx = pidx + 1 == run->npool ? 0 : pidx + 1;
		}
		run->full += seq < cfg.count;
		while (next < seq && (p = ptr_ring_consume(&run->ring)))
			if (!check_item(run, p, &next, &cidx))
				return NULL;
		run->empty += next < seq;
		store(run->progress, next);
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_end);
	return NULL;
}

/* ptr_ring_produce() is __ptr_ring_produce() under producer_lock: batch 1 */
static void *producer_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	unsigned long seq = 0, idx = 0, end, n = cfg.count;
	unsigned long batch = run->mode == BATCH || run->mode == LOCKLESS_BATCH ?
			      cfg.batch : 1;

	while (!load(run->ready))
		cpu_relax();
	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	while (seq < n) {
		end = seq + batch < n ? seq + batch : n;
		spin_lock(&r->producer_lock);
		for (; seq < end; seq++, idx = idx + 1 == run->npool ? 0 : idx + 1)
			if (__ptr_ring_produce(r, make_item(run, seq, idx)))
				break;
		spin_unlock(&r->producer_lock);
		if (seq == end)
			continue;
		run->full++;
		while (ptr_ring_full(r) && !load(run->stop))
			cpu_relax();
	}
	return NULL;
}

/* Take what the mode's consumer takes into run->array: how many */
static inline int take(struct run *run, void **a, int max)
{
	struct ptr_ring *r = &run->ring;
	int n = 0;

	switch (run->mode) {
	case SPSC:
		return !!(a[0] = ptr_ring_consume(r));
	case BATCH:
		return ptr_ring_consume_batched(r, a, max);
	case LOCKLESS:
		if (__ptr_ring_empty(r))
			return 0;
		while (n < max && (a[n] = __ptr_ring_consume(r)))
			n++;
		return n;
	default:
		return __ptr_ring_empty(r) ? 0 : __ptr_ring_consume_batched(r, a, max);
	}
}

static void *consumer_thread(void *arg)
{
	unsigned long next = 0, idx = 0, mark = 0;
	struct run *run = arg;
	int i, got, max = run->mode == SPSC ? 1 : cfg.batch;

	store(run->ready, 1);
	while (next < cfg.count) {
		got = take(run, run->array, max);
		for (i = 0; i < got; i++)
			if (!check_item(run, run->array[i], &next, &idx))
				return NULL;
		if (next >= mark || !got) {
			store(run->progress, next);
			mark = next + 1024;
		}
		if (got)
			continue;
		run->empty++;
		do {
			if (load(run->stop))
				return NULL;
			cpu_relax();
		} while (run->mode >= LOCKLESS ? __ptr_ring_empty(&run->ring) :
			 ptr_ring_empty(&run->ring));
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_end);
	return NULL;
}

/* Join @t; fail the run if the consumer makes no progress for STALL_SEC */
static void watch(struct run *run, pthread_t t)
{
	unsigned long seen = 0, now;
	struct ptr_ring *r = &run->ring;
	struct timespec ts;
	int still = 0;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		if (!pthread_timedjoin_np(t, NULL, &ts))
			return;
		now = load(run->progress);
		still = now == seen ? still + 1 : 0;
		seen = now;
		if (still == STALL_SEC)
			fail(run, "stalled %ds at item %lu: producer %d%s head %d%s tail %d",
			     STALL_SEC, now, r->producer, r->queue[r->producer] ? " (set)" : "",
			     r->consumer_head, r->queue[r->consumer_head] ? " (set)" : "",
			     r->consumer_tail);
		if (still == STALL_SEC + 2)
			ksft_exit_fail_msg("%s: %s; a thread did not stop, giving up\n",
					   mode_names[run->mode], run->err);
	}
}

/* The deterministic cases, with known sequence numbers */
static bool fill(struct run *run, unsigned long from, unsigned long n)
{
	for (; n && !run->failed; n--, from++)
		if (ptr_ring_produce(&run->ring, make_item(run, from, from % run->npool)))
			fail(run, "item %lu: ring full", from);
	return !run->failed;
}

static bool drain(struct run *run, unsigned long from, unsigned long n)
{
	unsigned long idx = from % run->npool;
	void *p;

	for (; n && !run->failed; n--) {
		p = ptr_ring_consume(&run->ring);
		if (!p)
			fail(run, "item %lu: ring empty", from);
		else
			check_item(run, p, &from, &idx);
	}
	return !run->failed;
}

static unsigned long destroyed;

static void destroy(void *p)
{
	destroyed++;
}

/* @n entries destroyed, and the run still good */
static bool destroyed_ok(struct run *run, const char *what, unsigned long n)
{
	if (destroyed != n)
		fail(run, "%s: %lu entries destroyed, expected %lu", what, destroyed, n);
	destroyed = 0;
	return !run->failed;
}

/*
 * Fill the ring, take a batch, give it back; take it again, let the
 * producer reuse what was freed, give the batch back: the oldest entries
 * no longer fit and are destroyed, the others come out first again.
 */
static bool unconsume_case(struct run *run)
{
	struct ptr_ring *r = &run->ring;
	unsigned long n = cfg.size, b = r->batch + r->batch / 2 + 1, m = 0;

	b = b < n ? b : n;		/* some zeroed, some not yet */
	if (!fill(run, 0, n) || ptr_ring_consume_batched(r, run->array, b) != b)
		return fail(run, "could not fill and take %lu", b), false;
	ptr_ring_unconsume(r, run->array, b, destroy);
	if (!destroyed_ok(run, "into free space", 0) ||
	    ptr_ring_consume_batched(r, run->array, b) != b)
		return fail(run, "could not take %lu again", b), false;
	while (m < b / 2 && !ptr_ring_produce(r, make_item(run, n + m, n + m)))
		m++;
	ksft_print_msg("unconsume: %lu entries back into a ring of %lu, %lu reused, batch %d\n",
		       b, n, m, r->batch);
	ptr_ring_unconsume(r, run->array, b, destroy);
	return destroyed_ok(run, "after reuse", m) && drain(run, m, n) &&
	       ptr_ring_empty(r);
}

/*
 * Shrink a full ring that has wrapped: the newest entries that do not fit
 * are destroyed, oldest first; grow it and fill it; shrink it again with
 * ptr_ring_resize_multiple(_bh)().
 */
static bool resize_case(struct run *run)
{
	struct ptr_ring *r = &run->ring, *rings[] = { r };
	unsigned long n = cfg.size, c = n / 4, s = (n + 1) / 2, next = n + c;

	if (!fill(run, 0, n) || !drain(run, 0, c) || !fill(run, n, c))
		return false;
	if (ptr_ring_resize(r, s, GFP_KERNEL, destroy) ||
	    !destroyed_ok(run, "shrink", n - s) ||
	    !ptr_ring_full(r))
		return fail(run, "shrinking to %lu", s), false;
	if (ptr_ring_resize(r, 2 * n, GFP_KERNEL, destroy) ||
	    !destroyed_ok(run, "grow", 0) ||
	    !fill(run, next, 2 * n - s))
		return fail(run, "growing to %lu", 2 * n), false;
	if (ptr_ring_resize_multiple_bh(rings, 1, n, GFP_KERNEL, destroy))
		return fail(run, "ptr_ring_resize_multiple: out of memory"), false;
	ksft_print_msg("resize: %lu -> %lu -> %lu -> %lu entries\n", n, s, 2 * n, n);
	return destroyed_ok(run, "resize_multiple", n) && drain(run, c, s) &&
	       drain(run, next, n - s) && ptr_ring_empty(r);
}

static void *case_thread(void *arg)
{
	struct run *run = arg;

	if (!(run->mode == UNCONSUME ? unconsume_case(run) : resize_case(run)))
		fail(run, "ring not empty at the end");
	return NULL;
}

/* One run of a mode, in threads the watchdog watches: false if it failed */
static bool run_once(struct run *run)
{
	bool one = run->mode == SINGLE || run->mode >= UNCONSUME;
	void *(*fn[2])(void *) = { consumer_thread, producer_thread };
	int i, ret = 0, cpu[2] = { one ? cfg.prod_cpu : cfg.cons_cpu, cfg.prod_cpu };
	pthread_attr_t attr;
	pthread_t t[2];
	cpu_set_t set;

	if (one)
		fn[0] = run->mode == SINGLE ? single_thread : case_thread;
	if (ptr_ring_init(&run->ring, cfg.size, GFP_KERNEL))
		return fail(run, "ptr_ring_init: out of memory"), false;
	memset(&run->ready, 0, sizeof(*run) - offsetof(struct run, ready));
	for (i = 0; i < 2 - one && !ret; i++) {
		CPU_ZERO(&set);
		CPU_SET(cpu[i], &set);
		pthread_attr_init(&attr);
		ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ?:
		      pthread_create(&t[i], &attr, fn[i], run);
		pthread_attr_destroy(&attr);
	}
	if (ret) {
		fail(run, "pthread_create: %s", strerror(ret));
		i--;
	}
	while (i--)
		watch(run, t[i]);
	ptr_ring_cleanup(&run->ring, NULL);
	return !run->failed;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Warm-up, then cfg.reps timed runs: the median ns per item, or -1 */
static double run_timed(struct run *run, const char *name)
{
	unsigned long rep, full = 0, empty = 0, reps = cfg.reps;
	double ns[MAX_REPS + 1], med;

	for (rep = 0; rep <= reps; rep++) {
		if (!run_once(run))
			return -1;
		ns[rep] = ((run->t_end.tv_sec - run->t_start.tv_sec) * 1e9 +
			   run->t_end.tv_nsec - run->t_start.tv_nsec) / cfg.count;
		ksft_print_msg("%s: %s %lu ns_per_item %.3f full %lu empty %lu\n",
			       name, rep ? "rep" : "warm-up", rep, ns[rep],
			       run->full, run->empty);
		full += rep ? run->full : 0;
		empty += rep ? run->empty : 0;
	}
	qsort(ns + 1, reps, sizeof(ns[0]), cmp_double);
	med = (ns[1 + reps / 2] + ns[1 + (reps - 1) / 2]) / 2;
	ksft_print_msg("%s: ns_per_item min %.3f median %.3f max %.3f reps %lu",
		       name, ns[1], med, ns[reps], reps);
	printf(" full %lu empty %lu\n", full, empty);
	return med;
}

static void run_mode(struct run *run, enum mode mode)
{
	const char *name = mode_names[mode];
	double ns = 0;

	if (mode != SINGLE && mode < UNCONSUME && cfg.prod_cpu == cfg.cons_cpu) {
		ksft_test_result_skip("%s: needs two CPUs, only one is usable\n", name);
		return;
	}
	run->mode = mode;
	if (mode < UNCONSUME)
		ns = run_timed(run, name);
	else
		run_once(run);
	if (run->failed) {
		ksft_print_msg("%s: FAIL: %s\n", name, run->err);
		ksft_test_result_fail("%s\n", name);
	} else if (mode < UNCONSUME) {
		ksft_test_result_pass("%s # perf=%.3fns\n", name, ns);
	} else {
		ksft_test_result_pass("%s\n", name);
	}
}

/* How two CPUs relate, from sysfs (in a VM: as the hypervisor says) */
static const char *relation(int a, int b)
{
	static const char * const what[] = { "physical_package_id", "core_id" };
	long v[4] = { -1, -1, -1, -1 };
	char path[96];
	FILE *f;
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s",
			 i & 1 ? b : a, what[i / 2]);
		f = fopen(path, "r");
		if (f && fscanf(f, "%ld", &v[i]) != 1)
			v[i] = -1;
		if (f)
			fclose(f);
	}
	if (v[0] < 0 || v[1] < 0)
		return "topology unknown";
	if (v[0] != v[1])
		return "different packages";
	return v[2] == v[3] ? "same core (SMT siblings)" : "same package, different cores";
}

static const char *prog = "ptr_ring_test";

#define bad_option(fmt, ...) do {					\
	fprintf(stderr, "%s: " fmt "\nTry '%s --help'.\n", prog,	\
		##__VA_ARGS__, prog);					\
	exit(KSFT_FAIL);						\
} while (0)

static unsigned long num(const char *opt, const char *arg, unsigned long min,
			 unsigned long max)
{
	unsigned long long val;
	char *end;

	errno = 0;
	val = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end)
		bad_option("%s: '%s' is not a decimal number", opt, arg);
	if (errno || val < min || val > max)
		bad_option("%s: %s is out of range (%lu to %lu)", opt, arg, min, max);
	return val;
}

static unsigned int parse_modes(char *arg)
{
	unsigned int modes = 0;
	char *tok, *save;
	int i;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_MODES && strcmp(tok, mode_names[i]); i++)
			;
		if (i == NR_MODES && strcmp(tok, "all"))
			bad_option("--mode: unknown mode '%s' (see --help)", tok);
		modes |= i == NR_MODES ? (1u << NR_MODES) - 1 : 1u << i;
	}
	if (!modes)
		bad_option("--mode: names no mode");
	return modes;
}

static const char usage[] =
"Usage: %s [options]: check and time include/linux/ptr_ring.h (KTAP)\n"
"  -m, --mode LIST         comma-separated modes or 'all' (default): single\n"
"                          spsc batch lockless lockless_batch unconsume resize\n"
"  -s, --size N            ring size in entries (default 1024, max %lu)\n"
"  -n, --count N           items per repetition (default 1000000)\n"
"  -b, --batch N           batch size (default 32, at most the ring size)\n"
"  -r, --reps N            timed repetitions after a warm-up (default 5)\n"
"  -p, --producer-cpu CPU  the producer's and single's CPU (default: the\n"
"                          next-to-last CPU this task may use)\n"
"  -c, --consumer-cpu CPU  the consumer's CPU (default: the last one)\n"
"Exit status: 0 pass, 1 failure or bad option, 4 everything skipped.\n";

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", 1, NULL, 'm' }, { "size", 1, NULL, 's' },
		{ "count", 1, NULL, 'n' }, { "batch", 1, NULL, 'b' },
		{ "reps", 1, NULL, 'r' }, { "producer-cpu", 1, NULL, 'p' },
		{ "consumer-cpu", 1, NULL, 'c' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool batch_set = false;
	const char *name;
	int opt, *cpu;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		bad_option("sched_getaffinity: %s", strerror(errno));
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:s:n:b:r:p:c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			cfg.modes = parse_modes(optarg);
			break;
		case 's':
			cfg.size = num("--size", optarg, 1, MAX_RING_SIZE);
			break;
		case 'n':
			cfg.count = num("--count", optarg, 1, MAX_COUNT);
			break;
		case 'b':
			cfg.batch = num("--batch", optarg, 1, MAX_RING_SIZE);
			batch_set = true;
			break;
		case 'r':
			cfg.reps = num("--reps", optarg, 1, MAX_REPS);
			break;
		case 'p':
		case 'c':
			name = opt == 'p' ? "--producer-cpu" : "--consumer-cpu";
			cpu = opt == 'p' ? &cfg.prod_cpu : &cfg.cons_cpu;
			*cpu = num(name, optarg, 0, CPU_SETSIZE - 1);
			if (!CPU_ISSET(*cpu, &set))
				bad_option("%s: CPU %d is not online or not allowed",
					   name, *cpu);
			break;
		case 'h':
			printf(usage, prog, MAX_RING_SIZE);
			exit(KSFT_PASS);
		case ':':
			bad_option("option '%s' needs a value", argv[optind - 1]);
		default:
			bad_option("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_option("unexpected argument '%s'", argv[optind]);
	if (cfg.batch > cfg.size && batch_set)
		bad_option("--batch: %lu is larger than the ring size %lu",
			   cfg.batch, cfg.size);
	cfg.batch = cfg.batch < cfg.size ? cfg.batch : cfg.size;
	if (cfg.prod_cpu >= 0 && cfg.prod_cpu == cfg.cons_cpu)
		bad_option("--producer-cpu and --consumer-cpu must differ (both %d)",
			   cfg.prod_cpu);
	/* The last CPUs we may use, away from CPU0's interrupts if we can */
	for (opt = CPU_SETSIZE - 1; opt >= 0; opt--) {
		if (!CPU_ISSET(opt, &set) || opt == cfg.prod_cpu || opt == cfg.cons_cpu)
			continue;
		if (cfg.cons_cpu < 0)
			cfg.cons_cpu = opt;
		else if (cfg.prod_cpu < 0)
			cfg.prod_cpu = opt;
	}
	if (cfg.prod_cpu < 0)		/* one CPU: no two-thread modes */
		cfg.prod_cpu = cfg.cons_cpu;
	if (cfg.cons_cpu < 0)
		cfg.cons_cpu = cfg.prod_cpu;
}

static struct run the_run;

int main(int argc, char **argv)
{
	int mode;

	if (argc > 0 && argv[0])
		prog = argv[0];
	parse_args(argc, argv);

	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	/* Items are reused after 4 ring sizes (more than the ring and a batch
	 * hold), but not under ThreadSanitizer: it cannot see that zeroing a
	 * slot orders the consumer's reads before the reuse (data_race()).
	 */
	the_run.npool = 4 * cfg.size;
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
	the_run.npool = the_run.npool > cfg.count ? the_run.npool : cfg.count;
#endif
	the_run.pool = aligned_alloc(SMP_CACHE_BYTES, the_run.npool * sizeof(*the_run.pool));
	the_run.array = calloc(cfg.size, sizeof(void *));
	if (!the_run.pool || !the_run.array || ptr_ring_init(&the_run.ring, cfg.size, GFP_KERNEL))
		ksft_exit_fail_msg("out of memory\n");
	ksft_print_msg("size %lu (r->batch %d) count %lu batch %lu reps %lu\n",
		       cfg.size, the_run.ring.batch, cfg.count, cfg.batch, cfg.reps);
	ptr_ring_cleanup(&the_run.ring, NULL);
	if (cfg.prod_cpu != cfg.cons_cpu)
		ksft_print_msg("producer CPU %d, consumer CPU %d: %s\n", cfg.prod_cpu,
			       cfg.cons_cpu, relation(cfg.prod_cpu, cfg.cons_cpu));
	for (mode = 0; mode < NR_MODES; mode++)
		if (cfg.modes & (1u << mode))
			run_mode(&the_run, mode);

	if (ksft_get_fail_cnt())
		ksft_exit_fail();
	if (!ksft_get_pass_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
