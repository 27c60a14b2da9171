// SPDX-License-Identifier: GPL-2.0
/*
 * ptr_ring.h's calls as ptr_ring_test's modes make them, in the plainest
 * loops (none of its harness): for the same mode, size, count and CPUs,
 * ptr_ring_test's figure minus this one is its harness's cost.  The waits
 * are out of line as wait_*: callgrind --toggle-collect='wait_*' skips them.
 *
 *   gcc -O2 -pthread -I<tree>/tools/virtio/ringtest -o bare_loop bare_loop.c
 *   ./bare_loop MODE COUNT SIZE BATCH CONSUMER-CPU [PRODUCER-CPU]
 *
 * MODE: single, spsc, batch, lockless, lockless_batch or mpsc (one
 * producer).  Prints the ns per item; exits 1 if items went missing.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>

#include "ptr_ring_shim.h"

#define noinline __attribute__((__noinline__))

static struct ptr_ring ring;
static unsigned long count;
static int batch, go, ccpu, pcpu;
static const char *mode;

static noinline void wait_full(void)
{
	while (ptr_ring_full(&ring))
		cpu_relax();
}

static noinline void wait_empty(void)
{
	while (__ptr_ring_empty(&ring))
		cpu_relax();
}

static noinline void wait_go(void)
{
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *producer(void *arg)
{
	bool locked_batch = !strcmp(mode, "batch") ||
			    !strcmp(mode, "lockless_batch");
	unsigned long i = 1, end;

	pin(pcpu);
	wait_go();
	while (locked_batch && i <= count) {
		end = i + batch <= count ? i + batch : count + 1;
		spin_lock(&ring.producer_lock);
		while (i < end && !__ptr_ring_produce(&ring, (void *)i))
			i++;
		spin_unlock(&ring.producer_lock);
		if (i < end)
			wait_full();
	}
	for (; i <= count; i++)
		while (ptr_ring_produce(&ring, (void *)i))
			wait_full();
	return NULL;
}

static unsigned long consumer(void **a)
{
	int m = !strcmp(mode, "spsc") ? 0 : !strcmp(mode, "batch") ? 1 :
		!strcmp(mode, "lockless_batch") ? 3 : 2;
	unsigned long got = 0;
	int n = 0;

	while (got < count) {
		if (m == 0)
			n = !!ptr_ring_consume(&ring);
		else if (m == 1)
			n = ptr_ring_consume_batched(&ring, a, batch);
		else if (m == 3)
			n = __ptr_ring_empty(&ring) ? 0 :
			    __ptr_ring_consume_batched(&ring, a, batch);
		else if (!__ptr_ring_empty(&ring))
			for (n = 0; n < batch && __ptr_ring_consume(&ring); n++)
				;
		else
			n = 0;
		got += n;
		if (!n)
			wait_empty();
	}
	return got;
}

static unsigned long single(void)
{
	unsigned long i = 1, got = 0;

	while (i <= count) {
		while (i <= count && !ptr_ring_produce(&ring, (void *)i))
			i++;
		while (ptr_ring_consume(&ring))
			got++;
	}
	return got;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	unsigned long got;
	pthread_t t;
	void **a;

	if (argc < 6 || argc > 7)
		return fprintf(stderr, "usage: %s MODE COUNT SIZE BATCH CONSUMER-CPU [PRODUCER-CPU]\n",
			       argv[0]), 1;
	mode = argv[1];
	count = strtoul(argv[2], NULL, 10);
	batch = atoi(argv[4]);
	ccpu = atoi(argv[5]);
	pcpu = argc > 6 ? atoi(argv[6]) : -1;
	a = calloc(batch, sizeof(*a));
	if (!a || ptr_ring_init(&ring, atoi(argv[3]), GFP_KERNEL) ||
	    (pcpu >= 0 && pthread_create(&t, NULL, producer, NULL)))
		return fprintf(stderr, "%s: cannot start\n", argv[0]), 1;
	pin(ccpu);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	got = pcpu >= 0 ? consumer(a) : single();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pcpu >= 0)
		pthread_join(t, NULL);
	printf("%.3f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 +
			  t1.tv_nsec - t0.tv_nsec) / count);
	return got != count;
}
