// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module for the runner's own tests: on load it
 * hits WARN_ON(1) (mode=warn), dereferences NULL (mode=oops) or leaks a
 * page's worth of memory (mode=leak, for kmemleak), so that the runner
 * must fail the run and show the report.
 */
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "warn: WARN_ON(1); oops: NULL dereference; leak: kmalloc, never freed");

static int __init splat_init(void)
{
	if (!strcmp(mode, "oops")) {
		int *volatile p = NULL;

		return *p;
	}
	if (!strcmp(mode, "leak")) {
		/* volatile: the allocation must happen, and be lost. */
		void *volatile leak = kmalloc(4096, GFP_KERNEL);

		return leak ? 0 : -ENOMEM;
	}
	WARN_ON(1);
	return 0;
}
module_init(splat_init);

static void __exit splat_exit(void)
{
}
module_exit(splat_exit);

MODULE_DESCRIPTION("Broken on purpose: tests the runner's splat detection");
MODULE_LICENSE("GPL");
