// SPDX-License-Identifier: GPL-2.0
/*
 * A user program with vmtest/guest/insn-markers.patch's marks, for the
 * QEMU plugin's event counts under qemu-x86_64: one test of one chunk of
 * 1000 iterations, each with one locked add, one mfence, one direct call
 * and one indirect call (each with its return) and a rep stosb of 4096
 * bytes.
 */
#define MARK(kind) \
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x50500000 | " #kind " << 8")

static char page[4096];
static long counter;

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
	return 0;
}
