// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Check and time include/linux/ptr_ring.h in userspace with ringtest's shims,
 * as its users produce and consume (usage[]).  Items are cache lines the
 * producer writes the item's number to and the consumer reads back: a lost,
 * duplicated, reordered, stale or bad item fails a case at once, a stuck
 * ring after STALL_SEC s.  With no preempt count, BH or IRQ disabling, the
 * figures are not comparable with in-kernel ones.
 */
#include <getopt.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "../kselftest.h"
#include "../../../virtio/ringtest/ptr_ring_shim.h"

#define MAX_RING_SIZE	((long)(KMALLOC_MAX_SIZE / sizeof(void *)))
#define MAX_REPS	1000
#define STALL_SEC	3

#ifndef ptr_ring_resize_multiple_bh	/* before v6.14 */
#define ptr_ring_resize_multiple_bh	ptr_ring_resize_multiple
#endif

static const char usage[] =
"Usage: %s [options]: check and time include/linux/ptr_ring.h (KTAP)\n"
"  -m, --mode LIST         comma-separated, or 'all' (the default): single,\n"
"                          spsc (tun), batch (XDP, vhost-net), lockless\n"
"                          (page_pool, veth), lockless_batch (cpumap),\n"
"                          unconsume, resize\n"
"  -s, --size N            ring size in entries (default 1024, max %ld)\n"
"  -n, --count N           items per repetition (default 1000000)\n"
"  -b, --batch N           batch size (default 32, at most the ring size)\n"
"  -r, --reps N            timed repetitions after a warm-up (default 5)\n"
"  -p, --producer-cpu CPU  the producer's (default: the next-to-last allowed)\n"
"  -c, --consumer-cpu CPU  the consumer's and one-thread modes' (default: last)\n"
"Exit status: 0 pass, 1 failure or bad option, 4 everything skipped.\n";

/* single, the timed two-thread modes, the exact cases */
enum mode { SINGLE, SPSC, BATCH, LOCKLESS, LOCKLESS_BATCH, UNCONSUME, RESIZE,
	    NR_MODES };
static const bool two_threads[NR_MODES] = { [SPSC ... LOCKLESS_BATCH] = true };
static char * const mode_names[] = {	/* for getsubopt() */
	"single", "spsc", "batch", "lockless", "lockless_batch", "unconsume",
	"resize", "all", NULL
};

/* cpu[0] produces; cpu[1] consumes, or runs the one-thread modes */
static struct config {
	long size, count, batch, reps, cpu[2];
	unsigned int modes;
} cfg = { 1024, 1000000, 0, 5, { -1, -1 }, (1u << NR_MODES) - 1 };

/* The numeric options, as the first entries of opts[] */
static const struct {
	long *val, min, max;
} nums[] = {
	{ &cfg.size, 1, MAX_RING_SIZE }, { &cfg.count, 1, 1000000000 },
	{ &cfg.batch, 1, MAX_RING_SIZE }, { &cfg.reps, 1, MAX_REPS },
	{ &cfg.cpu[0], 0, CPU_SETSIZE - 1 }, { &cfg.cpu[1], 0, CPU_SETSIZE - 1 },
};

static const struct option opts[] = {
	{ "size", 1, NULL, 's' }, { "count", 1, NULL, 'n' },
	{ "batch", 1, NULL, 'b' }, { "reps", 1, NULL, 'r' },
	{ "producer-cpu", 1, NULL, 'p' }, { "consumer-cpu", 1, NULL, 'c' },
	{ "mode", 1, NULL, 'm' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
};

/* What the ring carries: a cache line each, as an skb or a page would be */
struct item {
	unsigned long seq;
} ____cacheline_aligned_in_smp;

struct run {
	struct ptr_ring ring;
	enum mode mode;
	struct item *pool;	/* item seq is pool[seq & mask] */
	unsigned long mask;
	void **array;
	/* Cleared for each repetition: handshake, the producer's results */
	int ready ____cacheline_aligned_in_smp;
	int stop, failed;
	unsigned long full;
	/* The consumer's; the watchdog watches progress */
	unsigned long progress ____cacheline_aligned_in_smp;
	struct timespec t_start, t_end;
	unsigned long empty;
};

/* Print the first error and stop the run */
static __printf(2, 3) void fail(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	printf("# %s: FAIL: ", mode_names[run->mode]);
	vprintf(fmt, ap);
	va_end(ap);
	WRITE_ONCE(run->stop, 1);
}

/* @cond holds, or the run fails naming it */
#define expect(run, cond)	((cond) || (fail(run, "expected %s\n", #cond), false))

/* Produce items @seq to @end - 1, @batch per producer_lock: the next seq */
static inline long produce(struct run *run, long seq, long end, long batch)
{
	struct ptr_ring *r = &run->ring;
	long stop = seq;
	struct item *it;

	while (seq == stop && seq < end) {	/* batch 1: ptr_ring_produce() */
		stop = seq + batch < end ? seq + batch : end;
		spin_lock(&r->producer_lock);
		for (; seq < stop; seq++) {
			it = &run->pool[seq & run->mask];
			it->seq = seq;
			if (__ptr_ring_produce(r, it))
				break;
		}
		spin_unlock(&r->producer_lock);
	}
	return seq;
}

/* Consume up to @max items as the mode's consumer does, check them: how many */
static inline int consume(struct run *run, long next, int max)
{
	struct ptr_ring *r = &run->ring;
	void **a = run->array;
	int i, n = 0;

	if (run->mode == BATCH)
		n = ptr_ring_consume_batched(r, a, max);
	else if (run->mode == LOCKLESS_BATCH)
		n = __ptr_ring_empty(r) ? 0 : __ptr_ring_consume_batched(r, a, max);
	else if (run->mode != LOCKLESS)
		n = !!(a[0] = ptr_ring_consume(r));
	else if (!__ptr_ring_empty(r))
		while (n < max && (a[n] = __ptr_ring_consume(r)))
			n++;
	for (i = 0; i < n; i++, next++) {
		struct item *it = a[i], *want = &run->pool[next & run->mask];

		if (unlikely(it != want || it->seq != next))	/* it is read if good */
			return fail(run, "item %ld: %p, expected %p: %s\n", next, it, want,
				    it == want ? "stale data" : "lost, repeated or bad"), 0;
	}
	return n;
}

static void *producer_thread(void *arg)
{
	struct run *run = arg;
	long seq = 0, batch = run->mode == BATCH || run->mode == LOCKLESS_BATCH ?
			      cfg.batch : 1;

	while (!READ_ONCE(run->ready) && !READ_ONCE(run->stop))
		cpu_relax();
	while (!READ_ONCE(run->stop) &&
	       (seq = produce(run, seq, cfg.count, batch)) < cfg.count) {
		run->full++;
		while (ptr_ring_full(&run->ring) && !READ_ONCE(run->stop))
			cpu_relax();
	}
	return NULL;
}

/* The consumer, or single: fill the ring whenever it is empty */
static void *consumer_thread(void *arg)
{
	struct run *run = arg;
	long next = 0, seq = 0;
	int got, max = run->mode <= SPSC ? 1 : cfg.batch;

	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	WRITE_ONCE(run->ready, 1);
	while (next < cfg.count && !READ_ONCE(run->stop)) {
		got = consume(run, next, max);
		next += got;
		WRITE_ONCE(run->progress, next);
		if (got)
			continue;
		run->empty++;
		if (run->mode == SINGLE) {	/* fill it again */
			seq = produce(run, seq, cfg.count, 1);
			run->full += seq < cfg.count;
		}
		while (run->mode != SINGLE && !READ_ONCE(run->stop) &&
		       (run->mode >= LOCKLESS ? __ptr_ring_empty(&run->ring) :
			ptr_ring_empty(&run->ring)))
			cpu_relax();
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_end);
	return NULL;
}

/* The exact cases: @n items from @from in, or out, or the run fails */
static bool fill(struct run *run, long from, long n)
{
	return expect(run, produce(run, from, from + n, 1) == from + n);
}

static bool drain(struct run *run, long from, long n)
{
	for (; n && !run->failed; n--, from++)
		if (!consume(run, from, 1))
			fail(run, "item %ld: ring empty\n", from);
	return !run->failed;
}

static long destroyed;	/* in this case so far */

static void destroy(void *p)
{
	destroyed++;
}

/*
 * unconsume: fill the ring, take a batch (some of it zeroed, some not yet),
 * let the producer reuse what was zeroed, give the batch back: the oldest
 * entries no longer fit and are destroyed, the others come out first again.
 * resize: shrink a full, wrapped ring (the newest entries that do not fit are
 * destroyed), grow it, fill it, shrink it with ptr_ring_resize_multiple().
 */
static void *case_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring, *rings[] = { r };
	long n = cfg.size, c = n / 4, s = (n + 1) / 2, next = n + c, m = 0;
	long b = r->batch + r->batch / 2 + 1 < n ? r->batch + r->batch / 2 + 1 : n;
	bool ok;

	destroyed = 0;
	if (run->mode == UNCONSUME) {
		ok = fill(run, 0, n) &&
		     expect(run, ptr_ring_consume_batched(r, run->array, b) == b);
		if (ok) {
			m = produce(run, n, n + b / 2, 1) - n;
			ksft_print_msg("unconsume: %ld entries back, %ld reused, r->batch %d\n",
				       b, m, r->batch);
			ptr_ring_unconsume(r, run->array, b, destroy);
		}
		ok = ok && expect(run, destroyed == m) && drain(run, m, n);
	} else {
		ok = fill(run, 0, n) && drain(run, 0, c) && fill(run, n, c) &&
		     expect(run, !ptr_ring_resize(r, s, GFP_KERNEL, destroy)) &&
		     expect(run, destroyed == n - s) && expect(run, ptr_ring_full(r)) &&
		     expect(run, !ptr_ring_resize(r, 2 * n, GFP_KERNEL, destroy)) &&
		     expect(run, destroyed == n - s) && fill(run, next, 2 * n - s) &&
		     expect(run, !ptr_ring_resize_multiple_bh(rings, 1, n, GFP_KERNEL, destroy)) &&
		     expect(run, destroyed == 2 * n - s) && drain(run, c, s) &&
		     drain(run, next, n - s);
	}
	if (ok && !ptr_ring_empty(r))
		fail(run, "ring not empty at the end\n");
	return NULL;
}

/* One run of a mode, in threads the watchdog watches: false if it failed */
static bool run_once(struct run *run)
{
	void *(*fn[2])(void *) = { producer_thread,
				   run->mode < UNCONSUME ? consumer_thread : case_thread };
	int i, first = !two_threads[run->mode], ret = 0, still = 0;
	struct ptr_ring *r = &run->ring;
	unsigned long seen;
	pthread_attr_t attr;
	struct timespec ts;
	pthread_t t[2];
	cpu_set_t set;

	if (ptr_ring_init(r, cfg.size, GFP_KERNEL))
		return fail(run, "ptr_ring_init: out of memory\n"), false;
	memset(&run->ready, 0, sizeof(*run) - offsetof(struct run, ready));
	for (i = first; i < 2 && !ret; i++) {
		CPU_ZERO(&set);
		CPU_SET(cfg.cpu[i], &set);
		pthread_attr_init(&attr);
		ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ?:
		      pthread_create(&t[i], &attr, fn[i], run);
		pthread_attr_destroy(&attr);
	}
	if (ret) {
		fail(run, "pthread_create: %s\n", strerror(ret));
		i--;
	}
	/*
	 * Join them.  No progress for STALL_SEC s fails the run if the ring is
	 * stuck (full to the producer, empty to the consumer), for 10 times as
	 * long in any case: a busy machine may not run a thread for seconds.
	 */
	while (i > first) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		seen = READ_ONCE(run->progress);
		if (!pthread_timedjoin_np(t[i - 1], NULL, &ts))
			i--;
		else if (READ_ONCE(run->progress) != seen)
			still = 0;
		else if (++still > STALL_SEC && run->failed)
			ksft_exit_fail_msg("%s: a thread did not stop\n", mode_names[run->mode]);
		else if (still == 10 * STALL_SEC || (still == STALL_SEC && /* racy: it is still */
			 data_race(r->queue[r->producer] && !r->queue[r->consumer_head])))
			fail(run, "stalled at item %lu: producer %d head %d tail %d\n", seen,
			     r->producer, r->consumer_head, r->consumer_tail);
	}
	ptr_ring_cleanup(r, NULL);
	return !run->failed;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A case; the timed modes: a warm-up, then cfg.reps timed repetitions */
static void run_mode(struct run *run, enum mode mode)
{
	long rep, reps = mode < UNCONSUME ? cfg.reps : 0;
	const char *name = mode_names[mode];
	double ns[MAX_REPS + 1];

	if (two_threads[mode] && cfg.cpu[0] == cfg.cpu[1]) {
		ksft_test_result_skip("%s: needs two CPUs, only one is usable\n", name);
		return;
	}
	run->mode = mode;
	for (rep = 0; rep <= reps && run_once(run) && mode < UNCONSUME; rep++) {
		ns[rep] = ((run->t_end.tv_sec - run->t_start.tv_sec) * 1e9 +
			   run->t_end.tv_nsec - run->t_start.tv_nsec) / cfg.count;
		ksft_print_msg("%s: %s %ld ns_per_item %.3f full %lu empty %lu\n", name,
			       rep ? "rep" : "warm-up", rep, ns[rep], run->full, run->empty);
	}
	if (run->failed) {
		ksft_test_result_fail("%s\n", name);
	} else if (mode >= UNCONSUME) {
		ksft_test_result_pass("%s\n", name);
	} else {
		qsort(ns + 1, reps, sizeof(ns[0]), cmp_double);
		ns[0] = (ns[1 + reps / 2] + ns[1 + (reps - 1) / 2]) / 2;
		ksft_print_msg("%s: ns_per_item min %.3f median %.3f max %.3f reps %ld\n",
			       name, ns[1], ns[0], ns[reps], reps);
		ksft_test_result_pass("%s # perf=%.3fns\n", name, ns[0]);
	}
}

/* A CPU's topology ID from sysfs (in a VM: as the hypervisor says), or -1 */
static long topology_id(long cpu, const char *what)
{
	char path[96];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/%s", cpu, what);
	f = fopen(path, "r");
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

#define bad_option(fmt, ...) do {					\
	fprintf(stderr, "%s: " fmt "\nTry '%s --help'.\n",		\
		program_invocation_name, ##__VA_ARGS__,			\
		program_invocation_name);				\
	exit(KSFT_FAIL);						\
} while (0)

static void parse_args(int argc, char **argv)
{
	static const char numeric[] = "snbrpc";		/* as in opts[] */
	char *o, *end;
	long long val;
	cpu_set_t set;
	int opt, i;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":s:n:b:r:p:c:m:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			for (cfg.modes = 0; *optarg; ) {
				i = getsubopt(&optarg, mode_names, &o);
				if (i < 0)
					bad_option("--mode: unknown mode '%s' (see --help)", o);
				cfg.modes |= i == NR_MODES ? (1u << NR_MODES) - 1 : 1u << i;
			}
			if (!cfg.modes)
				bad_option("--mode: names no mode");
			break;
		case 'h':
			printf(usage, program_invocation_name, MAX_RING_SIZE);
			exit(KSFT_PASS);
		case ':':
			bad_option("option '%s' needs a value", argv[optind - 1]);
		default:
			o = strchr(numeric, opt);
			if (!o)
				bad_option("unknown option '%s'", argv[optind - 1]);
			i = o - numeric;
			errno = 0;
			val = strtoll(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end)
				bad_option("--%s: '%s' is not a decimal number",
					   opts[i].name, optarg);
			if (errno || val < nums[i].min || val > nums[i].max)
				bad_option("--%s: %s is out of range (%ld to %ld)", opts[i].name,
					   optarg, nums[i].min, nums[i].max);
			*nums[i].val = val;
		}
	}
	if (optind < argc)
		bad_option("unexpected argument '%s'", argv[optind]);
	if (sched_getaffinity(0, sizeof(set), &set))
		bad_option("sched_getaffinity: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		if (cfg.cpu[i] >= 0 && !CPU_ISSET(cfg.cpu[i], &set))
			bad_option("--%s: CPU %ld is not online or not allowed",
				   opts[4 + i].name, cfg.cpu[i]);
	if (cfg.batch > cfg.size)
		bad_option("--batch: %ld is larger than the ring size %ld", cfg.batch, cfg.size);
	if (!cfg.batch)
		cfg.batch = cfg.size < 32 ? cfg.size : 32;
	if (cfg.cpu[0] >= 0 && cfg.cpu[0] == cfg.cpu[1])
		bad_option("--producer-cpu and --consumer-cpu must differ (both %ld)", cfg.cpu[0]);
	/* The last CPUs we may use, away from CPU0's interrupts if we can */
	for (opt = CPU_SETSIZE - 1; opt >= 0; opt--) {
		i = cfg.cpu[1] < 0;
		if (cfg.cpu[i] < 0 && CPU_ISSET(opt, &set) && opt != cfg.cpu[!i])
			cfg.cpu[i] = opt;
	}
	for (i = 0; i < 2; i++)		/* one CPU: no two-thread modes */
		cfg.cpu[i] = cfg.cpu[i] < 0 ? cfg.cpu[!i] : cfg.cpu[i];
}

int main(int argc, char **argv)
{
	static struct run the_run;
	struct run *run = &the_run;
	long id[4];
	int i;

	parse_args(argc, argv);
	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	/* Items are reused after 4 ring sizes (more than the ring and a batch
	 * hold), but not under ThreadSanitizer: it cannot see that zeroing a
	 * slot orders the consumer's reads before the reuse (data_race()).
	 */
	while (run->mask < 4 * cfg.size - 1)
		run->mask = 2 * run->mask + 1;
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
	while (run->mask < cfg.count - 1)
		run->mask = 2 * run->mask + 1;
#endif
	run->pool = aligned_alloc(SMP_CACHE_BYTES, (run->mask + 1) * sizeof(*run->pool));
	run->array = calloc(cfg.size, sizeof(void *));
	if (!run->pool || !run->array)
		ksft_exit_fail_msg("out of memory\n");
	ksft_print_msg("size %ld count %ld batch %ld reps %ld\n",
		       cfg.size, cfg.count, cfg.batch, cfg.reps);
	for (i = 0; i < 4; i++)		/* the CPUs' packages, then their cores */
		id[i] = topology_id(cfg.cpu[i & 1], i < 2 ? "physical_package_id" : "core_id");
	if (cfg.cpu[0] != cfg.cpu[1])
		ksft_print_msg("producer CPU %ld, consumer CPU %ld: %s\n", cfg.cpu[0], cfg.cpu[1],
			       id[0] < 0 || id[1] < 0 ? "topology unknown" :
			       id[0] != id[1] ? "different packages" :
			       id[2] == id[3] ? "same core (SMT siblings)" :
			       "same package, different cores");
	for (i = 0; i < NR_MODES; i++)
		if (cfg.modes & (1u << i))
			run_mode(run, i);

	if (!ksft_get_pass_cnt() && !ksft_get_fail_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
