// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bare fill-then-drain loop on the same ring and shim
 * (tools/virtio/ringtest/ptr_ring_shim.h) as the "single" mode of
 * ptr_ring_test, with no items to write or read, no checks and no output
 * but ns per item: the reference for measuring the harness's overhead.
 *
 *   gcc -O2 -pthread -I<tree>/tools/virtio/ringtest \
 *       -DPTR_RING_H='"<tree>/include/linux/ptr_ring.h"' \
 *       -o minimal_loop minimal_loop.c
 *   taskset -c 0 ./minimal_loop [count [size]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../tools/virtio/ringtest/ptr_ring_shim.h"

static struct ptr_ring ring;

static unsigned long fill_drain(unsigned long count)
{
	unsigned long i = 0, sum = 0;
	void *p;

	do {
		while (i < count && !ptr_ring_produce(&ring, (void *)(i + 1)))
			i++;
		while ((p = ptr_ring_consume(&ring)))
			sum += (unsigned long)p;
	} while (i < count);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 500000;
	int size = argc > 2 ? atoi(argv[2]) : 1024;
	struct timespec a, b;
	unsigned long sum;

	if (ptr_ring_init(&ring, size, GFP_KERNEL))
		return 1;
	fill_drain(count);	/* warm-up, like the harness */
	clock_gettime(CLOCK_MONOTONIC, &a);
	sum = fill_drain(count);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", ((b.tv_sec - a.tv_sec) * 1e9 +
			  (b.tv_nsec - a.tv_nsec)) / count);
	ptr_ring_cleanup(&ring, NULL);
	return sum != count * (count + 1) / 2;
}
