// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptr_ring_test - check and time include/linux/ptr_ring.h in userspace,
 * built with ringtest's shims (tools/virtio/ringtest/ptr_ring_shim.h).
 *
 * One KTAP case per mode, each after users of the ring:
 *   single          one thread fills the ring, then drains it
 *   spsc            ptr_ring_produce() / ptr_ring_consume() (tun)
 *   batch           __ptr_ring_produce() batches under producer_lock (XDP in
 *                   tun, veth) / ptr_ring_consume_batched() (vhost-net)
 *   lockless        ptr_ring_produce() / __ptr_ring_empty(), then
 *                   __ptr_ring_consume() with no lock (page_pool, veth)
 *   lockless_batch  batches / __ptr_ring_consume_batched() with no lock (cpumap)
 *   unconsume       ptr_ring_unconsume() when part of the batch no longer fits
 *   resize          ptr_ring_resize() and ptr_ring_resize_multiple(_bh)()
 * The last two check exact counts of the entries kept and destroyed.
 *
 * Each item points to a cache line the producer writes the item's sequence
 * number to before producing it; the consumer reads it through the
 * pointer.  A lost, duplicated, reordered, stale or garbage item fails the
 * case at once, a ring that stops moving after STALL_SEC seconds.
 *
 * The timed modes print, per repetition after a warm-up, ns per item and
 * how often the producer found the ring full and the consumer empty, then
 *   # spsc: ns_per_item min 20.101 median 20.734 max 22.010 reps 5 ...
 *   ok 2 spsc # perf=20.734ns
 * There is no preempt count, BH or IRQ disabling, and the locks are
 * inlined: these figures are not comparable with in-kernel ones.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../kselftest.h"
#include "../../../virtio/ringtest/ptr_ring_shim.h"

#define MAX_RING_SIZE	(KMALLOC_MAX_SIZE / sizeof(void *))
#define MAX_COUNT	1000000000UL
#define MAX_REPS	1000UL
#define STALL_SEC	3

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
	/* Handshake, and the producer's results */
	int ready ____cacheline_aligned_in_smp;
	int stop, failed;
	struct timespec t_start;
	unsigned long full;
	/* The consumer's; the watchdog watches progress */
	unsigned long progress ____cacheline_aligned_in_smp;
	struct timespec t_end;
	unsigned long empty;
	void **array;
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

static __attribute__((noinline)) void bad_item(struct run *run, void *p,
					       unsigned long next)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)run->pool;
	struct item *it = p;

	if (off >= run->npool * sizeof(*it) || off % sizeof(*it))
		fail(run, "item %lu: garbage pointer %p", next, p);
	else if (it == &run->pool[next % run->npool])
		fail(run, "item %lu: read %lu through its pointer: stale data",
		     next, it->seq);
	else
		fail(run, "item %lu: got %lu: %s", next, it->seq, it->seq > next ?
		     "items lost or reordered" : "item duplicated or reordered");
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
	unsigned long seq = 0, pidx = 0, next = 0, cidx = 0, last;
	struct run *run = arg;
	void *p;

	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	while (next < cfg.count) {
		last = seq + next;
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
		if (seq + next == last)
			return fail(run, "item %lu: ring full with %lu items, none to consume",
				    seq, seq - next), NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t_end);
	return NULL;
}

static void *producer_thread(void *arg)
{
	struct run *run = arg;
	struct ptr_ring *r = &run->ring;
	bool batched = run->mode == BATCH || run->mode == LOCKLESS_BATCH;
	unsigned long seq = 0, idx = 0, end, n = cfg.count;
	int ret;

	while (!load(run->ready))
		cpu_relax();
	clock_gettime(CLOCK_MONOTONIC, &run->t_start);
	while (seq < n) {
		end = batched && seq + cfg.batch < n ? seq + cfg.batch : n;
		if (batched)
			spin_lock(&r->producer_lock);
		for (; seq < end; seq++) {
			ret = batched ? __ptr_ring_produce(r, make_item(run, seq, idx)) :
					ptr_ring_produce(r, make_item(run, seq, idx));
			if (ret)
				break;
			idx = idx + 1 == run->npool ? 0 : idx + 1;
		}
		if (batched)
			spin_unlock(&r->producer_lock);
		if (seq == end)
			continue;
		run->full++;
		while (ptr_ring_full(r))
			if (load(run->stop))
				return NULL;
			else
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
			fail(run, "stalled for %d s at item %lu of %lu: producer %d consumer_head %d consumer_tail %d size %d batch %d; queue[producer] %s, queue[consumer_head] %s",
			     STALL_SEC, now, cfg.count, r->producer,
			     r->consumer_head, r->consumer_tail, r->size, r->batch,
			     r->queue[r->producer] ? "set" : "NULL",
			     r->queue[r->consumer_head] ? "set" : "NULL");
		if (still == STALL_SEC + 2)
			ksft_exit_fail_msg("%s: %s; a thread did not stop, giving up\n",
					   mode_names[run->mode], run->err);
	}
}

/* One repetition of a timed mode; false with run->err set on failure */
static bool run_once(struct run *run)
{
	pthread_t prod, cons;
	int ret;

	if (ptr_ring_init(&run->ring, cfg.size, GFP_KERNEL))
		return fail(run, "ptr_ring_init: out of memory"), false;
	run->ready = run->stop = run->failed = 0;
	run->progress = run->full = run->empty = 0;
	ret = start_thread(&cons, run->mode == SINGLE ? cfg.prod_cpu : cfg.cons_cpu,
			   run->mode == SINGLE ? single_thread : consumer_thread,
			   run);
	if (!ret && run->mode != SINGLE) {
		ret = start_thread(&prod, cfg.prod_cpu, producer_thread, run);
		if (!ret)
			watch(run, prod);
		else
			store(run->stop, 1);
	}
	if (ret)
		fail(run, "pthread_create: %s", strerror(ret));
	watch(run, cons);
	ptr_ring_cleanup(&run->ring, NULL);
	return !run->failed;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static bool run_timed(struct run *run, const char *name)
{
	unsigned long rep, full = 0, empty = 0, reps = cfg.reps;
	double ns[MAX_REPS + 1], med;

	for (rep = 0; rep <= reps; rep++) {	/* 0 is the warm-up */
		if (!run_once(run))
			return false;
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
	ksft_print_msg("%s: ns_per_item min %.3f median %.3f max %.3f reps %lu full %lu empty %lu\n",
		       name, ns[1], med, ns[reps], reps, full, empty);
	ksft_test_result_pass("%s # perf=%.3fns\n", name, med);
	return true;
}

/* The deterministic cases, with known sequence numbers */
static bool fill(struct run *run, unsigned long from, unsigned long n)
{
	for (; n; n--, from++)
		if (ptr_ring_produce(&run->ring, make_item(run, from, from % run->npool)))
			return fail(run, "item %lu: ring full", from), false;
	return true;
}

static bool drain(struct run *run, unsigned long from, unsigned long n)
{
	unsigned long idx = from % run->npool;
	void *p;

	while (n-- && !run->failed)
		if (!(p = ptr_ring_consume(&run->ring)))
			fail(run, "item %lu: ring empty", from);
		else
			check_item(run, p, &from, &idx);
	return !run->failed;
}

/* What destroy() expects: @n items from @next, going by @step */
static struct {
	struct run *run;
	unsigned long next, n;
	long step;
} dd;

static void destroy(void *p)
{
	unsigned long next = dd.next, idx = next % dd.run->npool;

	if (check_item(dd.run, p, &next, &idx))
		dd.next += dd.step, dd.n--;
}

static void expect_destroy(struct run *run, unsigned long n,
			   unsigned long first, long step)
{
	dd.run = run;
	dd.n = n;
	dd.next = first;
	dd.step = step;
}

static bool destroyed(struct run *run, const char *what)
{
	if (dd.n && !run->failed)
		fail(run, "%s: destroyed %ld entries too few (< 0: too many)",
		     what, (long)dd.n);
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
	expect_destroy(run, 0, 0, 1);
	ptr_ring_unconsume(r, run->array, b, destroy);
	if (!destroyed(run, "into free space") ||
	    ptr_ring_consume_batched(r, run->array, b) != b)
		return fail(run, "could not take %lu again", b), false;
	while (m < b / 2 && !ptr_ring_produce(r, make_item(run, n + m, n + m)))
		m++;
	ksft_print_msg("unconsume: %lu entries back into a ring of %lu, %lu reused, batch %d\n",
		       b, n, m, r->batch);
	expect_destroy(run, m, m - 1, -1);
	ptr_ring_unconsume(r, run->array, b, destroy);
	return destroyed(run, "after reuse") && drain(run, m, n) &&
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
	int ret;

	if (!fill(run, 0, n) || !drain(run, 0, c) || !fill(run, n, c))
		return false;
	expect_destroy(run, n - s, c + s, 1);
	if (ptr_ring_resize(r, s, GFP_KERNEL, destroy) || !destroyed(run, "shrink") ||
	    !ptr_ring_full(r))
		return fail(run, "shrinking to %lu", s), false;
	expect_destroy(run, 0, 0, 1);
	if (ptr_ring_resize(r, 2 * n, GFP_KERNEL, destroy) || !destroyed(run, "grow") ||
	    !fill(run, next, 2 * n - s))
		return fail(run, "growing to %lu", 2 * n), false;
	expect_destroy(run, n, next + n - s, 1);
#ifdef ptr_ring_resize_multiple_bh
	ret = ptr_ring_resize_multiple_bh(rings, 1, n, GFP_KERNEL, destroy);
#else
	ret = ptr_ring_resize_multiple(rings, 1, n, GFP_KERNEL, destroy);
#endif
	if (ret)
		return fail(run, "ptr_ring_resize_multiple: out of memory"), false;
	ksft_print_msg("resize: %lu -> %lu -> %lu -> %lu entries\n", n, s, 2 * n, n);
	return destroyed(run, "resize_multiple") && drain(run, c, s) &&
	       drain(run, next, n - s) && ptr_ring_empty(r);
}

static void run_mode(enum mode mode)
{
	const char *name = mode_names[mode];
	struct run *run;
	bool ok;

	if (mode != SINGLE && mode < UNCONSUME && cfg.prod_cpu == cfg.cons_cpu) {
		ksft_test_result_skip("%s: needs two CPUs, only one is usable\n", name);
		return;
	}
	run = aligned_alloc(SMP_CACHE_BYTES, sizeof(*run));
	if (!run)
		ksft_exit_fail_msg("out of memory\n");
	memset(run, 0, sizeof(*run));
	run->mode = mode;
	/*
	 * Items are reused after 4 ring sizes, more than the ring and a batch
	 * hold, but not under ThreadSanitizer: it cannot see that zeroing a
	 * slot orders the consumer's reads before the reuse (data_race()).
	 */
	run->npool = 4 * cfg.size;
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
	run->npool = run->npool > cfg.count ? run->npool : cfg.count;
#endif
	run->pool = aligned_alloc(SMP_CACHE_BYTES, run->npool * sizeof(*run->pool));
	run->array = calloc(cfg.size, sizeof(void *));
	if (!run->pool || !run->array)
		ksft_exit_fail_msg("out of memory\n");

	if (mode < UNCONSUME) {
		ok = run_timed(run, name);
	} else {
		if (ptr_ring_init(&run->ring, cfg.size, GFP_KERNEL))
			ksft_exit_fail_msg("out of memory\n");
		ok = mode == UNCONSUME ? unconsume_case(run) : resize_case(run);
		if (!ok && !run->failed)
			fail(run, "ring not empty at the end");
		ptr_ring_cleanup(&run->ring, NULL);
	}
	if (!ok)
		ksft_print_msg("%s: FAIL: %s\n", name, run->err);
	if (!ok || mode >= UNCONSUME)
		ksft_test_result(ok, "%s\n", name);
	free(run->pool);
	free(run->array);
	free(run);
}

static long topology(int cpu, const char *what)
{
	char path[96];
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s",
		 cpu, what);
	f = fopen(path, "r");
	if (f && fscanf(f, "%ld", &val) != 1)
		val = -1;
	if (f)
		fclose(f);
	return val;
}

/* How the two CPUs relate (in a VM, as its hypervisor describes them) */
static const char *relation(int a, int b)
{
	long pkg = topology(a, "physical_package_id");

	if (pkg < 0 || topology(b, "physical_package_id") < 0)
		return "topology unknown";
	if (pkg != topology(b, "physical_package_id"))
		return "different packages";
	if (topology(a, "core_id") == topology(b, "core_id"))
		return "same core (SMT siblings)";
	return "same package, different cores";
}

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
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
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

/* The highest CPU of @set below @below other than @except, or -1 */
static int last_cpu(const cpu_set_t *set, int below, int except)
{
	while (--below >= 0)
		if (CPU_ISSET(below, set) && below != except)
			return below;
	return -1;
}

static const char usage[] =
"Usage: %s [options]: check and time include/linux/ptr_ring.h (KTAP)\n"
"  -m, --mode LIST         comma-separated modes, or 'all' (default):\n"
"                          single spsc batch lockless lockless_batch\n"
"                          unconsume resize\n"
"  -s, --size N            ring size in entries (default 1024, max %lu)\n"
"  -n, --count N           items per repetition (default 1000000)\n"
"  -b, --batch N           batch size (default 32, at most the ring size)\n"
"  -r, --reps N            timed repetitions after a warm-up (default 5)\n"
"  -p, --producer-cpu CPU  producer's CPU, and single's (default: the\n"
"                          next-to-last CPU this task may use)\n"
"  -c, --consumer-cpu CPU  consumer's CPU (default: the last one)\n"
"Exit status: 0 pass, 1 failure or bad option, 4 everything skipped.\n";

static void parse_args(int argc, char **argv)
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
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:s:n:b:r:p:c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			cfg.modes = parse_modes(optarg);
			break;
		case 's':
			cfg.size = parse_num("--size", optarg, 1, MAX_RING_SIZE);
			break;
		case 'n':
			cfg.count = parse_num("--count", optarg, 1, MAX_COUNT);
			break;
		case 'b':
			cfg.batch = parse_num("--batch", optarg, 1, MAX_RING_SIZE);
			batch_set = true;
			break;
		case 'r':
			cfg.reps = parse_num("--reps", optarg, 1, MAX_REPS);
			break;
		case 'p':
			cfg.prod_cpu = parse_cpu("--producer-cpu", optarg, &set);
			break;
		case 'c':
			cfg.cons_cpu = parse_cpu("--consumer-cpu", optarg, &set);
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
	/* Away from CPU0, which takes most interrupts, when there is a choice */
	if (cfg.cons_cpu < 0)
		cfg.cons_cpu = last_cpu(&set, CPU_SETSIZE, cfg.prod_cpu);
	if (cfg.prod_cpu < 0)
		cfg.prod_cpu = last_cpu(&set, cfg.cons_cpu, -1);
	if (cfg.prod_cpu < 0)
		cfg.prod_cpu = last_cpu(&set, CPU_SETSIZE, cfg.cons_cpu);
	if (cfg.prod_cpu < 0 || cfg.cons_cpu < 0)	/* only one CPU */
		cfg.prod_cpu = cfg.cons_cpu = cfg.prod_cpu < 0 ? cfg.cons_cpu : cfg.prod_cpu;
}

int main(int argc, char **argv)
{
	struct ptr_ring r;
	int mode;

	if (argc > 0 && argv[0])
		prog = argv[0];
	parse_args(argc, argv);

	ksft_print_header();
	ksft_set_plan(__builtin_popcount(cfg.modes));
	if (ptr_ring_init(&r, cfg.size, GFP_KERNEL))
		ksft_exit_fail_msg("ptr_ring_init: out of memory\n");
	ksft_print_msg("size %lu (r->batch %d) count %lu batch %lu reps %lu\n",
		       cfg.size, r.batch, cfg.count, cfg.batch, cfg.reps);
	ptr_ring_cleanup(&r, NULL);
	if (cfg.prod_cpu != cfg.cons_cpu)
		ksft_print_msg("producer CPU %d, consumer CPU %d: %s\n", cfg.prod_cpu,
			       cfg.cons_cpu, relation(cfg.prod_cpu, cfg.cons_cpu));
	for (mode = 0; mode < NR_MODES; mode++)
		if (cfg.modes & (1u << mode))
			run_mode(mode);

	if (ksft_get_fail_cnt())
		ksft_exit_fail();
	if (!ksft_get_pass_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}
