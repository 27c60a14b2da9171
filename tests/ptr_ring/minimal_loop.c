// SPDX-License-Identifier: GPL-2.0
/*
 * The bare loops of ptr_ring_test's timed modes: the same ptr_ring calls on
 * the same ring and shim, flattened the same way, with integer items and an
 * order check, and nothing else (no payload, no progress for a watchdog, no
 * failure messages).  The difference from ptr_ring_test for the same mode,
 * size, count and CPUs is what the harness costs per item.  The waits are
 * out of line and named wait_*, as ptr_ring_test's, so that
 * callgrind --toggle-collect='wait_*' leaves them out of both.
 *
 *   gcc -O2 -pthread -I<tree>/tools/virtio/ringtest [-DHAVE_PTR_RING_CHECK_PRODUCE] \
 *       -o minimal_loop minimal_loop.c
 *   ./minimal_loop MODE COUNT SIZE BATCH CONSUMER-CPU [PRODUCER-CPU...]
 *
 * MODE is single, spsc, batch, lockless, lockless_batch, stop_wake,
 * check_stop_wake or mpsc (one producer per PRODUCER-CPU).  Prints the ns
 * per item of one run; exits 1 if an item was lost or the arguments are
 * wrong.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ptr_ring_shim.h"

enum mode { SINGLE, SPSC, BATCH, LOCKLESS, LOCKLESS_BATCH, STOP_WAKE,
	    CHECK_STOP_WAKE, MPSC, NR_MODES };
static const char * const names[] = {
	"single", "spsc", "batch", "lockless", "lockless_batch", "stop_wake",
	"check_stop_wake", "mpsc",
};

static struct ptr_ring *ring;	/* on the heap, as ptr_ring_test's */
static enum mode mode;
static unsigned long count;
static int batch, nprod, cpu[65], ready, stopped, bad;
static void **array;

static void pin(int c)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static bool stop_wake(enum mode m)
{
	return m == STOP_WAKE || m == CHECK_STOP_WAKE;
}

static void wake(struct ptr_ring *r)
{
	if (__atomic_load_n(&stopped, __ATOMIC_RELAXED) && !ptr_ring_full(r))
		__atomic_store_n(&stopped, 0, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) void wait_full(struct ptr_ring *r)
{
	if (stop_wake(mode))
		__atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
	while (stop_wake(mode) ? __atomic_load_n(&stopped, __ATOMIC_RELAXED) :
	       ptr_ring_full(r))
		cpu_relax();
}

static __attribute__((noinline)) void wait_ready(void)
{
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static __attribute__((noinline)) void wait_empty(struct ptr_ring *r)
{
	bool locked = mode == SPSC || mode == BATCH || stop_wake(mode);

	for (;;) {
		if (stop_wake(mode))
			wake(r);
		if (locked ? !ptr_ring_empty(r) : !__ptr_ring_empty(r))
			return;
		cpu_relax();
	}
}

static __always_inline void produce(struct ptr_ring *r, unsigned long p, const enum mode m)
{
	unsigned long k = 1, end;
	int ret;

	wait_ready();
	while (k <= count) {
		if (m == BATCH || m == LOCKLESS_BATCH) {
			end = k + batch <= count ? k + batch : count + 1;
			ret = 0;
			spin_lock(&r->producer_lock);
			while (k < end && !(ret = __ptr_ring_produce(r, (void *)(k << 8 | p))))
				k++;
			spin_unlock(&r->producer_lock);
#ifdef HAVE_PTR_RING_CHECK_PRODUCE
		} else if (m == CHECK_STOP_WAKE) {
			spin_lock(&r->producer_lock);
			ret = __ptr_ring_check_produce(r);
			if (!ret)
				ret = __ptr_ring_produce(r, (void *)(k << 8 | p));
			spin_unlock(&r->producer_lock);
			k += !ret;
#endif
		} else {
			ret = ptr_ring_produce(r, (void *)(k << 8 | p));
			k += !ret;
		}
		if (ret)
			wait_full(r);
	}
}

static __always_inline void check(void *ptr, unsigned long *next, const bool multi)
{
	unsigned long v = (unsigned long)ptr, p = multi ? v & 63 : 0;

	if (unlikely(v != next[p]))
		bad = 1;
	next[p] += 256;
}

static __always_inline void consume(struct ptr_ring *r, const enum mode m)
{
	unsigned long next[64], one = 1 << 8, done = 0;
	unsigned long total = count * (m == MPSC ? nprod : 1);
	const bool multi = m == MPSC;
	unsigned long *nx = multi ? next : &one;
	void *ptr;
	int i, n;

	for (i = 0; i < 64; i++)
		next[i] = 1 << 8 | i;
	while (done < total) {
		if (m == BATCH || m == LOCKLESS_BATCH) {
			if (m == BATCH)
				n = ptr_ring_consume_batched(r, array, batch);
			else
				n = __ptr_ring_empty(r) ? 0 :
				    __ptr_ring_consume_batched(r, array, batch);
			for (i = 0; i < n; i++)
				check(array[i], nx, multi);
		} else if (m == LOCKLESS || m == MPSC) {
			for (n = 0; n < batch && (n || !__ptr_ring_empty(r)) &&
			     (ptr = __ptr_ring_consume(r)); n++)
				check(ptr, nx, multi);
		} else {
			ptr = ptr_ring_consume(r);
			n = !!ptr;
			if (n)
				check(ptr, nx, multi);
		}
		done += n;
		if (stop_wake(m))
			wake(r);
		if (!n)
			wait_empty(r);
	}
}

static __always_inline void single(struct ptr_ring *r)
{
	unsigned long k = 1, next = 1 << 8;
	void *ptr;

	while (k <= count) {
		while (k <= count && !ptr_ring_produce(r, (void *)(k << 8)))
			k++;
		while ((ptr = ptr_ring_consume(r)))
			check(ptr, &next, false);
	}
}

static void __attribute__((__flatten__, noinline)) produce_all(unsigned long p)
{
	struct ptr_ring *r = ring;

	if (mode == BATCH)
		produce(r, p, BATCH);
	else if (mode == LOCKLESS_BATCH)
		produce(r, p, LOCKLESS_BATCH);
	else if (mode == CHECK_STOP_WAKE)
		produce(r, p, CHECK_STOP_WAKE);
	else
		produce(r, p, SPSC);
}

static void __attribute__((__flatten__, noinline)) consume_all(void)
{
	struct ptr_ring *r = ring;

	switch (mode) {
	case SINGLE: single(r); break;
	case SPSC: consume(r, SPSC); break;
	case BATCH: consume(r, BATCH); break;
	case LOCKLESS: consume(r, LOCKLESS); break;
	case LOCKLESS_BATCH: consume(r, LOCKLESS_BATCH); break;
	case STOP_WAKE: case CHECK_STOP_WAKE: consume(r, STOP_WAKE); break;
	default: consume(r, MPSC);
	}
}

static void *producer(void *arg)
{
	unsigned long p = (unsigned long)arg;

	pin(cpu[p + 1]);
	produce_all(p);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t[64];
	int i;

	for (mode = 0; mode < NR_MODES && argc > 1 && strcmp(argv[1], names[mode]); mode++)
		;
	nprod = mode == SINGLE ? 0 : argc - 6;
	if (argc < 6 || mode == NR_MODES || nprod < 0 || nprod > 63 ||
	    (mode != MPSC && nprod > 1) || (mode != SINGLE && !nprod)) {
		fprintf(stderr, "usage: %s MODE COUNT SIZE BATCH CONSUMER-CPU [PRODUCER-CPU...]\n",
			argv[0]);
		return 1;
	}
	count = strtoul(argv[2], NULL, 10);
	batch = atoi(argv[4]);
	for (i = 0; i <= nprod; i++)
		cpu[i] = atoi(argv[5 + i]);
	array = calloc(batch, sizeof(void *));
	ring = aligned_alloc(SMP_CACHE_BYTES, sizeof(*ring));	/* its lines */
	if (!count || !array || !ring || batch < 1 || ptr_ring_init(ring, atoi(argv[3]), GFP_KERNEL))
		return 1;
	for (i = 0; i < nprod; i++)
		if (pthread_create(&t[i], NULL, producer, (void *)(unsigned long)i))
			return 1;
	pin(cpu[0]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	consume_all();
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (i = 0; i < nprod; i++)
		pthread_join(t[i], NULL);
	printf("%s ns_per_item %.3f\n", names[mode],
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / count / (nprod > 1 ? nprod : 1));
	ptr_ring_cleanup(ring, NULL);
	return bad;
}
