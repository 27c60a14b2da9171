// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bare ring loops of ptr_ring_test's "single" and "spsc" modes, on the
 * same ring and shim (tools/virtio/ringtest/ptr_ring_shim.h): integers cast
 * to pointers, no item written or read through its pointer, no per-item
 * check, no progress or full/empty counting, no watchdog. The difference
 * from ptr_ring_test's figure for the same mode, size, count and CPUs is
 * what the measuring harness costs per item.
 *
 *   gcc -O2 -pthread -I<tree>/tools/virtio/ringtest \
 *       -DPTR_RING_H='"<tree>/include/linux/ptr_ring.h"' \
 *       -o minimal_loop minimal_loop.c
 *   ./minimal_loop single|spsc COUNT SIZE PRODUCER-CPU CONSUMER-CPU
 *
 * Prints the warm-up's and then one timed run's ns per item; exits 1 if an
 * item was lost or the arguments are wrong.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../tools/virtio/ringtest/ptr_ring_shim.h"

static struct ptr_ring ring;
static unsigned long count;
static int cpu[2], ready;

static void pin(int c)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *producer(void *arg)
{
	unsigned long i;

	pin(cpu[0]);
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		cpu_relax();
	for (i = 1; i <= count; i++)
		while (ptr_ring_produce(&ring, (void *)i))
			cpu_relax();
	return NULL;
}

/* One run: ns per item, and whether every item came out, in order */
static double run(int spsc, int *ok)
{
	unsigned long i = 0, next = 1;
	struct timespec a, b;
	pthread_t t;
	void *p;

	__atomic_store_n(&ready, 0, __ATOMIC_RELEASE);
	if (spsc && pthread_create(&t, NULL, producer, NULL))
		return *ok = 0, 0;
	pin(cpu[1]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	while (next <= count) {
		while (!spsc && i < count && !ptr_ring_produce(&ring, (void *)(i + 1)))
			i++;
		while ((p = ptr_ring_consume(&ring)))
			*ok &= (unsigned long)p == next++;
		while (spsc && ptr_ring_empty(&ring) && next <= count)
			cpu_relax();
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (spsc)
		pthread_join(t, NULL);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / count;
}

int main(int argc, char **argv)
{
	int spsc, ok = 1;
	double warm;

	if (argc != 6 || (strcmp(argv[1], "single") && strcmp(argv[1], "spsc"))) {
		fprintf(stderr, "usage: %s single|spsc COUNT SIZE PRODUCER-CPU CONSUMER-CPU\n",
			argv[0]);
		return 1;
	}
	spsc = !strcmp(argv[1], "spsc");
	count = strtoul(argv[2], NULL, 10);
	cpu[0] = atoi(argv[4]);
	cpu[1] = atoi(argv[5]);
	if (!count || ptr_ring_init(&ring, atoi(argv[3]), GFP_KERNEL))
		return 1;
	warm = run(spsc, &ok);
	printf("%s warm-up %.3f ns_per_item %.3f\n", argv[1], warm, run(spsc, &ok));
	ptr_ring_cleanup(&ring, NULL);
	return !ok;
}
