// SPDX-License-Identifier: GPL-2.0
/*
 * Check include/linux/ptr_ring.h in userspace, built with ringtest's shims,
 * calling it as its users do.  A producer and a consumer thread pass every
 * item through the ring, and the consumer checks each one through the
 * pointer it consumed.  Built with -fsanitize=thread this checks smp_wmb()
 * too; run it with TSAN_OPTIONS=halt_on_error=1, or a racy header's run
 * goes on reporting for minutes instead of failing.
 * Unconsume, resize and zero-size rings are checked entry by entry, at
 * several sizes, and each must then still pass items through every slot.
 * A case that makes no progress for STALL_SEC seconds fails the run.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "../kselftest.h"
#include "../../../virtio/ringtest/ptr_ring_shim.h"

#define MAX_SIZE	((long)(KMALLOC_MAX_SIZE / sizeof(void *)))
#define STALL_SEC	10

static long size = 1024, user_size, count = 1000000;
/* The single-threaded cases run at these sizes too, after --size: each
 * meets the wrap and r->batch (16 at most) differently
 */
static const long more_sizes[] = { 1, 2, 3, 5, 17, 33, 100, 1000 };
#define MORE_MAX	1000

/* Item i is items[i], written before it is produced, never reused */
struct item {
	long seq;
};

static struct item *items;
static long nitems;
static void **batch;

static const char *current_case;
static long progress;		/* anything that moves, for the watchdog */
static int failed, at;		/* at: the line of the case's step */

#define bump()		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED)
#define has_failed()	__atomic_load_n(&failed, __ATOMIC_RELAXED)

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&failed, 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	printf("# %s (size %ld, line %d): FAIL: ", current_case, size, at);
	vprintf(fmt, ap);
	va_end(ap);
}

/* In a helper, test(); in a case, expect(): it names the step's line */
#define test(cond)	((cond) || (fail("expected %s\n", #cond), false))
#define expect(cond)	(at = __LINE__, test(cond))

/* Entries destroyed by a resize or an unconsume, in the order they were */
static long destroyed[8];
static long ndestroyed;

static void destroy(void *p)
{
	if (ndestroyed < (long)ARRAY_SIZE(destroyed))
		destroyed[ndestroyed] = (struct item *)p - items;
	ndestroyed++;
}

/* Exactly items @first, @first + @step, ... (@n of them) were destroyed */
static bool destroyed_are(long first, long n, long step)
{
	long i;

	if (!test(ndestroyed == n))
		return false;
	for (i = 0; i < n && i < (long)ARRAY_SIZE(destroyed); i++)
		if (!test(destroyed[i] == first + i * step))
			return false;
	ndestroyed = 0;
	return true;
}

static void *item(long seq)
{
	items[seq].seq = seq;
	return &items[seq];
}

/* @p is item @seq: compare the pointer before reading through it */
static bool is_item(void *p, long seq)
{
	struct item *it = p;

	if (it == &items[seq] && it->seq == seq)
		return true;
	fail("item %ld: got %p, expected %p%s\n", seq, p, (void *)&items[seq],
	     it == &items[seq] ? " (stale)" : "");
	return false;
}

/* Produce items @from to @to - 1 with ptr_ring_produce(): all fit */
static bool fill(struct ptr_ring *r, long from, long to)
{
	for (; from < to; from++, bump())
		if (!test(!ptr_ring_produce(r, item(from))))
			return false;
	return true;
}

/* Consume items @from to @to - 1 with ptr_ring_consume(), in order */
static bool drain(struct ptr_ring *r, long from, long to)
{
	for (; from < to; from++, bump())
		if (!is_item(ptr_ring_consume(r), from))
			return false;
	return true;
}

/*
 * An empty ring still passes one item at a time through every slot, its
 * wraps included: nothing stale or stuck was left behind.
 */
static bool still_works(struct ptr_ring *r)
{
	long i, first = 4 * size;

	if (!test(ptr_ring_empty(r)))
		return false;
	for (i = first; i < first + 2 * size + 2; i++)
		if (!fill(r, i, i + 1) || !drain(r, i, i + 1))
			return false;
	return true;
}

/* A helper's failure names the line of the case's step that called it */
#define fill(...)		(at = __LINE__, (fill)(__VA_ARGS__))
#define drain(...)		(at = __LINE__, (drain)(__VA_ARGS__))
#define destroyed_are(...)	(at = __LINE__, (destroyed_are)(__VA_ARGS__))
#define still_works(...)	(at = __LINE__, (still_works)(__VA_ARGS__))

/* Two threads: how each of ptr_ring's users produces and consumes */
enum user { TUN, VHOST_NET, PAGE_POOL, CPUMAP };

struct two {
	struct ptr_ring ring;
	enum user user;
};

static void *producer(void *arg)
{
	struct two *t = arg;
	struct ptr_ring *r = &t->ring;
	long seq = 0, end;
	int ret = 0;

	while (seq < count && !has_failed()) {
		switch (t->user) {
		case TUN:	/* tap's; tun takes the lock around the same */
			ret = ptr_ring_produce(r, item(seq));
			seq += !ret;
			break;
		case VHOST_NET:	/* tun's XDP transmit, in batches */
		case CPUMAP:
			end = seq + 8 < count ? seq + 8 : count;
			spin_lock(&r->producer_lock);
			while (seq < end &&
			       !(ret = __ptr_ring_produce(r, item(seq))))
				seq++;
			spin_unlock(&r->producer_lock);
			break;
		case PAGE_POOL:	/* pages returned outside softirq */
			ret = ptr_ring_produce_bh(r, item(seq));
			seq += !ret;
			break;
		}
		if (ret && ret != -ENOSPC)
			fail("item %ld: produce returned %d\n", seq, ret);
		if (ret)
			sched_yield();
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct two *t = arg;
	struct ptr_ring *r = &t->ring;
	long seq = 0, n, i;

	while (seq < count && !has_failed()) {
		switch (t->user) {
		default:
			batch[0] = ptr_ring_consume(r);
			n = !!batch[0];
			break;
		case VHOST_NET:
			n = ptr_ring_consume_batched(r, batch, 64);
			break;
		case PAGE_POOL:	/* NAPI: no lock, one at a time */
			for (n = 0; n < 64 && !__ptr_ring_empty(r); n++)
				batch[n] = __ptr_ring_consume(r);
			break;
		case CPUMAP:	/* its kthread: no lock, in batches */
			n = __ptr_ring_empty(r) ? 0 :
			    __ptr_ring_consume_batched(r, batch, 8);
			break;
		}
		for (i = 0; i < n; i++, seq++)
			if (!is_item(batch[i], seq))
				return NULL;
		__atomic_store_n(&progress, seq, __ATOMIC_RELAXED);
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void two_threads(enum user user)
{
	struct two t = { .user = user };
	pthread_t tid[2];

	if (!expect(!ptr_ring_init(&t.ring, size, GFP_KERNEL)))
		return;
	if (pthread_create(&tid[0], NULL, producer, &t) ||
	    pthread_create(&tid[1], NULL, consumer, &t))
		ksft_exit_fail_msg("pthread_create failed\n");
	pthread_join(tid[0], NULL);
	pthread_join(tid[1], NULL);
	if (!has_failed())
		expect(ptr_ring_empty(&t.ring));
	ptr_ring_cleanup(&t.ring, NULL);
}

static void tun(void)		{ two_threads(TUN); }
static void vhost_net(void)	{ two_threads(VHOST_NET); }
static void page_pool(void)	{ two_threads(PAGE_POOL); }
static void cpumap(void)	{ two_threads(CPUMAP); }

/*
 * vhost-net gives back what it consumed but could not use.  All fit; some
 * no longer fit (the producer reused the slots the consumer had zeroed):
 * the oldest are destroyed; the consumer had wrapped to index 0.
 */
static void unconsume(void)
{
	long n = size, k = n / 2 ? n / 2 : 1, b, m;
	struct ptr_ring ring, *r = &ring;

	if (!expect(!ptr_ring_init(r, n, GFP_KERNEL)))
		return;
	b = r->batch + r->batch / 2 + 1 < n ? r->batch + r->batch / 2 + 1 : n;
	if (fill(r, 0, k) &&
	    expect(ptr_ring_consume_batched(r, batch, k) == k)) {
		ptr_ring_unconsume(r, batch, k, destroy);
		if (destroyed_are(0, 0, 1) && drain(r, 0, k))
			still_works(r);
	}
	ptr_ring_cleanup(r, NULL);

	if (has_failed() || !expect(!ptr_ring_init(r, n, GFP_KERNEL)))
		return;
	if (fill(r, 0, n) &&
	    expect(ptr_ring_consume_batched(r, batch, b) == b)) {
		for (m = 0; m <= b && !ptr_ring_produce(r, item(n + m)); m++)
			;
		ptr_ring_unconsume(r, batch, b, destroy);
		if (expect(m > 0 && m <= b) && destroyed_are(m - 1, m, -1) &&
		    drain(r, m, n + m))
			still_works(r);
	}
	ptr_ring_cleanup(r, NULL);

	if (has_failed() || !expect(!ptr_ring_init(r, n, GFP_KERNEL)))
		return;
	k = n < 3 ? n : 3;
	if (fill(r, 0, n) && drain(r, 0, n)) {
		for (m = 0; m < k; m++)
			batch[m] = &items[n - k + m];
		ptr_ring_unconsume(r, batch, k, destroy);
		if (destroyed_are(0, 0, 1) && drain(r, n - k, n))
			still_works(r);
	}
	ptr_ring_cleanup(r, NULL);
}

/*
 * tun resizes its rings: shrink a full, wrapped ring (the newest entries
 * are destroyed), grow it up to the cap, fill it, shrink it again with
 * ptr_ring_resize_multiple_bh(); above the cap a resize fails, keeping the
 * ring as it was.
 */
static void resize(void)
{
	long n = size, c = n / 4, s = (n + 1) / 2, k, next;
	long g = 2 * n < MAX_SIZE ? 2 * n : MAX_SIZE;
	struct ptr_ring ring, *r = &ring, *rings[] = { r };

	if (!expect(!ptr_ring_init(r, n, GFP_KERNEL)))
		return;
	ndestroyed = 0;
	if (!fill(r, 0, n) || !drain(r, 0, c))
		goto out;
	/* Consumed slots are freed r->batch at a time: refill what was */
	for (k = 0; k <= c && !ptr_ring_produce(r, item(n + k)); k++)
		bump();
	next = n + k;
	if (expect(k <= c) &&
	    expect(!ptr_ring_resize(r, s, GFP_KERNEL, destroy)) &&
	    destroyed_are(c + s, next - c - s, 1) && expect(ptr_ring_full(r)) &&
	    expect(!ptr_ring_resize(r, g, GFP_KERNEL, destroy)) &&
	    destroyed_are(0, 0, 1) && fill(r, next, next + g - s) &&
	    expect(ptr_ring_resize(r, MAX_SIZE + 1, GFP_KERNEL, destroy) ==
		   -ENOMEM) &&
	    expect(ptr_ring_full(r)) &&
	    expect(!ptr_ring_resize_multiple_bh(rings, 1, n, GFP_KERNEL,
						destroy)) &&
	    destroyed_are(next + n - s, g - n, 1) && drain(r, c, c + s) &&
	    drain(r, next, next + n - s))
		still_works(r);
out:
	ptr_ring_cleanup(r, NULL);
	if (!has_failed())
		expect(ptr_ring_init(r, MAX_SIZE + 1, GFP_KERNEL) == -ENOMEM);
}

/*
 * tun creates every queue's ring with size 0 and resizes it when the
 * device comes up: nothing can be produced, nothing is consumed.
 */
static void zero_size(void)
{
	struct ptr_ring ring, *r = &ring;

	if (!expect(!ptr_ring_init(r, 0, GFP_KERNEL)))
		return;
	expect(ptr_ring_empty(r));
	expect(ptr_ring_produce(r, item(0)) == -EINVAL);
	expect(__ptr_ring_check_produce(r) == -EINVAL);
	expect(!ptr_ring_consume(r));
	expect(!ptr_ring_consume_batched(r, batch, 4));
	batch[0] = &items[0];
	batch[1] = &items[1];
	ndestroyed = 0;
	ptr_ring_unconsume(r, batch, 2, destroy);
	if (!destroyed_are(1, 2, -1) ||
	    !expect(!ptr_ring_resize(r, size, GFP_KERNEL, destroy)) ||
	    !fill(r, 0, size))
		goto out;
	expect(ptr_ring_produce(r, item(size)) == -ENOSPC);
	expect(__ptr_ring_check_produce(r) == -ENOSPC);
	if (expect(!ptr_ring_resize(r, 0, GFP_KERNEL, destroy)) &&
	    destroyed_are(0, size, 1)) {
		expect(ptr_ring_empty(r));
		expect(ptr_ring_produce(r, item(0)) == -EINVAL);
	}
out:
	ptr_ring_cleanup(r, NULL);
}

static const struct {
	const char *name;
	void (*fn)(void);
	bool sized;		/* run at more_sizes[] too */
} cases[] = {
	{ "tun", tun, false }, { "vhost_net", vhost_net, false },
	{ "page_pool", page_pool, false }, { "cpumap", cpumap, false },
	{ "unconsume", unconsume, true }, { "resize", resize, true },
	{ "zero_size", zero_size, true },
};

/* Every second: a case that made no progress for STALL_SEC fails the run */
static void watchdog(int sig)
{
	static long seen = -1, still;
	long now = __atomic_load_n(&progress, __ATOMIC_RELAXED);

	still = now == seen ? still + 1 : 0;
	seen = now;
	alarm(1);
	if (still < STALL_SEC)
		return;
	printf("# %s: FAIL: no progress for %d s\n", current_case, STALL_SEC);
	ksft_test_result_fail("%s\n", current_case);
	ksft_exit_fail_msg("%s: stuck (signal %d)\n", current_case, sig);
}

int main(int argc, char **argv)
{
	long most;
	size_t i, k;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			size = atol(optarg);
		else if (opt == 'n')
			count = atol(optarg);
		else
			break;
	}
	if (opt != -1 || optind < argc || size < 1 || size > MAX_SIZE ||
	    count < 1 || count > 100000000) {
		fprintf(stderr, "Usage: %s [-s 1..%ld] [-n 1..100000000]\n",
			argv[0], MAX_SIZE);
		exit(KSFT_FAIL);
	}
	user_size = size;
	most = size > MORE_MAX ? size : MORE_MAX;
	nitems = count > 6 * most + 4 ? count : 6 * most + 4;
	items = malloc(nitems * sizeof(*items));
	batch = calloc(most, sizeof(*batch));
	if (!items || !batch)
		ksft_exit_fail_msg("out of memory\n");

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	ksft_print_msg("size %ld count %ld\n", size, count);
	current_case = cases[0].name;
	signal(SIGALRM, watchdog);
	alarm(1);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		current_case = cases[i].name;
		failed = 0;
		bump();
		cases[i].fn();
		for (k = 0; cases[i].sized && k < ARRAY_SIZE(more_sizes) &&
		     !failed; k++) {
			size = more_sizes[k];
			cases[i].fn();
		}
		size = user_size;
		ksft_test_result(!failed, "%s\n", cases[i].name);
	}
	ksft_finished();
}
