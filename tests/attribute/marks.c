// SPDX-License-Identifier: GPL-2.0
/*
 * A user program with vmtest/guest/insn-markers.patch's marks, for the
 * QEMU plugin's test under qemu-x86_64: test 1 times three chunks of 1000
 * iterations, then one of 1000, 250 of code first translated in it and
 * 500 of code that ran before, outside any chunk, then one of 500 of that
 * code, all of it named; 5000 more run outside any chunk.  Test 2 times
 * one chunk of 2000.
 */
#define MARK(kind) \
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x50500000 | " #kind " << 8")

static void __attribute__((noinline)) work(long n)
{
	for (long i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

/* The same loop, as other code */
static void __attribute__((noinline)) other(long n)
{
	for (long i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

/* ... and as code that first runs inside a chunk */
static void __attribute__((noinline)) fresh(long n)
{
	for (long i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

int main(void)
{
	other(10);
	for (int c = 0; c < 3; c++) {
		MARK(1);
		work(1000);
		MARK(2);
	}
	MARK(1);
	work(1000);
	fresh(250);
	other(500);
	MARK(2);
	MARK(1);
	other(500);
	MARK(2);
	work(5000);
	MARK(3);
	MARK(1);
	work(2000);
	MARK(2);
	MARK(3);
	return 0;
}
