// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin for vmtest.sh --attribute (vmtest/README.md): per test,
 * the guest instructions each translation block executed inside the
 * benchmark's timed chunks.  QEMU 7.2's plugin API reads no register, so
 * vmtest/guest/insn-markers.patch marks a chunk's start and end and a
 * test's print with a 7-byte NOP, nopl 0x5050KK00(%rax), KK the kind.  A
 * block counts in full where it starts: a marker's block adds or loses a
 * few instructions a chunk.
 *
 * Each block also counts its events: locked read-modify-writes, fences
 * and serialising instructions, calls, returns, indirect branches (from
 * the instructions' bytes), rep string elements and bytes, loads and
 * stores; and a labelled L1D/L2 model of the -D CPU (Skylake-Server: 32
 * KiB of 8 ways, 1 MiB of 16, 64-byte lines, LRU, by guest virtual
 * address; user space is not instrumented).  A rep string instruction's
 * accesses fill the caches without counting misses: fast strings move
 * whole lines (Intel SDM vol. 1, 7.3.9.3).  No instruction fetch,
 * prefetch or other vCPU's cache is modelled.
 *
 * A chunk's counts are every block's: each is based when the chunk begins
 * and summed when it ends (a block translated meanwhile, or translated
 * anew after TCG dropped a translation, from zero): looking only at the
 * blocks earlier chunks ran would be faster, and loses whole chunks to
 * translations made between chunks.  What the blocks do not add up to of
 * the instructions run (a marker's own block) is reported unnamed.
 *
 * Output (out=FILE), as each test prints: "test N", then "VADDR INSNS
 * EXECS LOCKED FENCES CALLS RETS INDIRECT STRING BYTES LOADS STORES
 * L1MISS LLMISS" per block run in its chunks (INSNS per execution, the
 * rest summed), VADDR 0 INSNS 1 for the unnamed; an address may repeat
 * (retranslation).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { MARK_BEGIN = 1, MARK_END = 2, MARK_PRINT = 3 };

/* What a block counts: its executions, then its instructions' events */
enum {
	EXECS, LOCKED, FENCES, CALLS, RETS, INDIRECT, STRING, ACCESSES, STORES,
	L1MISS, LLMISS, NCOUNT
};

struct block {
	/* counts now, at the chunk's start, summed over the test's chunks */
	uint64_t vaddr, now[NCOUNT], base[NCOUNT], acc[NCOUNT];
	/* a block ends at a rep string insn: its element size, accesses */
	uint32_t insns, size, per_element;
	struct block *next;
};

static struct block *blocks;		/* every block translated */
static uint64_t ran, ran_base;		/* instructions every block ran */
static uint64_t unnamed;		/* of the test's chunks, in no block */
static bool kernel_only;		/* a system's guest: its kernel's blocks */
static unsigned int test;		/* tests printed so far */
static FILE *out;

#define LINE_SHIFT 6
#define MAX_CPUS 64

/* A set-associative cache: per set, each way's line + 1 and last use */
struct cache {
	unsigned int sets, ways;
	uint64_t *line, *used, clock;
};

static struct cache *caches[MAX_CPUS][2];	/* a vCPU's L1D and L2 */

static struct cache *cache_new(unsigned int bytes, unsigned int ways)
{
	struct cache *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	c->sets = (bytes >> LINE_SHIFT) / ways;
	c->ways = ways;
	c->line = calloc((size_t)c->sets * ways, sizeof(*c->line));
	c->used = calloc((size_t)c->sets * ways, sizeof(*c->used));
	if (!c->line || !c->used)
		abort();
	return c;
}

/* Whether C holds LINE; if not, it does now, in its least recent way */
static bool cache_hit(struct cache *c, uint64_t line)
{
	size_t set = (line % c->sets) * c->ways;
	uint64_t *tag = c->line + set, *used = c->used + set;
	unsigned int i, lru = 0;

	c->clock++;
	for (i = 0; i < c->ways; i++) {
		if (tag[i] == line + 1) {
			used[i] = c->clock;
			return true;
		}
		if (used[i] < used[lru])
			lru = i;
	}
	tag[lru] = line + 1;
	used[lru] = c->clock;
	return false;
}

/* An access through the vCPU's caches; misses count to block UDATA, if any */
static void on_access(unsigned int cpu, qemu_plugin_meminfo_t info,
		      uint64_t vaddr, void *udata)
{
	struct block *b = udata;
	uint64_t line = vaddr >> LINE_SHIFT;
	uint64_t last = (vaddr + (1u << qemu_plugin_mem_size_shift(info)) - 1)
			>> LINE_SHIFT;
	struct cache **c;

	if (cpu >= MAX_CPUS)
		return;
	c = caches[cpu];
	if (!c[0]) {
		c[0] = cache_new(32 << 10, 8);
		c[1] = cache_new(1 << 20, 16);
	}
	for (; line <= last; line++) {
		if (cache_hit(c[0], line))
			continue;
		if (b)
			b->now[L1MISS]++;
		if (!cache_hit(c[1], line) && b)
			b->now[LLMISS]++;
	}
}

/* nopl 0x5050KK00(%rax): 0f 1f 80, then the 32-bit displacement */
static int marker_kind(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 7 ||
	    memcmp(b, "\x0f\x1f\x80", 3))
		return 0;
	memcpy(&disp, b + 3, 4);
	return (disp & 0xffff00ff) == 0x50500000 ? (disp >> 8) & 0xff : 0;
}

/* Adds the chunk's counts to B's sums: the instructions it ran */
static uint64_t chunk_end(struct block *b)
{
	int i;

	for (i = 0; i < NCOUNT; i++)
		b->acc[i] += b->now[i] - b->base[i];
	return (b->now[EXECS] - b->base[EXECS]) * b->insns;
}

static void on_marker(unsigned int cpu, void *udata)
{
	struct block *b;
	uint64_t elements, named = 0;
	int i;

	switch ((uintptr_t)udata) {
	case MARK_BEGIN:
		ran_base = ran;
		for (b = blocks; b; b = b->next)
			memcpy(b->base, b->now, sizeof(b->now));
		break;
	case MARK_END:
		for (b = blocks; b; b = b->next)
			named += chunk_end(b);
		unnamed += ran - ran_base - named;
		break;
	case MARK_PRINT:	/* the chunks so far were this test's */
		fprintf(out, "test %u\n", ++test);
		if (unnamed)
			fprintf(out, "0 1 %" PRIu64 " 0 0 0 0 0 0 0 0 0 0 0\n",
				unnamed);
		unnamed = 0;
		for (b = blocks; b; b = b->next) {
			for (i = 0; i < NCOUNT && !b->acc[i]; i++)
				;
			if (i == NCOUNT)
				continue;
			fprintf(out, "%" PRIx64 " %u", b->vaddr, b->insns);
			for (i = 0; i < STRING; i++)
				fprintf(out, " %" PRIu64, b->acc[i]);
			elements = b->per_element ?
				   b->acc[STRING] / b->per_element : 0;
			fprintf(out, " %" PRIu64 " %" PRIu64 " %" PRIu64
				" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				elements, elements * b->size,
				b->acc[ACCESSES] - b->acc[STORES],
				b->acc[STORES], b->acc[L1MISS], b->acc[LLMISS]);
			memset(b->acc, 0, sizeof(b->acc));
		}
		break;
	}
}

#define N(array) (sizeof(array) / sizeof((array)[0]))
/* Flags beside the events: a rep prefix; indirect when the operand is *x */
enum { REP = 1u << 30, STAR = 1u << 31 };

static const struct word { const char *word; unsigned int kinds; }
prefixes[] = {
	{ "lock", 1 << LOCKED }, { "rep", REP }, { "repz", REP },
	{ "repnz", REP }, { "repe", REP }, { "repne", REP },
	{ "notrack", 0 }, { "bnd", 0 }, { "ds", 0 }, { "cs", 0 },
}, mnemonics[] = {
	{ "callq", 1 << CALLS | STAR }, { "call", 1 << CALLS | STAR },
	{ "jmpq", STAR }, { "jmp", STAR },
	{ "retq", 1 << RETS }, { "ret", 1 << RETS },
	{ "mfence", 1 << FENCES }, { "lfence", 1 << FENCES },
	{ "sfence", 1 << FENCES }, { "serialize", 1 << FENCES },
	{ "cpuid", 1 << FENCES },
};

/* Of LIST, the word STR starts with: its entry, *REST after it */
static const struct word *match(const char *str, const struct word *list,
				size_t n, const char **rest)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(list[i].word);
		if (!strncmp(str, list[i].word, len) &&
		    (!str[len] || str[len] == ' ')) {
			*rest = str + len + !!str[len];
			return &list[i];
		}
	}
	return NULL;
}

/*
 * The instruction's events (1 << LOCKED...), from QEMU's disassembly
 * (AT&T: "lock addq $1, (%rax)", "callq *%rax", "rep stosq %rax, (%rdi)").
 * A rep-prefixed string instruction sets the block's element size and
 * accesses per element.
 */
static unsigned int classify(struct qemu_plugin_insn *insn, struct block *b)
{
	char *text = qemu_plugin_insn_disas(insn);
	const char *p = text, *q, *size;
	const struct word *w;
	unsigned int kinds = 0;

	if (!text)
		abort();
	while ((w = match(p, prefixes, N(prefixes), &p)))
		kinds |= w->kinds;
	w = match(p, mnemonics, N(mnemonics), &q);
	if (w && w->kinds & STAR && *q == '*')
		kinds |= 1 << INDIRECT;
	kinds |= w ? w->kinds : 0;
	/* movs, cmps (two operands an element), stos, lods, scas */
	size = strlen(p) > 4 ? strchr("bwlq", p[4]) : NULL;
	if (kinds & REP && size && (!strncmp(p, "movs", 4) ||
	    !strncmp(p, "cmps", 4) || !strncmp(p, "stos", 4) ||
	    !strncmp(p, "lods", 4) || !strncmp(p, "scas", 4))) {
		b->size = 1 << (size - "bwlq");
		b->per_element = p[0] == 'm' || p[0] == 'c' ? 2 : 1;
		kinds |= 1 << STRING;
	}
	free(text);
	return kinds & ~(REP | STAR);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b;
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	/* A chunk runs in a kernel thread: user space is never inside one */
	if (kernel_only && !(qemu_plugin_tb_vaddr(tb) >> 63))
		return;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->now[EXECS], 1);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &ran, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int kind = marker_kind(insn);
		unsigned int kinds, k;

		if (kind)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)kind);
		kinds = classify(insn, b);
		for (k = LOCKED; k <= INDIRECT; k++)
			if (kinds & 1 << k)
				qemu_plugin_register_vcpu_insn_exec_inline(insn,
					QEMU_PLUGIN_INLINE_ADD_U64, &b->now[k], 1);
		/* Per access: TCG runs rep once more than its element count */
		if (kinds & 1 << STRING)
			qemu_plugin_register_vcpu_mem_inline(insn,
				QEMU_PLUGIN_MEM_RW, QEMU_PLUGIN_INLINE_ADD_U64,
				&b->now[STRING], 1);
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
			QEMU_PLUGIN_INLINE_ADD_U64, &b->now[ACCESSES], 1);
		/*
		 * QEMU 7.2 filters an inline memory op by rw the wrong way
		 * round: one registered for reads counts the stores (one for
		 * writes, every access). tests/attribute counts a program's
		 * loads and stores exactly, and fails when QEMU fixes it.
		 */
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_R,
			QEMU_PLUGIN_INLINE_ADD_U64, &b->now[STORES], 1);
		qemu_plugin_register_vcpu_mem_cb(insn, on_access,
			QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
			kinds & 1 << STRING ? NULL : b);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	if (argc != 1 || strncmp(argv[0], "out=", 4)) {
		fprintf(stderr, "insn_count: takes out=FILE\n");
		return -1;
	}
	out = fopen(argv[0] + 4, "w");
	if (!out) {
		perror(argv[0] + 4);
		return -1;
	}
	kernel_only = info->system_emulation;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
