// SPDX-License-Identifier: GPL-2.0
/*
 * A user program with vmtest/guest/insn-markers.patch's marks, for the
 * QEMU plugin's event counts under qemu-x86_64: test 1, one chunk of 1000
 * iterations, each with one locked add, one mfence, one direct call and
 * one indirect call (each with its return) and a rep stosb of 4096 bytes;
 * test 2, 1000 iterations of three loads and a store; for the cache
 * model (L1D 32 KiB, L2 1 MiB, 64-byte lines), 4000 loads, one a line,
 * from lines that a sweep of 256 KiB left in L2 but not in L1 (test 3)
 * and from lines never touched (test 4); a rep stosb of 256 KiB of
 * untouched lines, which fills the caches without a miss counted (test
 * 5), then 4000 loads of its lines (test 6: L1 misses only).
 */
#define MARK(kind) \
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x50500000 | " #kind " << 8")

static char page[4096];
static long counter;
static long slots[4];
static char warm[256 << 10], cold[1 << 20], cleared[256 << 10];

/* A test of 4000 loads, one a line, from the start of LINES */
static void load_lines(const char *lines)
{
	MARK(1);
	for (int i = 0; i < 4000; i++)
		*(volatile const char *)&lines[i * 64];
	MARK(2);
	MARK(3);
}

static void __attribute__((noinline)) callee(void)
{
	asm volatile("" ::: "memory");
}

static void (*volatile indirect)(void) = callee;

int main(void)
{
	MARK(1);
	for (int i = 0; i < 1000; i++) {
		void *dst = page;
		long n = sizeof(page);

		asm volatile("lock addq $1, %0" : "+m" (counter));
		asm volatile("mfence" ::: "memory");
		callee();
		indirect();
		asm volatile("rep stosb" : "+D" (dst), "+c" (n) : "a" (0) : "memory");
	}
	MARK(2);
	MARK(3);
	/* test 2: per iteration three loads and a store */
	MARK(1);
	for (int i = 0; i < 1000; i++)
		asm volatile("mov %1, %%rax; add %2, %%rax; add %3, %%rax; mov %%rax, %0"
			     : "=m" (slots[3])
			     : "m" (slots[0]), "m" (slots[1]), "m" (slots[2])
			     : "rax");
	MARK(2);
	MARK(3);
	/* tests 3 and 4, after a sweep of warm that leaves it in L2 */
	for (unsigned long i = 0; i < sizeof(warm); i += 64)
		*(volatile char *)&warm[i];
	load_lines(warm);
	load_lines(cold);
	/* tests 5 and 6 */
	MARK(1);
	{
		void *dst = cleared;
		long n = sizeof(cleared);

		asm volatile("rep stosb" : "+D" (dst), "+c" (n) : "a" (0) : "memory");
	}
	MARK(2);
	MARK(3);
	load_lines(cleared);
	return 0;
}
