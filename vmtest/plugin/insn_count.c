// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin for vmtest.sh --attribute: the guest instructions each
 * translation block executed inside the benchmark's timed chunks, per
 * test.  QEMU 7.2's plugin API reads no guest register, so the module's
 * runner-only patch (vmtest/guest/insn-markers.patch) says where a chunk
 * starts and ends, and where a test's figure is printed, by the encoding
 * of a 7-byte NOP: nopl 0x5050KK00(%rax), KK the marker's kind.  A block's
 * execution counts in full where it starts, so a marker's own block adds
 * or loses a few instructions a chunk.
 *
 * Output (out=FILE), as each test's figure is printed: a line "test N",
 * then "VADDR INSNS EXECS" for every block that ran in its chunks; the
 * blocks of one address may repeat (retranslation).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { MARK_BEGIN = 1, MARK_END = 2, MARK_PRINT = 3 };

struct block {
	uint64_t vaddr, execs, base, acc;
	uint32_t insns;
	struct block *next;
};

static struct block *blocks;		/* every block translated */
static unsigned int test;		/* tests printed so far */
static FILE *out;

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

static void on_marker(unsigned int cpu, void *udata)
{
	struct block *b;

	switch ((uintptr_t)udata) {
	case MARK_BEGIN:
		for (b = blocks; b; b = b->next)
			b->base = b->execs;
		break;
	case MARK_END:
		for (b = blocks; b; b = b->next)
			b->acc += b->execs - b->base;
		break;
	case MARK_PRINT:	/* the chunks so far were this test's */
		fprintf(out, "test %u\n", ++test);
		for (b = blocks; b; b = b->next) {
			if (b->acc)
				fprintf(out, "%" PRIx64 " %u %" PRIu64 "\n",
					b->vaddr, b->insns, b->acc);
			b->acc = 0;
		}
		break;
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int kind = marker_kind(insn);

		if (kind)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)kind);
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
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
